#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1060-raid-removemissing: `vgreduce --removemissing [--force]` of a VG whose RAID LVs
# lost a PV (LVM2's lvconvert-repair-raid.sh:98, inactive here).  Twin VGs
# (tests/tools/lv_twin.sh): lvx makes the same raid5 and raid1 LVs on both sides, D2 goes
# missing on both, then lvx reduces side A and LVM2 side B: the same exit code, output,
# metadata and seqno.  Without --force the partial LVs are named and the VG written with
# the PV MISSING (exit 5); with --force, as LVM2's lv_raid_remove_missing, the images on
# the missing PV become error segments (rimage and rmeta), the LVs stay, and the missing
# PV leaves the VG.  lvx before this change refused it ("Cannot remove the missing images
# of raid5 LV r5: lvx does not repair RAID LVs this way yet.").
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/lv_twin.sh
. "$LVX_ROOT/tests/tools/lv_twin.sh"

twin_begin 4 64M vg1
C=(--config "global/activation=1")
for side in a b; do
    mapfile -d '' p5 < <(twin_args "$side" %0 %1 %2)
    mapfile -d '' p1 < <(twin_args "$side" %0 %2)
    {
        "lvx_$side" lvcreate "${C[@]}" -an --type raid5 -i2 -L 16m -n r5 vg1 "${p5[@]}" &&
            "lvx_$side" lvcreate "${C[@]}" -an --type raid1 -m1 -L 8m -n r1 vg1 "${p1[@]}" &&
            "lvx_$side" lvcreate "${C[@]}" -an -L 4m -n lin vg1 "${p1[1]}"
    } >/dev/null 2>&1
done
test_eq "the same raid5, raid1 and linear LVs made on both sides" "$(twin_meta a)" "$(twin_meta b)"

# D2 goes missing on both sides
for side in a b; do
    if [[ $side == a ]]; then set -- "${TWIN_A[@]}"; else set -- "${TWIN_B[@]}"; fi
    sed -i -e "s#\"a|^$3\\\$|\", ##" "$SCRATCH/twin_$side/lvm.conf"
done
LEFT_A=("${TWIN_A[0]}" "${TWIN_A[1]}" "${TWIN_A[3]}")
lvx_a() { LVM_SYSTEM_DIR="$SCRATCH/twin_a" "$LVX" "$@" --devices "$(IFS=,; echo "${LEFT_A[*]}")"; }

out() {  # out SIDE FILE: without the sandbox's noise and LVM2's missing-device lines
    sandbox_noise <"$2" | grep -v -e "Couldn't find device with uuid" -e "is missing PV" |
        sed "$(_twin_sed "$1")"
}
seq_of() { "lvm_$1" vgs --noheadings -o vg_seqno vg1 2>/dev/null | tr -d ' '; }
step() {  # step DESC ARGS...: lvx on A, LVM2 on B
    local desc=$1
    shift
    rca=0 rcb=0
    lvx_a "$@" >"$SCRATCH/a.out" 2>&1 </dev/null || rca=$?
    lvm_b "$@" >"$SCRATCH/b.out" 2>&1 </dev/null || rcb=$?
    diag "LVM2: $(out b "$SCRATCH/b.out")"
    test_eq "$desc: lvx's exit code and output equal LVM2's" \
        "$rca $(out a "$SCRATCH/a.out")" "$rcb $(out b "$SCRATCH/b.out")"
    test_eq "... metadata equal" "$(twin_meta a)" "$(twin_meta b)"
    test_eq "... seqno equal" "$(seq_of a)" "$(seq_of b)"
}

step "vgreduce --removemissing vg1 (partial LVs left: refused)" vgreduce --removemissing vg1
test_eq "... exit 5" "$rca" 5
step "vgreduce --removemissing --force vg1" vgreduce --removemissing --force vg1
test_eq "... exit 0" "$rca" 0
test_eq "... the images on D2 are error segments, the others stay, the linear LV on D2 is gone (LVM2 reading side A)" \
    "$(lvm_a lvs -a --noheadings -o lv_name,segtype,devices vg1 2>/dev/null | sed "$(_twin_sed a)" |
       awk '{ print $1 "=" $2 ($3 ? "=" $3 : "") }' | sort | paste -sd' ')" \
    "[r1_rimage_0]=linear=D0(4) [r1_rimage_1]=error [r1_rmeta_0]=linear=D0(3) [r1_rmeta_1]=error [r5_rimage_0]=linear=D0(1) [r5_rimage_1]=linear=D1(1) [r5_rimage_2]=error [r5_rmeta_0]=linear=D0(0) [r5_rmeta_1]=linear=D1(0) [r5_rmeta_2]=error r1=raid1=r1_rimage_0(0),r1_rimage_1(0) r5=raid5=r5_rimage_0(0),r5_rimage_1(0),r5_rimage_2(0)"
test_eq "... D2 left the VG (3 PVs)" "$(lvm_a vgs --noheadings -o pv_count vg1 2>/dev/null | tr -d ' ')" 3
step "vgreduce --removemissing vg1 again: consistent" vgreduce --removemissing vg1
done_testing
