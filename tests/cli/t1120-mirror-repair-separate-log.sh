#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1120-mirror-repair-separate-log: lvconvert -y --repair of a 3-image disk-log mirror
# that lost two of its images' PVs, with allocation/mirror_logs_require_separate_pvs = 1
# (as LVM2's own lvconvert-repair-replace.sh sets it) and one PV free: the survivor is
# linear for a moment, three images and a log on a PV of its own do not fit on the three
# PVs left, so LVM2 prints its allocator's two lines, tries 2 images and ends with
# "WARNING: Failed to replace 1 of 3 images" (exit 0).  lvx on side A, LVM2 on side B of
# twin VGs (tests/tools/lv_twin.sh): the same exit code, output and metadata.  lvx
# before: the log's allocation failed with its own line ("Number of stripes (1) must not
# exceed number of physical volumes (0)"), exit 5, the VG half changed in memory and
# nothing repaired (found by LVM2's test in the guest, bench/lvm2-testsuite).  A second
# case without the setting: three images again, the log beside an image (both tools).
# A third, lvx alone (LVM2 cannot repair a mirrored log without device-mapper): a
# 2-image mirror with a mirrored log whose two PVs are lost: the repair leaves no
# sub-LV on a missing PV (lvx left the log's images behind, "[unknown]" in LVM2's
# lvs -a, until LVM2's lvconvert-repair-replace.sh:83 caught it).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/lv_twin.sh
. "$LVX_ROOT/tests/tools/lv_twin.sh"

twin_begin 5 64M vg1
C=(--config "global/activation=1")
out() {  # out SIDE FILE: without the sandbox's noise, LVM2's missing-device lines, PV uuids
    sandbox_noise <"$2" | grep -v "Couldn't find device with uuid" |
        sed -E 's/PV [-A-Za-z0-9]{38}/PV UUID/' | sed "$(_twin_sed "$1")"
}
devs_of() {  # devs_of SIDE: "name=D<n>" of each sub-LV, sorted
    lvm_"$1" lvs -a --noheadings -o lv_name,devices vg1 2>/dev/null | sed "$(_twin_sed "$1")" |
        awk 'NF == 2 { sub(/\(.*/, "", $2); print $1 "=" $2 }' | sort | paste -sd' '
}
# repair SEPARATE DESC: a fresh mirror (images on D0 D1 D2, log on D3) on both sides,
# D0 and D1 made missing, lvconvert -y --repair with the setting SEPARATE
repair() {
    local sep=$1 desc=$2 side rca=0 rcb=0
    for side in a b; do
        twin_on "$side" lvm lvremove -ff vg1 >/dev/null 2>&1
        mapfile -d '' pvs < <(twin_args "$side" %0 %1 %2 %3)
        "lvx_$side" lvcreate "${C[@]}" -an --type mirror -m2 -L 4m -n m vg1 "${pvs[@]}" >/dev/null 2>&1
    done
    test_eq "$desc: the same mirror made on both sides" "$(twin_meta a)" "$(twin_meta b)"
    for side in a b; do
        if [[ $side == a ]]; then set -- "${TWIN_A[@]}"; else set -- "${TWIN_B[@]}"; fi
        cp "$SCRATCH/twin_$side/lvm.conf" "$SCRATCH/twin_$side/lvm.conf.all"
        sed -i -e "s#\"a|^$1\\\$|\", ##" -e "s#\"a|^$2\\\$|\", ##" "$SCRATCH/twin_$side/lvm.conf"
    done
    LEFT_A=("${TWIN_A[2]}" "${TWIN_A[3]}" "${TWIN_A[4]}")
    lvx_a() { LVM_SYSTEM_DIR="$SCRATCH/twin_a" "$LVX" "$@" --devices "$(IFS=,; echo "${LEFT_A[*]}")"; }
    local S=(--config "allocation/mirror_logs_require_separate_pvs=$sep")
    lvx_a lvconvert "${S[@]}" -y --repair vg1/m >"$SCRATCH/a.out" 2>&1 || rca=$?
    lvm_b lvconvert "${S[@]}" -y --repair vg1/m >"$SCRATCH/b.out" 2>&1 || rcb=$?
    diag "LVM2: $(out b "$SCRATCH/b.out")"
    test_eq "$desc: lvx's exit code and output equal LVM2's" \
        "$rca $(out a "$SCRATCH/a.out")" "$rcb $(out b "$SCRATCH/b.out")"
    test_eq "$desc: metadata equal" "$(twin_meta a)" "$(twin_meta b)"
    test_eq "$desc: images and log on the same PVs (LVM2 reading both sides)" \
        "$(devs_of a)" "$(devs_of b)"
    for side in a b; do
        mv "$SCRATCH/twin_$side/lvm.conf.all" "$SCRATCH/twin_$side/lvm.conf"
        twin_on "$side" lvm vgreduce --removemissing --force vg1 >/dev/null 2>&1
    done
    lvx_a() { LVM_SYSTEM_DIR="$SCRATCH/twin_a" "$LVX" "$@" --devices "$(IFS=,; echo "${TWIN_A[*]}")"; }
}

repair 1 "separate log PVs"
test_eq "separate log PVs: 2 images on D2 D3, the log on D4" "$(devs_of a)" \
    "[m_mimage_0]=D2 [m_mimage_1]=D3 [m_mlog]=D4 m=m_mimage_0"
test_eq "separate log PVs: lvx said it replaced 1 image fewer, as LVM2" \
    "$(grep -c 'WARNING: Failed to replace 1 of 3 images in volume vg1/m.' "$SCRATCH/a.out")" 1
repair 0 "log beside an image"
test_eq "log beside an image: 3 images again" \
    "$(lvm_a lvs --noheadings -o stripes vg1/m 2>/dev/null | tr -d ' ')" 3
# mirrored log: images on D0 D1, the log's images on D2 D3, both log PVs lost
for side in a b; do
    twin_on "$side" lvm vgreduce --removemissing --force vg1 >/dev/null 2>&1
    twin_on "$side" lvm lvremove -ff vg1 >/dev/null 2>&1
done
M=(--config "global/activation=1 global/support_mirrored_mirror_log=1")
mapfile -d '' pvs < <(twin_args a %0 %1 %2 %3)
lvx_a lvcreate "${M[@]}" -an --type mirror -m1 --mirrorlog mirrored -L 4m -n ml vg1 "${pvs[@]}" >/dev/null 2>&1
test_eq "mirrored log: made, its images on D2 and D3" "$(devs_of a)" \
    "[ml_mimage_0]=D0 [ml_mimage_1]=D1 [ml_mlog]=ml_mlog_mimage_0 [ml_mlog_mimage_0]=D2 [ml_mlog_mimage_1]=D3 ml=ml_mimage_0"
cp "$SCRATCH/twin_a/lvm.conf" "$SCRATCH/twin_a/lvm.conf.all"
sed -i -e "s#\"a|^${TWIN_A[2]}\\\$|\", ##" -e "s#\"a|^${TWIN_A[3]}\\\$|\", ##" "$SCRATCH/twin_a/lvm.conf"
LEFT_A=("${TWIN_A[0]}" "${TWIN_A[1]}" "${TWIN_A[4]}")
lvx_a() { LVM_SYSTEM_DIR="$SCRATCH/twin_a" "$LVX" "$@" --devices "$(IFS=,; echo "${LEFT_A[*]}")"; }
rc=0
lvx_a lvconvert "${M[@]}" -y --repair vg1/ml >"$SCRATCH/a.out" 2>&1 || rc=$?
diag "$(out a "$SCRATCH/a.out")"
test_eq "mirrored log lost: the repair succeeds, no sub-LV left on a missing PV (LVM2's lvs -a)" \
    "$rc $(lvm_a lvs -a --noheadings -o lv_name,devices vg1 2>/dev/null | grep -c unknown)" "0 0"
test_eq "... the mirror keeps its images, a new log on D4" "$(devs_of a)" \
    "[ml_mimage_0]=D0 [ml_mimage_1]=D1 [ml_mlog]=D4 ml=ml_mimage_0"
mv "$SCRATCH/twin_a/lvm.conf.all" "$SCRATCH/twin_a/lvm.conf"
done_testing
