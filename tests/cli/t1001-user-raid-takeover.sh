#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1001-user-raid-takeover: lvconvert --type raid4|raid5_n|raid6_n_6|raid10 of striped and
# raid0 LVs and back to raid0|striped with the lvx daemon (user-space activation);
# five 64 MiB loop devices, LVM2 (activation off) reading the layout:
#   - a striped LV (-i3) written with 12 MiB becomes raid5_n: LVM2's line, LVM2 reads
#     raid5_n over 4 images, vgck passes; the new image (on the fourth PV) holds the
#     XOR of the three data chunks of each row (the daemon computed the parity);
#     --syncaction check counts no mismatch; the data reads back, new data too after a
#     deactivation; raid5_n -> raid0 -> raid6_n_6 (P and Q images; check: 0
#     mismatches) -> striped: the data each time;
#   - a raid0 LV (-i2) -> raid10: its images in LVM2's "near" order, each mirror
#     holding its stripe's bytes; raid10 -> raid0: the data; -> raid4: the parity
#     image first (r_rimage_0, the stripes renamed after it) holding the XOR of each
#     row, no mismatch; raid4 -> raid0: the data, the names back; -R 1m --type
#     raid10: LVM2 reads that region size;
#   - refusals as LVM2 2.03.16's (lines and exit 5, nothing written): the question
#     unanswered (no -y: the list of types), the inactive LV, raid10 of 3 stripes (6
#     images on 5 PVs); raid6 of 2 stripes made raid5_n with LVM2's warnings.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

VG=vgurt$$
uspace_test_loops "$VG" 5 64M
need_cmd "${PYTHON:=python3}"
source "$LVX_ROOT/tests/tools/raid-pvread.sh"
MIB=1048576
S=$DM_DEV_DIR/$VG/s
convert() {       # convert LV TYPE [SHOWN]: lvx lvconvert -y --type TYPE, LVM2's line, vgck
    local out rc=0
    out=$(lvx lvconvert -y --type "$2" "$VG/$1" 2>&1 | grep -v WARNING; exit "${PIPESTATUS[0]}") || rc=$?
    test_eq "--type $2 of $1: exit 0, LVM2's line" "$rc $(tail -n1 <<<"$out" | sed 's/^ *//')" \
        "0 Logical volume $VG/$1 successfully converted."
    test_eq "... LVM2 reads a ${3:-$2} LV" "$(lvm2 lvs --noheadings -o segtype "$VG/$1" 2>/dev/null | tr -d ' ')" "${3:-$2}"
    test_ok "... LVM2's vgck passes" lvm2 vgck "$VG"
}
data_is() {       # data_is DEV FILE DESC: DEV reads FILE
    test_eq "$3" "$(lv_sum "$1" 0 "$(stat -c %s "$2")")" "$(fsum "$2")"
}
source "$LVX_ROOT/tests/tools/raid-takeover.sh"

uspace_run_ok "pvcreate, vgcreate" sh -c "$LVX pvcreate -q ${DEVS[*]} && $LVX vgcreate -q $VG ${DEVS[*]}"
uspace_run_ok "striped s (-i3 -L 12m on the first three PVs), active" \
    lvx lvcreate -q -Zn -i3 -L 12m -n s "$VG" "${DEVS[0]}" "${DEVS[1]}" "${DEVS[2]}"
head -c $((12 * MIB)) /dev/urandom >"$SCRATCH/d1"
uspace_run_ok "12 MiB written" dd if="$SCRATCH/d1" of="$S" bs=1M oflag=direct conv=fsync status=none

# ---- refusals first: nothing written
vgsum=$(sha_devs "${DEVS[@]}")
out=$(lvx lvconvert --type raid5_n "$VG/s" 2>&1 </dev/null); rc=$?
test_eq "no -y, no answer: LVM2's question, lines and list, exit 5" \
    "$rc $(sed 's/^ *//; s/\[y\/n\]: .*$/[y\/n]:/' <<<"$out" | tr '\n' '|')" \
    "5 Using default stripesize 64.00 KiB.|Are you sure you want to convert striped LV $VG/s to raid5_n type? [y/n]:|Logical volume $VG/s NOT converted.|Converting $VG/s from striped is directly possible to the following layouts:|raid0|raid0_meta|raid10_near|raid4|raid5_n|raid6_n_6|"
uspace_run_ok "striped e (-i2 -L 8m), inactive" lvx lvcreate -q -Zn -an -i2 -L 8m -n e "$VG"
vgsum=$(sha_devs "${DEVS[@]}")
out=$(lvx lvconvert -y --type raid6_n_6 "$VG/e" 2>&1); rc=$?
test_eq "inactive: LVM2's line, exit 5" "$rc $(tail -n1 <<<"$out" | sed 's/^ *//')" \
    "5 $VG/e must be active to perform this operation."
test_eq "nothing written by the refusals" "$(sha_devs "${DEVS[@]}")" "$vgsum"
uspace_run_ok "activate e" lvx lvchange -ay "$VG/e"
out=$(lvx lvconvert -y --type raid6 "$VG/e" 2>&1); rc=$?
test_eq "raid6 of 2 stripes: replaced by raid5_n with LVM2's lines (its guest run, t0744), exit 0" \
    "$rc $(grep -v 'NOT backed up' <<<"$out" | sed 's/^ *//' | tr '\n' '|')" \
    "0 Using default stripesize 64.00 KiB.|Replaced LV type raid6 (same as raid6_zr) with possible type raid5_n.|Repeat this command to convert to raid6 after an interim conversion has finished.|Logical volume $VG/e successfully converted.|"
test_eq "... LVM2 reads a raid5_n LV of 3 images" "$(lvm2 lvs --noheadings -o segtype,stripes "$VG/e" | tr -s ' ')" " raid5_n 3"

# ---- striped -> raid5_n: the parity computed
convert s raid5_n
test_eq "... 4 images, the new one on the fourth PV" \
    "$(lvm2 lvs --noheadings -o stripes "$VG/s" | tr -d ' ') $(lvm2 lvs -a --noheadings -o devices "$VG/s_rimage_3" | tr -d ' ' | cut -d'(' -f1)" \
    "4 ${DEVS[3]}"
data_is "$S" "$SCRATCH/d1" "... served at once: the data"
xor_rows "$SCRATCH/d1" 3 65536 "$SCRATCH/p1"
report s_rimage_3
test_eq "... s_rimage_3 holds the XOR of each row's three 64 KiB chunks (on its PV)" \
    "$(pv_sum s_rimage_3 0 $((4 * MIB)))" "$(fsum "$SCRATCH/p1")"
nomismatch s
head -c $((12 * MIB)) /dev/urandom >"$SCRATCH/d2"
uspace_run_ok "12 new MiB written through raid5_n s" dd if="$SCRATCH/d2" of="$S" bs=1M oflag=direct conv=fsync status=none
uspace_run_ok "deactivated and activated again" sh -c "$LVX lvchange -an $VG/s && $LVX lvchange -ay $VG/s"
data_is "$S" "$SCRATCH/d2" "... the new data"
convert s raid0
data_is "$S" "$SCRATCH/d2" "... the data"
test_eq "... no image on the fourth PV left" "$(lvm2 lvs -a --noheadings -o lv_name "$VG" | grep -c 's_r.*_3')" 0

# ---- raid0 -> raid6_n_6 -> striped
convert s raid6_n_6
test_eq "... 5 images" "$(lvm2 lvs --noheadings -o stripes "$VG/s" | tr -d ' ')" 5
data_is "$S" "$SCRATCH/d2" "... the data"
nomismatch s
convert s striped
data_is "$S" "$SCRATCH/d2" "... the data"

# ---- raid0 -> raid10 -> raid0
uspace_run_ok "raid0 r (-i2 -L 8m) on the first two PVs, written" sh -c \
    "$LVX lvcreate -q -Zn --type raid0 -i2 -L 8m -n r $VG ${DEVS[0]} ${DEVS[1]} &&
     head -c $((8 * MIB)) /dev/urandom >$SCRATCH/d3 &&
     dd if=$SCRATCH/d3 of=$DM_DEV_DIR/$VG/r bs=1M oflag=direct conv=fsync status=none"
convert r raid10
test_eq "... near order: r_rimage_0, its mirror r_rimage_2, r_rimage_1, its mirror r_rimage_3" \
    "$(lvm2 lvs --noheadings -o devices "$VG/r" | tr -d ' ')" "r_rimage_0(0),r_rimage_2(0),r_rimage_1(0),r_rimage_3(0)"
for i in 0 1; do
    report "r_rimage_$i"; a=$(pv_sum "r_rimage_$i" 0 $((4 * MIB)))
    report "r_rimage_$((i + 2))"
    test_eq "... r_rimage_$((i + 2)) holds what r_rimage_$i holds" "$(pv_sum "r_rimage_$((i + 2))" 0 $((4 * MIB)))" "$a"
done
data_is "$DM_DEV_DIR/$VG/r" "$SCRATCH/d3" "... the data"
nomismatch r
convert r raid0
data_is "$DM_DEV_DIR/$VG/r" "$SCRATCH/d3" "... the data"

# ---- raid0 -> raid4 (the parity image first) -> raid0
convert r raid4
test_eq "... the new (parity) image r_rimage_0 first, the stripes renamed r_rimage_1, r_rimage_2" \
    "$(imgs r)" \
    "r_rimage_0 ${DEVS[2]}|r_rimage_1 ${DEVS[0]}|r_rimage_2 ${DEVS[1]}|"
xor_rows "$SCRATCH/d3" 2 65536 "$SCRATCH/p3"
report r_rimage_0
test_eq "... r_rimage_0 holds the XOR of each row's two 64 KiB chunks (on its PV)" \
    "$(pv_sum r_rimage_0 0 $((4 * MIB)))" "$(fsum "$SCRATCH/p3")"
data_is "$DM_DEV_DIR/$VG/r" "$SCRATCH/d3" "... the data"
nomismatch r
convert r raid0
data_is "$DM_DEV_DIR/$VG/r" "$SCRATCH/d3" "... the data"
test_eq "... r_rimage_0 and r_rimage_1 on the first two PVs again" \
    "$(imgs r)" \
    "r_rimage_0 ${DEVS[0]}|r_rimage_1 ${DEVS[1]}|"
out=$(lvx lvconvert -y -R 1m --type raid10 "$VG/r" 2>&1); rc=$?
test_eq "-R 1m --type raid10 of r: exit 0, LVM2's line, LVM2 reads the region size" \
    "$rc $(grep -v 'NOT backed up' <<<"$out" | tail -n1 | sed 's/^ *//') $(lvm2 lvs --noheadings -o segtype,region_size "$VG/r" | tr -s ' ')" \
    "0 Logical volume $VG/r successfully converted.  raid10 1.00m"
data_is "$DM_DEV_DIR/$VG/r" "$SCRATCH/d3" "... the data"
vgsum=$(sha_devs "${DEVS[@]}")
out=$(lvx lvconvert -y --type raid10 "$VG/s" 2>&1); rc=$?
test_eq "raid10 of 3 stripes (3 new images, 2 PVs free of s's): LVM2's lines (its guest run, t0744), exit 5" \
    "$rc $(sed 's/^ *//' <<<"$out" | tr '\n' '|')" \
    "5 Using default stripesize 64.00 KiB.|Insufficient suitable allocatable extents for logical volume : 6 more required|"
test_eq "... nothing written" "$(sha_devs "${DEVS[@]}")" "$vgsum"
test_ok "... s still striped over 3 PVs" test "$(lvm2 lvs --noheadings -o segtype,stripes "$VG/s" | tr -s ' ')" = " striped 3"
data_is "$S" "$SCRATCH/d2" "... s's data"
uspace_run_ok "deactivate the VG" lvx vgchange -an "$VG"
done_testing
