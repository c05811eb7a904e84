#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1045-pvmove-atomic: lvx pvmove --atomic on loop devices, LVM2 2.03.16 as the oracle
# (activation off here: LVM2 writes the setup and stops, "Interrupted: No longer
# active").
#   1. the setup metadata on twin VGs (LVM2's, lvx's stopped after its setup commit):
#      the same backup text (ids, times aside): pvmove0 one mirror segment over
#      pvmove0_mimage_0/1, the LVs pointing at pvmove0, for a whole PV, a named
#      destination, -n LV, a PE range, --alloc anywhere and a destination in two pieces
#      (the LV above split as the images are); lvs -a side by side;
#   2. lvx finishes the atomic move LVM2 set up: the metadata of lvx's own atomic move
#      on a third twin, the data intact (known random contents, read through the segment
#      mapping), LVM2's vgck;
#   3. --abort right after the setup and in the middle of the copy: everything back
#      where it was (the metadata of the VG before the move, data intact); a crash in
#      the middle of the copy, resumed: finished, data intact;
#   4. -b: the move done in the background.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/side.sh"
source "$LVX_ROOT/tests/tools/pvmove-lib.sh"
pvmove_loops

has_pvmove() { lvm2 lvs -a --noheadings -o lv_name "$1" 2>/dev/null | grep -q pvmove; }

# ---------------------------------------------------------------- 1 + 2: twins
# twin NAME ARGS...: "pvmove --atomic ARGS" (devices as A/B/C): LVM2 on vl (D0-2), lvx
# stopped after its setup on vx (D3-5), lvx's full move on vf (D6-8)
twin() {
    local name=$1
    shift
    mkvg vl "${D[0]}" "${D[1]}" "${D[2]}"
    mkvg vx "${D[3]}" "${D[4]}" "${D[5]}"
    mkvg vf "${D[6]}" "${D[7]}" "${D[8]}"
    fill_all vl
    fill_all vx
    fill_all vf
    backup vx "$SCRATCH/x0.vg"
    # shellcheck disable=SC2046
    lvm2 pvmove --atomic $(sub "${D[0]}" "${D[1]}" "${D[2]}" "$@") >"$SCRATCH/l.pm" 2>&1
    grep -q "Interrupted: No longer active" "$SCRATCH/l.pm"
    _tap_result $? "$name: LVM2 sets the atomic move up and stops (no device-mapper)"
    # shellcheck disable=SC2046
    LVX_TEST_IO_LOG=$SCRATCH/io.log lvx pvmove --atomic -i 0 $(sub "${D[6]}" "${D[7]}" "${D[8]}" "$@") \
        >"$SCRATCH/f.pm" 2>&1
    test_eq "$name: lvx's full atomic move on a twin: exit 0" "0" "$?"
    local n
    n=$(setup_writes "$SCRATCH/io.log")
    rm -f "$SCRATCH/io.log"
    # shellcheck disable=SC2046
    LVX_TEST_CRASH_AFTER_WRITE=$n lvx pvmove --atomic $(sub "${D[3]}" "${D[4]}" "${D[5]}" "$@") \
        >/dev/null 2>&1
    test_eq "$name: lvx stopped after its setup commit ($n writes)" "99" "$?"
    backup vl "$SCRATCH/l.vg"
    backup vx "$SCRATCH/x.vg"
    test_eq "$name: lvx's atomic setup metadata is LVM2's" "$(norm "$SCRATCH/l.vg" vl)" \
        "$(norm "$SCRATCH/x.vg" vx)"
    side lvs -a -o lv_name,lv_attr,devices,seg_pe_ranges,move_pv,copy_percent vl
    sed -i 's/vl/vx/g; s/pvmove0_mimage/PM/g' "$SCRATCH/l.out"
    lvx lvs -a -o lv_name,lv_attr,devices,seg_pe_ranges,move_pv,copy_percent vx \
        >"$SCRATCH/x.out" 2>/dev/null
    sed -i 's/pvmove0_mimage/PM/g' "$SCRATCH/x.out"
    for i in 0 1 2; do
        sed -i "s|${D[$i]}|DEV$i|g" "$SCRATCH/l.out"
        sed -i "s|${D[$((i + 3))]}|DEV$i|g" "$SCRATCH/x.out"
    done
    # columns compared without their padding (the loop devices' names differ in length)
    test_eq "$name: lvs -a -o lv_attr,devices,seg_pe_ranges,move_pv,copy_percent: lvx = LVM2" \
        "$(tr -s ' ' <"$SCRATCH/l.out")" "$(tr -s ' ' <"$SCRATCH/x.out")"
    # 3: --abort of lvx's setup: everything back
    lvx pvmove --abort "${D[3]}" >"$SCRATCH/a.out" 2>&1
    test_eq "$name: lvx pvmove --abort PV right after the setup: exit 0" "0" "$?"
    backup vx "$SCRATCH/x2.vg"
    test_eq "$name: ... the VG as before the move" "$(norm "$SCRATCH/x0.vg" vx | grep -v seqno)" \
        "$(norm "$SCRATCH/x2.vg" vx | grep -v seqno)"
    test_eq "$name: ... data intact" "$(cat "$SCRATCH/vx.sums")" "$(sums_now vx)"
    # 2: lvx finishes LVM2's atomic move
    twin_end "$name" "LVM2's atomic move"
}
twin "whole PV" A
twin "to a named PV" A C
twin "-n two" -n two A
twin "PE range" A:2-4 C
twin "--alloc anywhere" --alloc anywhere A B
twin "destination split" --alloc anywhere A:2-4 B:5-5 C:5-6

# ---------------------------------------------------------------- 3: in the middle
VG=vk
K=("${D[0]}" "${D[1]}" "${D[2]}")
mkvg $VG "${K[@]}"
fill_all $VG
backup $VG "$SCRATCH/k0.vg"
LVX_TEST_IO_LOG=$SCRATCH/k.log lvx pvmove --atomic -i 0 "${K[0]}" >/dev/null 2>&1
test_eq "a full atomic move: exit 0" "0" "$?"
backup $VG "$SCRATCH/k1.vg"
mapfile -t DATAW < <(awk '$1 == "write" { n++; if ($3 >= 1048576 && $4 >= 65536) print n }' "$SCRATCH/k.log")
rm -f "$SCRATCH/k.log"
MID=${DATAW[$((${#DATAW[@]} / 2))]}
diag "data writes ${#DATAW[@]}, the middle one: write $MID"
ok=0
[[ ${#DATAW[@]} -ge 4 ]] || ok=1
_tap_result $ok "the copy has data writes (${#DATAW[@]})"
lvm2 vgcfgrestore -f "$SCRATCH/k0.vg" $VG >/dev/null 2>&1
LVX_TEST_CRASH_AFTER_WRITE=$MID lvx pvmove --atomic -i 0 "${K[0]}" >/dev/null 2>&1
test_eq "crash in the middle of the copy (write $MID): 99" "99" "$?"
has_pvmove $VG
_tap_result $? "... the move is still set up (no checkpoint: LVM2 reads pvmove0 and its images)"
test_eq "... extents_moved 0 (LVM2's backup)" "0" \
    "$(backup $VG "$SCRATCH/k2.vg"; grep -o 'extents_moved = [0-9]*' "$SCRATCH/k2.vg" | awk '{print $3}')"
lvx pvmove -i 0 >"$SCRATCH/r.out" 2>&1
test_eq "... lvx pvmove resumes and finishes: exit 0" "0" "$?"
backup $VG "$SCRATCH/k3.vg"
test_eq "... the final metadata of the uninterrupted move" "$(norm "$SCRATCH/k1.vg" $VG | grep -v seqno)" \
    "$(norm "$SCRATCH/k3.vg" $VG | grep -v seqno)"
test_eq "... data intact" "$(cat "$SCRATCH/$VG.sums")" "$(sums_now $VG)"
lvm2 vgcfgrestore -f "$SCRATCH/k0.vg" $VG >/dev/null 2>&1
LVX_TEST_CRASH_AFTER_WRITE=$MID lvx pvmove --atomic -i 0 "${K[0]}" >/dev/null 2>&1
test_eq "crash in the middle of the copy again: 99" "99" "$?"
lvx pvmove --abort "${K[0]}" >"$SCRATCH/a.out" 2>&1
test_eq "lvx pvmove --abort PV in the middle of the copy: exit 0" "0" "$?"
backup $VG "$SCRATCH/k4.vg"
test_eq "... everything back where it was (the VG before the move)" \
    "$(norm "$SCRATCH/k0.vg" $VG | grep -v seqno)" "$(norm "$SCRATCH/k4.vg" $VG | grep -v seqno)"
test_eq "... data intact" "$(cat "$SCRATCH/$VG.sums")" "$(sums_now $VG)"

# ---------------------------------------------------------------- 4: -b
lvx pvmove --atomic -b "${K[0]}" >"$SCRATCH/b.out" 2>&1
test_eq "pvmove --atomic -b: exit 0" "0" "$?"
for _ in $(seq 1 100); do has_pvmove $VG || break; sleep 0.2; done
has_pvmove $VG
test_eq "... the background copy finished" "1" "$?"
backup $VG "$SCRATCH/k5.vg"
test_eq "... the final metadata of the foreground move" "$(norm "$SCRATCH/k1.vg" $VG | grep -v seqno)" \
    "$(norm "$SCRATCH/k5.vg" $VG | grep -v seqno)"
test_eq "... data intact" "$(cat "$SCRATCH/$VG.sums")" "$(sums_now $VG)"
rmvg $VG "${K[@]}"

done_testing
