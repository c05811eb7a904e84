#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1051-mirror-origin-repair: lvconvert --repair of old-style mirrors that are origins
# of COW snapshots and lost two PVs (LVM2's lvconvert-repair-snapshot.sh and
# vgreduce-removemissing-snapshot.sh, inactive here).  Twin VGs (tests/tools/lv_twin.sh):
# lvx makes the same mirrors and snapshots on both sides (LVM2 makes neither without
# device-mapper), then lvx repairs side A and LVM2 side B: the same exit code, output and
# metadata.
#   4way  4 images on D0-D3, log on D4, snapshot s4; `echo n`: the failed images removed
#   w3    3 images on D0-D2, log on D4, snapshot s3; `echo y` with D5 D6 free: LVM2
#         adds no image under a snapshot ("Can't add additional mirror images ...",
#         3 images tried), the repair leaves 2 images, exit 0
# Before the repair, on the whole twins: lvconvert -m+1 of the origin is refused with
# LVM2's line and exit 5, nothing written.  lvx before this change refused the repair
# with "it is a sub-LV (origin)" and exit 5.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/lv_twin.sh
. "$LVX_ROOT/tests/tools/lv_twin.sh"

twin_begin 7 64M vg1
C=(--config "global/activation=1")
for side in a b; do
    mapfile -d '' p4 < <(twin_args "$side" %0 %1 %2 %3 %4:0)
    mapfile -d '' p3 < <(twin_args "$side" %0 %1 %2 %4:1)
    mapfile -d '' s < <(twin_args "$side" %2)
    {
        "lvx_$side" lvcreate "${C[@]}" -an --type mirror -m3 -L 4m -n 4way vg1 "${p4[@]}" &&
            "lvx_$side" lvcreate "${C[@]}" -an --type mirror -m2 -L 4m -n w3 vg1 "${p3[@]}" &&
            "lvx_$side" lvcreate -an -s vg1/4way -L 4m -n s4 "${s[@]}" &&
            "lvx_$side" lvcreate -an -s vg1/w3 -L 4m -n s3 "${s[@]}"
    } >/dev/null 2>&1
done
test_eq "the same origins and snapshots made on both sides" "$(twin_meta a)" "$(twin_meta b)"
test_eq "4way and w3 are origins (LVM2 reading side A)" \
    "$(lvm_a lvs --noheadings -o lv_name,lv_attr vg1/4way vg1/w3 2>/dev/null | awk '{ print $1 substr($2, 1, 1) }' | paste -sd' ')" \
    "4wayo w3o"

out() {  # out SIDE FILE: without the sandbox's noise, LVM2's missing-device lines, PV uuids
    sandbox_noise <"$2" | grep -v -e "Couldn't find device with uuid" -e "is missing PV" |
        sed "$(_twin_sed "$1")"
}
step() {  # step DESC INPUT ARGS...: lvx on A, LVM2 on B, INPUT on stdin
    local desc=$1 input=$2
    shift 2
    rca=0 rcb=0
    echo "$input" | lvx_a "$@" >"$SCRATCH/a.out" 2>&1 || rca=$?
    echo "$input" | lvm_b "$@" >"$SCRATCH/b.out" 2>&1 || rcb=$?
    diag "LVM2: $(out b "$SCRATCH/b.out")"
    test_eq "$desc: lvx's exit code and output equal LVM2's" \
        "$rca $(out a "$SCRATCH/a.out")" "$rcb $(out b "$SCRATCH/b.out")"
    test_eq "... metadata equal" "$(twin_meta a)" "$(twin_meta b)"
}

before=$(twin_meta a)
step "lvconvert -m+1 of the origin 4way" "" lvconvert -m+1 vg1/4way
test_eq "... refused with LVM2's line, exit 5" "$rca $(out a "$SCRATCH/a.out")" \
    "5   Can't add additional mirror images to mirror vg1/4way which is under snapshots."
test_eq "... nothing written on side A" "$(twin_meta a)" "$before"

# D1 and D3 go missing on both sides
for side in a b; do
    if [[ $side == a ]]; then set -- "${TWIN_A[@]}"; else set -- "${TWIN_B[@]}"; fi
    sed -i -e "s#\"a|^$2\\\$|\", ##" -e "s#\"a|^$4\\\$|\", ##" "$SCRATCH/twin_$side/lvm.conf"
done
LEFT_A=("${TWIN_A[0]}" "${TWIN_A[2]}" "${TWIN_A[4]}" "${TWIN_A[5]}" "${TWIN_A[6]}")
lvx_a() { LVM_SYSTEM_DIR="$SCRATCH/twin_a" "$LVX" "$@" --devices "$(IFS=,; echo "${LEFT_A[*]}")"; }

step "echo n | lvconvert --repair vg1/4way" n lvconvert --repair vg1/4way
test_eq "... 4way keeps images 0 and 2 and its log on D4, s4 its snapshot (LVM2 reading side A)" \
    "$(lvm_a lvs -a --noheadings -o lv_name,origin,devices vg1 2>/dev/null | sed "$(_twin_sed a)" |
       awk '$1 ~ /4way|s4/ { print $1 "=" $2 ($3 ? "=" $3 : "") }' | sort | paste -sd' ')" \
    "4way=4way_mimage_0(0),4way_mimage_2(0) [4way_mimage_0]=D0(0) [4way_mimage_2]=D2(0) [4way_mlog]=D4(0) s4=4way=D2(2)"
step "echo y | lvconvert --repair vg1/w3 (D5, D6 free)" y lvconvert --repair vg1/w3
test_eq "... no image added under the snapshot: lvx's lines" \
    "$(grep -c "Can't add additional mirror images to mirror vg1/w3 which is under snapshots." "$SCRATCH/a.out")|$(grep -c "WARNING: Failed to replace 1 of 3 images in volume vg1/w3." "$SCRATCH/a.out")" \
    "1|1"
step "vgreduce --removemissing vg1" "" vgreduce --removemissing vg1
done_testing
