#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0689-mirror-repair: lvconvert --repair and vgreduce --removemissing --force of
# inactive old-style mirrors with images or logs on a missing PV, against LVM2 on twin
# VGs (tests/tools/lv_twin.sh): lvx makes the same mirrors on both sides, then one PV
# (D1) is hidden from both sides (filtered out), side A is repaired by lvx and side B
# by LVM2.  After each step: the same exit code and output (LVM2's "Couldn't find
# device" lines aside) and the same metadata text: a 2-image mirror with a lost image
# becomes linear (--use-policies, image policy "remove"), a 3-image one keeps its two
# survivors and their names, policy "allocate" or plain --repair -y put a new image
# (and log) on the PVs left, -f only removes, a lost log comes back (log policy
# "allocate"), -y of a 3-image mirror keeps the 2 survivors when no PV is left for a
# third image (LVM2's allocation error, then one image fewer); vgck --updatemetadata writes the VG as LVM2 does with
# the PV missing; vgreduce --removemissing refuses with partial LVs, --force turns the
# mirror into its surviving leg and drops the PV.  LVM2's vgck accepts side A at the end.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/lv_twin.sh
. "$LVX_ROOT/tests/tools/lv_twin.sh"

twin_begin 4 64M vg1
C=(--config "global/activation=1")
for side in a b; do
    for a in "-m1 -n m1" "-m2 -n m2" "-m1 --corelog -n m3" "-m1 -n m4" "-m1 -n m5" \
             "-m1 -n m6" "-m1 -n m7" "-m2 -n m8"; do
        # shellcheck disable=SC2086
        "lvx_$side" lvcreate "${C[@]}" -an --type mirror -L 4m $a vg1 >/dev/null 2>&1
    done
    # the log on D1, the images on D0 and D2
    mapfile -d '' pvs < <(twin_args "$side" %0 %2 %1)
    "lvx_$side" lvcreate "${C[@]}" -an --type mirror -m1 -L 4m -n ml vg1 "${pvs[@]}" >/dev/null 2>&1
done
test_eq "the same mirrors made on both sides" "$(twin_meta a)" "$(twin_meta b)"
test_eq "ml's log is on D1" \
    "$(lvm_a lvs -a --noheadings -o lv_name,devices vg1 2>/dev/null | sed "$(_twin_sed a)" |
       awk '$1 == "[ml_mlog]" {sub(/\(.*/, "", $2); print $2}')" "D1"

# the output without the sandbox's noise, LVM2's "Couldn't find device" lines and the
# PV uuids (each side has its own)
out() {  # out SIDE FILE
    sandbox_noise <"$2" | grep -v "Couldn't find device with uuid" |
        sed -E 's/PV [-A-Za-z0-9]{38}/PV UUID/' | sed "$(_twin_sed "$1")"
}
step() {  # step DESC CMD ARGS...: lvx on side A, LVM2 on side B
    local desc=$1 rca=0 rcb=0
    shift
    lvx_a "$@" >"$SCRATCH/a.out" 2>&1 || rca=$?
    lvm_b "$@" >"$SCRATCH/b.out" 2>&1 || rcb=$?
    test_eq "$desc: lvx's exit code and output equal LVM2's" \
        "$rca $(out a "$SCRATCH/a.out")" "$rcb $(out b "$SCRATCH/b.out")"
    test_eq "$desc: metadata equal" "$(twin_meta a)" "$(twin_meta b)"
}
step "--repair of a mirror without a missing PV" lvconvert -y --repair vg1/m1

# D1 goes missing on both sides
for side in a b; do
    if [[ $side == a ]]; then d=${TWIN_A[1]}; else d=${TWIN_B[1]}; fi
    sed -i "s#\"a|^$d\\\$|\", ##" "$SCRATCH/twin_$side/lvm.conf"
done
LEFT_A=("${TWIN_A[0]}" "${TWIN_A[2]}" "${TWIN_A[3]}")
lvx_a() { LVM_SYSTEM_DIR="$SCRATCH/twin_a" "$LVX" "$@" --devices "$(IFS=,; echo "${LEFT_A[*]}")"; }
test_eq "D1 is missing on both sides" \
    "$(lvm_a pvs --noheadings -o pv_missing 2>/dev/null | grep -c missing) $(lvm_b pvs --noheadings -o pv_missing 2>/dev/null | grep -c missing)" \
    "1 1"

step "--repair --use-policies of a 2-image mirror (image policy remove): linear" \
    lvconvert -y --repair --use-policies vg1/m1
step "--repair --use-policies of a 3-image mirror: its 2 survivors" \
    lvconvert -y --repair --use-policies vg1/m2
step "--repair --use-policies, image policy allocate, core log: a new image" \
    lvconvert -y --repair --use-policies \
    --config 'activation/mirror_image_fault_policy="allocate"' vg1/m3
step "--repair -y: a new image and a new log" lvconvert -y --repair vg1/m4
step "--repair -f: the failed image removed only" lvconvert -f --repair vg1/m5
step "--repair --use-policies of a mirror with a lost log (log policy allocate)" \
    lvconvert -y --repair --use-policies vg1/ml
step "--repair of a repaired mirror: nothing to do" lvconvert -y --repair vg1/m4
# a 3-image mirror whose 2 survivors and log take the 3 PVs left: no PV for a third
# image, so 2 images and the log (LVM2's allocation error and warning)
step "--repair -y of a 3-image mirror with no PV left for a new image" \
    lvconvert -y --repair vg1/m8
step "vgck --updatemetadata writes with a PV missing (flagged MISSING)" vgck --updatemetadata vg1
# D1 back for one step: still flagged MISSING (in use), its legs count as lost (LVM2)
cp "$SCRATCH/twin_a/lvm.conf" "$SCRATCH/a.conf"
cp "$SCRATCH/twin_b/lvm.conf" "$SCRATCH/b.conf"
_twin_sandbox "$SCRATCH/twin_a" "${TWIN_A[@]}"
_twin_sandbox "$SCRATCH/twin_b" "${TWIN_B[@]}"
LEFT_A=("${TWIN_A[@]}")
rca=0 rcb=0
lvx_a lvconvert -y --repair --use-policies vg1/m6 >"$SCRATCH/a.out" 2>&1 || rca=$?
lvm_b lvconvert -y --repair --use-policies vg1/m6 >"$SCRATCH/b.out" 2>&1 || rcb=$?
test_eq "--repair of a mirror whose leg's PV is back but flagged MISSING: exit code, status line" \
    "$rca $(grep Mirror "$SCRATCH/a.out")" "$rcb $(grep Mirror "$SCRATCH/b.out")"
test_eq "... metadata equal (the leg on the returned PV removed)" "$(twin_meta a)" "$(twin_meta b)"
cp "$SCRATCH/a.conf" "$SCRATCH/twin_a/lvm.conf"
cp "$SCRATCH/b.conf" "$SCRATCH/twin_b/lvm.conf"
LEFT_A=("${TWIN_A[0]}" "${TWIN_A[2]}" "${TWIN_A[3]}")
step "vgreduce --removemissing with partial mirrors left: refused" \
    vgreduce --removemissing vg1
step "vgreduce --removemissing --force: the mirrors become their surviving legs" \
    vgreduce --removemissing --force vg1
test_ok "LVM2's vgck accepts lvx's side" lvm_a vgck vg1
test_eq "LVM2 reports lvx's side as its own (types, devices, logs)" \
    "$(lvm_a lvs -a --noheadings -o lv_name,segtype,devices,mirror_log vg1 2>/dev/null | sed "$(_twin_sed a)" | tr -s ' ')" \
    "$(lvm_b lvs -a --noheadings -o lv_name,segtype,devices,mirror_log vg1 2>/dev/null | sed "$(_twin_sed b)" | tr -s ' ')"
test_eq "the missing PV left the VG" "$(lvm_a vgs --noheadings -o pv_count,lv_count vg1 2>/dev/null | tr -s ' ')" " 3 9"

lvx_a vgremove -ff vg1 >/dev/null 2>&1
lvm_b vgremove -ff vg1 >/dev/null 2>&1
done_testing
