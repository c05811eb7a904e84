#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0694-mirror-mirrored-log: old-style mirrors with a "mirrored" log (--mirrorlog
# mirrored: NAME_mlog itself a 2-image mirror over NAME_mlog_mimage_0/1) against LVM2 on
# twin VGs (tests/tools/lv_twin.sh).  LVM2 makes no mirror on the host (no dm-mirror), so
# both sides start from mirrors lvx makes; LVM2 converts inactive mirrors on the host.
# Steps (lvx on side A, LVM2 on side B; exit code, output and metadata text compared):
# lvconvert --mirrorlog mirrored without global/support_mirrored_mirror_log (refused),
# of a core-log and of a disk-log mirror, on the images' PVs when no other PV is left,
# --alloc anywhere on one PV, mirrored -> disk, mirrored -> core, -m0 of a mirror with a
# mirrored log.  lvcreate --mirrorlog mirrored by lvx (side A) against a core-log mirror
# converted by LVM2 (side B, the same add_mirror_log in LVM2): the same metadata, on
# 4 PVs, on the images' 2 PVs, --alloc anywhere on one PV.  lvrename (the log's images
# renamed too).  vgsplit of such an LV
# (refusals with part of its PVs, then -n LV) compared as well, and LVM2's vgck accepts
# lvx's side.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/lv_twin.sh
. "$LVX_ROOT/tests/tools/lv_twin.sh"

twin_begin 5 64M vg1
C=(--config "global/activation=1")
S=(--config "global/support_mirrored_mirror_log=1")
CS=(--config "global/activation=1 global/support_mirrored_mirror_log=1")

step() { twin_step "$@"; }
out() { twin_out "$@"; }
mk() {  # mk SIDE ARGS...: lvx makes an inactive LV on a side (%N: device N)
    local side=$1
    shift
    mapfile -d '' args < <(twin_args "$side" "$@")
    "lvx_$side" lvcreate "${C[@]}" -an -Zn "${args[@]}" >/dev/null 2>&1
}
# create: lvx lvcreate --mirrorlog mirrored on A; on B lvx makes the core-log mirror
# and LVM2 gives it the mirrored log with the same PV list and policy
create() {  # create DESC NAME "OPTIONS" PV...
    local desc=$1 name=$2 rca=0 rcb=0 opts
    read -r -a opts <<<"$3"
    shift 3
    mapfile -d '' pa < <(twin_args a "$@")
    mapfile -d '' pb < <(twin_args b "$@")
    local alloc=()
    [[ " ${opts[*]} " == *" --alloc anywhere "* ]] && alloc=(--alloc anywhere)
    lvx_a lvcreate "${CS[@]}" -an -Zn --mirrorlog mirrored "${opts[@]}" -n "$name" \
        vg1 "${pa[@]}" >"$SCRATCH/a.out" 2>&1 || rca=$?
    lvx_b lvcreate "${C[@]}" -an -Zn --corelog "${opts[@]}" -n "$name" vg1 "${pb[@]}" \
        >/dev/null 2>&1 || rcb=$?
    lvm_b lvconvert "${S[@]}" "${alloc[@]}" --mirrorlog mirrored vg1/"$name" "${pb[@]}" \
        >"$SCRATCH/b.out" 2>&1 || rcb=$?
    test_eq "$desc: lvx created it (exit code)" "$rca" "$rcb"
    test_eq "$desc: lvx warns as LVM2" "$(out a "$SCRATCH/a.out" | grep 'Log type')" \
        "$(out b "$SCRATCH/b.out" | grep 'Log type')"
    test_eq "$desc: metadata equal" "$(twin_meta a)" "$(twin_meta b)"
}

for side in a b; do
    mk "$side" --type mirror -m1 -l4 --corelog -n m1 vg1 %0 %1
    mk "$side" --type mirror -m1 -l4 -n m2 vg1 %0 %1 %2
    mk "$side" --type mirror -m1 -l2 --corelog -n m3 vg1 %3 %4
done
test_eq "the same mirrors made on both sides" "$(twin_meta a)" "$(twin_meta b)"

step "--mirrorlog mirrored without support_mirrored_mirror_log: refused" \
    lvconvert --mirrorlog mirrored vg1/m1
step "--mirrorlog mirrored of a core-log mirror" \
    lvconvert "${S[@]}" --mirrorlog mirrored vg1/m1
step "--mirrorlog mirrored of a disk-log mirror" \
    lvconvert "${S[@]}" --mirrorlog mirrored vg1/m2
step "--mirrorlog mirrored on the images' PVs only" \
    lvconvert "${S[@]}" --mirrorlog mirrored vg1/m3 %3 %4
test_eq "m3's log images are on D3 and D4" \
    "$(lvm_a lvs -a --noheadings -o lv_name,devices vg1 2>/dev/null | sed "$(_twin_sed a)" |
       awk '$1 ~ /m3_mlog_mimage/ {sub(/\(.*/, "", $2); print $2}' | tr '\n' ' ')" "D3 D4 "
step "--mirrorlog disk of a mirror with a mirrored log" \
    lvconvert "${S[@]}" --mirrorlog disk vg1/m1
step "--mirrorlog core of a mirror with a mirrored log" \
    lvconvert "${S[@]}" -y --mirrorlog core vg1/m2
step "-m0 of a mirror with a mirrored log" lvconvert "${S[@]}" -y -m0 vg1/m3
step "lvremove of the rest" lvremove -ff vg1

create "lvcreate --mirrorlog mirrored (logs on the PVs without images)" c1 \
    "--type mirror -m1 -l4" %0 %1 %2 %3
create "lvcreate --mirrorlog mirrored on the images' 2 PVs" c2 "--type mirror -m1 -l4" %0 %1
create "lvcreate --mirrorlog mirrored --alloc anywhere on one PV" c3 \
    "--type mirror -m1 -l4 --alloc anywhere" %4
create "lvcreate --mirrorlog mirrored -R 512k" c4 "--type mirror -m1 -l2 -R 512k" %1 %2 %3 %4
rca=0
lvx_a lvcreate "${C[@]}" -an -Zn --type mirror -m1 -l4 --mirrorlog mirrored -n c5 vg1 \
    >"$SCRATCH/a.out" 2>&1 || rca=$?
test_eq "lvcreate --mirrorlog mirrored without support_mirrored_mirror_log: LVM2's refusal" \
    "$rca $(out a "$SCRATCH/a.out")" \
    "5   Log type \"mirrored\" is DEPRECATED. Use RAID1 LV or disk log instead."
test_ok "LVM2's vgck accepts lvx's side" lvm_a vgck vg1
test_eq "LVM2 reports lvx's side as its own (attrs, devices, logs, region)" \
    "$(lvm_a lvs -a --noheadings -o lv_name,lv_attr,devices,mirror_log,region_size vg1 2>/dev/null | sed "$(_twin_sed a)" | tr -s ' ')" \
    "$(lvm_b lvs -a --noheadings -o lv_name,lv_attr,devices,mirror_log,region_size vg1 2>/dev/null | sed "$(_twin_sed b)" | tr -s ' ')"

# vgsplit of c1 (D0..D3) alone
step "lvrename of a mirror with a mirrored log (its 5 sub-LVs follow)" lvrename vg1 c2 r2
step "lvremove of the others" lvremove -ff vg1/r2 vg1/c3 vg1/c4
step "vgsplit of part of a mirrored-log mirror's PVs: refused" vgsplit vg1 vg2 %0 %1
step "vgsplit of the log's PVs only: refused" vgsplit vg1 vg2 %2 %3
step "vgsplit of an image and a log PV: refused" vgsplit vg1 vg2 %0 %2
step "vgsplit -n of the mirrored-log mirror" vgsplit -n c1 vg1 vg2
TWIN_VG=vg2
test_eq "vgsplit: the new VG's metadata equal" "$(twin_meta a)" "$(twin_meta b)"
test_ok "LVM2's vgck accepts lvx's new VG" lvm_a vgck vg2
TWIN_VG=vg1

for side in a b; do "lvm_$side" vgremove -ff vg1 vg2 >/dev/null 2>&1; done
done_testing
