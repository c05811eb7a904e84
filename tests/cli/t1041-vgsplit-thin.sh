#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1041-vgsplit-thin: vgsplit and vgmerge of VGs with thin pools, next to LVM2 2.03.16
# (LVM2's test vgsplit-thin.sh, its two layouts).  Twin VGs (tests/tools/lv_twin.sh):
# each side's pools, thin LVs, the COW snapshot of a thin LV and the external origin
# are made by lvx through the user backend (LVM2 makes no thin LV without
# device-mapper), then lvx splits side A and LVM2 side B:
#   - refused: a pool's data without its metadata (and the other way), a thin LV
#     without its external origin or the origin without it (PVs named or -n POOL):
#     LVM2's message and exit code, nothing written;
#   - the split of whole pools with their thin LVs, snapshot and external origin: the
#     metadata of both VGs equal to LVM2's (the spare moved with its PV, a new one made
#     in the VG left with pools without one, dropped where no pool is left), LVM2's
#     vgck accepts them; vgmerge back equal to LVM2's;
#   - a pool split off without a spare: one made in the new VG, the old VG's spare
#     (no pool left there) dropped, as LVM2 does;
#   - side A only: an active pool refused (lvx's user backend), nothing written.
# LVM2's activation-off lines about the spare it could not zero are left out of its
# output (lvx zeroes it).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/lv_twin.sh
. "$LVX_ROOT/tests/tools/lv_twin.sh"

[[ -e /dev/fuse ]] || skip_all "no /dev/fuse"
twin_begin 5 64M vg1
mkdir -p "$SCRATCH/dev"
# lvx with its user backend (thin LVs need an active pool), on a side's devices
U() {
    DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user "lvx_$1" "${@:2}" \
        --config 'global { activation = 1 }'
}
side_devs() { if [[ $1 == a ]]; then D=("${TWIN_A[@]}"); else D=("${TWIN_B[@]}"); fi; }
# layout1 SIDE: LVM2's first layout (two pools, a COW snapshot of a thin LV, a thin LV
# with an external origin)
layout1() {
    local D
    side_devs "$1"
    U "$1" lvcreate -q -T -L8M vg1/pool1 -V10M -n lv1 "${D[0]}" "${D[1]}" &&
        U "$1" lvcreate -q -T -L8M vg1/pool2 -V10M -n lv2 "${D[2]}" "${D[3]}" &&
        U "$1" lvcreate -q -s -L4M -n snap vg1/lv1 "${D[1]}" &&
        U "$1" lvcreate -q -l1 -an -pr --zero n -n eorigin vg1 "${D[4]}" &&
        U "$1" lvcreate -q -an -s vg1/eorigin -n lv3 --thinpool vg1/pool1 &&
        U "$1" vgchange -q -an vg1
}
# layout2 SIDE: the second one (a pool, an external origin alone on D2, an LV on D3)
layout2() {
    local D
    side_devs "$1"
    U "$1" vgremove -q -ff vg1 &&
        U "$1" vgcreate -q vg1 "${D[@]}" &&
        U "$1" lvcreate -q -T -L8M vg1/pool1 -V10M -n lv1 "${D[0]}" "${D[1]}" &&
        U "$1" lvcreate -q -l1 -an -pr -n lv2 vg1 "${D[2]}" &&
        U "$1" lvcreate -q -s vg1/lv2 -n lv3 --thinpool vg1/pool1 &&
        U "$1" lvcreate -q -l1 -n lv4 vg1 "${D[3]}" &&
        U "$1" vgchange -q -an vg1
} >/dev/null 2>&1
# (and the seqno of vgmerge's "updating old metadata": side A's pool was activated)
quiet() {
    grep -v -e 'Skipping zeroing and wipping, compiled without activation support' \
        -e 'Logical volume vg[12]/lvol0 not zeroed' "$1" |
        sed -E 's/updating old metadata to [0-9]+ on/updating old metadata to N on/' >"$1.q"
    printf '%s' "$1.q"
}
# meta2: both VGs' metadata (twin_meta of vg1 and vg2)
meta2() { twin_meta "$1"; TWIN_VG=vg2 twin_meta "$1"; TWIN_VG=vg1; }
sha_a() { sha_devs "${TWIN_A[@]}"; }
# step DESC ARGS...: lvx on side A, LVM2 on side B (%N: the side's device N): exit code
# and output, then the metadata of both VGs compared; a refusal wrote nothing on A
step() {
    local desc=$1 rca=0 rcb=0 aa bb before
    shift
    mapfile -d '' aa < <(twin_args a "$@")
    mapfile -d '' bb < <(twin_args b "$@")
    before=$(sha_a)
    lvx_a "${aa[@]}" >"$SCRATCH/sa.out" 2>&1 || rca=$?
    lvm_b "${bb[@]}" >"$SCRATCH/sb.out" 2>&1 || rcb=$?
    test_eq "$desc: lvx's exit code and output equal LVM2's" \
        "$rca $(twin_out a "$(quiet "$SCRATCH/sa.out")")" \
        "$rcb $(twin_out b "$(quiet "$SCRATCH/sb.out")")"
    if ((rcb)); then
        test_eq "$desc: refused, nothing written" "$(sha_a)" "$before"
    else
        test_eq "$desc: metadata of vg1 and vg2 equal LVM2's" "$(meta2 a)" "$(meta2 b)"
    fi
}
vgck_a() { lvm_a vgck vg1 && { ! lvm_a vgs vg2 >/dev/null 2>&1 || lvm_a vgck vg2; }; }

test_ok "layout 1 made by lvx on side A" layout1 a
test_ok "... and on side B" layout1 b
test_eq "... the same metadata on both sides" "$(twin_meta a)" "$(twin_meta b)"

# -------------------------------------------------------------- active pool, side A
test_ok "side A: vg1 activated (user backend)" U a vgchange -q -ay vg1
before=$(sha_a)
rc=0
U a vgsplit vg1 vg2 "${TWIN_A[0]}" "${TWIN_A[1]}" "${TWIN_A[4]}" >"$SCRATCH/act.out" 2>&1 || rc=$?
test_eq "vgsplit of an active pool: exit 5" "$rc" 5
test_ok "... LVM2's 'must be inactive.'" grep -q "must be inactive\.$" "$SCRATCH/act.out" ||
    diag "$(cat "$SCRATCH/act.out")"
test_ok "side A: vg1 deactivated" U a vgchange -q -an vg1
test_eq "... nothing written (but the activation's pool transaction)" \
    "$(lvm_a lvs --noheadings -o vg_name vg1/lv1 vg1/pool1 2>/dev/null | xargs)" "vg1 vg1"
test_ok "... no vg2" eval '! lvm_a vgs vg2 >/dev/null 2>&1'

# -------------------------------------------------------------- refusals
step "vgsplit vg1 vg2 D0 (pool1's data without its metadata)" vgsplit vg1 vg2 %0
step "vgsplit vg1 vg2 D1 D2 (pool2's data without its metadata)" vgsplit vg1 vg2 %1 %2
step "vgsplit vg1 vg2 D0 D1 (pool1 without lv3's external origin)" vgsplit vg1 vg2 %0 %1
step "vgsplit vg1 vg2 D4 (lv3's external origin without its pool)" vgsplit vg1 vg2 %4
step "vgsplit -n pool1 vg1 vg2 (pool1's PVs only)" vgsplit -n pool1 vg1 vg2
test_ok "... vg1 still whole (LVM2's vgck)" lvm_a vgck vg1

# -------------------------------------------------------------- the split, the merge
step "vgsplit vg1 vg2 D0 D1 D4 (pool1, lv1, snap, lv3, eorigin)" vgsplit vg1 vg2 %0 %1 %4
test_eq "... lvx's vg2: the pool, its thin LVs, the snapshot, the origin, the spare" \
    "$(lvm_a lvs -a --noheadings -o lv_name vg2 2>/dev/null | xargs)" \
    "eorigin lv1 lv3 [lvol0_pmspare] pool1 [pool1_tdata] [pool1_tmeta] snap"
test_eq "... vg1 kept pool2 and got a spare of its own" \
    "$(lvm_a lvs -a --noheadings -o lv_name,lv_size vg1/lvol0_pmspare 2>/dev/null | xargs)" \
    "[lvol0_pmspare] 4.00m"
test_ok "... LVM2's vgck accepts lvx's vg1 and vg2" vgck_a
step "vgmerge vg1 vg2" vgmerge vg1 vg2
test_ok "... LVM2's vgck accepts lvx's merged vg1" vgck_a
test_eq "... one spare left" "$(lvm_a lvs -a --noheadings -o lv_name vg1 2>/dev/null | grep -c pmspare)" 1

# -------------------------------------------------------------- layout 2
test_ok "layout 2 on both sides (lvx)" eval 'layout2 a && layout2 b'
step "vgsplit vg1 vg2 D0 D1 (the pool without the external origin lv2)" vgsplit vg1 vg2 %0 %1
step "vgsplit vg1 vg2 D2 (the external origin without the pool)" vgsplit vg1 vg2 %2
step "vgsplit vg1 vg2 D0 D1 D2" vgsplit vg1 vg2 %0 %1 %2
test_eq "... no spare left in vg1 (no pool there)" \
    "$(lvm_a lvs -a --noheadings -o lv_name vg1 2>/dev/null | xargs)" "lv4"
test_ok "... LVM2's vgck accepts lvx's vg1 and vg2" vgck_a
step "vgmerge vg1 vg2 (again)" vgmerge vg1 vg2
test_ok "... LVM2's vgck accepts lvx's merged vg1" vgck_a

# -------------------------------------------------------------- layout 3
# pool1 on D0 D1 made without a spare, the spare on D4 (left by a pool made and removed
# there): the split of D0 D1 makes vg2 a spare, vg1 (no pool left) loses its own
layout3() {
    local D
    side_devs "$1"
    U "$1" vgremove -q -ff vg1 &&
        U "$1" vgcreate -q vg1 "${D[@]}" &&
        U "$1" lvcreate -q -T -L8M vg1/pool1 -V10M -n lv1 --poolmetadataspare n "${D[0]}" "${D[1]}" &&
        U "$1" lvcreate -q -T -L4M vg1/gone "${D[4]}" &&
        U "$1" lvremove -q -f vg1/gone &&
        U "$1" vgchange -q -an vg1
} >/dev/null 2>&1
test_ok "layout 3 on both sides (lvx)" eval 'layout3 a && layout3 b'
test_eq "... the spare on D4" "$(lvm_a lvs -a --noheadings -o devices vg1/lvol0_pmspare 2>/dev/null |
    sed "$(_twin_sed a)" | xargs)" "D4(0)"
step "vgsplit vg1 vg2 D0 D1 (a spare made in vg2, vg1's dropped)" vgsplit vg1 vg2 %0 %1
test_eq "... lvx's vg2 has a spare, vg1 none" \
    "$(lvm_a lvs -a --noheadings -o vg_name,lv_name 2>/dev/null | grep pmspare | xargs)" \
    "vg2 [lvol0_pmspare]"
test_ok "... LVM2's vgck accepts lvx's vg1 and vg2" vgck_a

lvx_a vgremove -q -ff vg1 vg2 >/dev/null 2>&1
lvm_b vgremove -q -ff vg1 vg2 >/dev/null 2>&1
done_testing
