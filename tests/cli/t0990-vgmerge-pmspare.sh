#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0990-vgmerge-pmspare: vgmerge keeps the pool metadata spare as LVM2 2.03.16 does
# (LVM2's test vgmerge-operation): with --poolmetadataspare n nothing is made (LVM2's
# warning); by default the merged VG gets a spare as big as its largest pool metadata;
# of two spares the bigger one stays (the smaller goes before the LV name check, as
# both are lvol0_pmspare).  Twin VGs (tests/tools/lv_twin.sh): each side's two VGs
# with thin pools are made by lvx (LVM2 makes no thin pool without device-mapper),
# then lvx merges side A and LVM2 side B: exit codes, output and metadata compared
# (LVM2's two lines about not zeroing a new spare with activation off left out: with
# activation it zeroes it, and lvx does, checked on the PV).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/lv_twin.sh
. "$LVX_ROOT/tests/tools/lv_twin.sh"

twin_begin 4 64M vgtmp
# two VGs a side: vg1 on D0 D1, vg2 on D2 D3, a thin pool in each (SPARE: y|n)
pools() {
    local side=$1 spare=$2 d X
    if [[ $side == a ]]; then d=("${TWIN_A[@]}"); X=lvx_a; else d=("${TWIN_B[@]}"); X=lvx_b; fi
    $X vgremove -q -ff vgtmp vg1 vg2 >/dev/null 2>&1
    for x in "${d[@]}"; do     # old data in the data areas (labels and metadata kept)
        dd if=/dev/urandom of="$x" bs=1M seek=1 count=63 oflag=direct status=none
    done
    $X vgcreate -q vg1 "${d[0]}" "${d[1]}" >/dev/null 2>&1 &&
        $X vgcreate -q vg2 "${d[2]}" "${d[3]}" >/dev/null 2>&1 &&
        $X lvcreate -q -T -L8M vg1/pool1 --poolmetadatasize 8M --poolmetadataspare "$spare" >/dev/null 2>&1 &&
        $X lvcreate -q -T -L8M vg2/pool2 --poolmetadatasize 4M --poolmetadataspare "$spare" >/dev/null 2>&1
}
# merge_step DESC ARGS...: twin_step's two checks, LVM2's activation-off lines about
# a spare it could not zero left out of its output
merge_step() {
    local desc=$1 rca=0 rcb=0
    shift
    lvx_a "$@" >"$SCRATCH/ma.out" 2>&1 || rca=$?
    lvm_b "$@" >"$SCRATCH/mb.out" 2>&1 || rcb=$?
    grep -v -e 'Skipping zeroing and wipping, compiled without activation support' \
        -e 'Logical volume vg1/lvol0 not zeroed' "$SCRATCH/mb.out" >"$SCRATCH/mb2.out"
    test_eq "$desc: lvx's exit code and output equal LVM2's" \
        "$rca $(twin_out a "$SCRATCH/ma.out")" "$rcb $(twin_out b "$SCRATCH/mb2.out")"
    test_eq "$desc: metadata equal" "$(twin_meta a)" "$(twin_meta b)"
}
both_pools() { pools a "$1" && pools b "$1"; }
TWIN_VG=vg1
# spare_bytes: side A's lvol0_pmspare read from its PV (one segment), as LVM2 places it
spare_bytes() {
    local r dev a b pe es
    r=$(lvm_a lvs -a --noheadings -o seg_pe_ranges vg1/lvol0_pmspare 2>/dev/null | tr -d ' ')
    dev=${r%%:*}; a=${r#*:}; a=${a%-*}; b=${r##*-}
    pe=$(lvm_a pvs --noheadings --units s --nosuffix -o pe_start "$dev" 2>/dev/null | tr -d ' ')
    es=$(lvm_a vgs --noheadings --units s --nosuffix -o vg_extent_size vg1 2>/dev/null | tr -d ' ')
    dd if="$dev" bs=512 skip=$((pe + a * es)) count=$(((b - a + 1) * es)) iflag=direct status=none
}
spare_size() { lvm_a lvs --noheadings --units m -o lv_size vg1/lvol0_pmspare 2>/dev/null | tr -d ' '; }

test_ok "vg1, vg2 with pools, no spares (both sides)" both_pools n
merge_step "vgmerge --poolmetadataspare n vg1 vg2" vgmerge --poolmetadataspare n vg1 vg2
test_eq "... no lvol0_pmspare" "$(lvm_a lvs -a --noheadings -o lv_name vg1 2>/dev/null | grep -c pmspare)" 0

test_ok "again, no spares" both_pools n
merge_step "vgmerge vg1 vg2" vgmerge vg1 vg2
test_eq "... lvol0_pmspare made as big as the largest pool metadata" "$(spare_size)" "8.00m"
test_eq "... and zeroed (8 MiB read from its PV)" "$(spare_bytes | tr -d '\0' | wc -c) $(spare_bytes | wc -c)" "0 8388608"

test_ok "again, each VG with its spare (8m and 4m)" both_pools y
merge_step "vgmerge vg1 vg2 (two spares)" vgmerge vg1 vg2
test_eq "... the bigger spare stays" "$(spare_size)" "8.00m"
test_eq "... one spare" "$(lvm_a lvs -a --noheadings -o lv_name vg1 2>/dev/null | grep -c pmspare)" 1

test_ok "LVM2's vgck accepts lvx's merged VG" lvm_a vgck vg1
lvx_a vgremove -q -ff vg1 >/dev/null 2>&1
lvm_b vgremove -q -ff vg1 >/dev/null 2>&1
done_testing
