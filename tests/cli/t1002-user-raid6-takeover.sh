#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1002-user-raid6-takeover: lvconvert --type between the levels of RAID LVs with rmeta
# with the lvx daemon (user-space activation); five 64 MiB loop devices, LVM2
# (activation off) reading the layout:
#   - raid5_n (-i3, 12 MiB written) -> raid6: LVM2's lines (raid6 replaced by
#     raid6_n_6), LVM2 reads raid6_n_6 over 5 images, the new image on the fifth PV,
#     vgck passes, the data, --syncaction check finds no mismatch, the P image still
#     the XOR of each row; -> raid5: raid5_n again (LVM2's lines), 4 images, the data;
#   - raid4 (-i3) -> raid6_n_6: the parity image moved behind the data images
#     (f_rimage_3, the stripes renamed f_rimage_0..2 on their PVs), holding the XOR of
#     each row, Q added on the fifth PV, no mismatch, the data; -> raid4: the parity
#     image first again, the data, no mismatch;
#   - raid1 (2 images) -> raid5: LVM2's lines, stripe size 64 KiB, both images equal,
#     no mismatch, the data, new data after a deactivation; -> raid1: the data;
#   - raid5 (ls) -> raid6: raid6_ls_6 (LVM2's lines), no mismatch; -> raid5: raid5_ls;
#   - refusals (exit 5, the metadata unchanged): the question unanswered (LVM2's list of
#     types), raid5_n of 3 images -> raid6 (LVM2's first line: it adds a stripe first,
#     a reshape the daemon does not serve), raid1 of 3 images -> raid5, an inactive LV.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

VG=vgur6$$
uspace_test_loops "$VG" 5 64M
need_cmd "${PYTHON:=python3}"
source "$LVX_ROOT/tests/tools/raid-pvread.sh"
MIB=1048576
lines() { sed 's/^ *//; s/\[y\/n\]: .*$/[y\/n]:/' | grep -v 'NOT backed up' | tr '\n' '|'; }
convert() {       # convert LV TYPE SHOWN [LINES]: lvx lvconvert -y --type TYPE, LVM2's lines, vgck
    local out rc=0
    out=$(lvx lvconvert -y --type "$2" "$VG/$1" 2>&1 | grep -v WARNING; exit "${PIPESTATUS[0]}") || rc=$?
    test_eq "--type $2 of $1: exit 0, LVM2's lines" "$rc $(lines <<<"$out")" \
        "0 ${4:-}Logical volume $VG/$1 successfully converted.|"
    test_eq "... LVM2 reads a $3 LV" "$(lvm2 lvs --noheadings -o segtype "$VG/$1" 2>/dev/null | tr -d ' ')" "$3"
    test_ok "... LVM2's vgck passes" lvm2 vgck "$VG"
}
data_is() {       # data_is LV FILE DESC: LV reads FILE
    test_eq "$3" "$(lv_sum "$DM_DEV_DIR/$VG/$1" 0 "$(stat -c %s "$2")")" "$(fsum "$2")"
}
source "$LVX_ROOT/tests/tools/raid-takeover.sh"
write() {         # write LV FILE MIB: MIB MiB of random data written to LV
    head -c $(($3 * MIB)) /dev/urandom >"$SCRATCH/$2"
    uspace_run_ok "$3 MiB written to $1" dd if="$SCRATCH/$2" of="$DM_DEV_DIR/$VG/$1" bs=1M oflag=direct conv=fsync status=none
}
P0=${DEVS[0]} P1=${DEVS[1]} P2=${DEVS[2]} P3=${DEVS[3]}

uspace_run_ok "pvcreate, vgcreate" sh -c "$LVX pvcreate -q ${DEVS[*]} && $LVX vgcreate -q $VG ${DEVS[*]}"
uspace_run_ok "raid5_n a (-i3 -L 12m) on the first four PVs" \
    lvx lvcreate -q -y -Zn --type raid5_n -i3 -L 12m -n a "$VG" "$P0" "$P1" "$P2" "$P3"
uspace_run_ok "raid4 f (-i3 -L 12m) on the first four PVs" \
    lvx lvcreate -q -y -Zn --type raid4 -i3 -L 12m -n f "$VG" "$P0" "$P1" "$P2" "$P3"
uspace_run_ok "raid1 m (-m1 -L 8m) on the first two PVs" \
    lvx lvcreate -q -y -Zn --type raid1 -m1 -L 8m -n m "$VG" "$P0" "$P1"
uspace_run_ok "raid5 l (-i3 -L 12m) on the first four PVs" \
    lvx lvcreate -q -y -Zn --type raid5 -i3 -L 12m -n l "$VG" "$P0" "$P1" "$P2" "$P3"
for lv in a f m l; do test_ok "$lv in sync" wait_synced "$lv"; done
write a da 12
write f df 12
write m dm 8
write l dl 12

# ---- refusals first: the metadata unchanged
out=$(lvx lvconvert --type raid6 "$VG/a" 2>&1 </dev/null); rc=$?
test_eq "no -y, no answer: LVM2's lines, question and list (its guest run, t0749), exit 5" \
    "$rc $(lines <<<"$out")" \
    "5 Using default stripesize 64.00 KiB.|Replaced LV type raid6 (same as raid6_zr) with possible type raid6_n_6.|Repeat this command to convert to raid6 after an interim conversion has finished.|Are you sure you want to convert raid5_n LV $VG/a to raid6_n_6 type? [y/n]:|Logical volume $VG/a NOT converted.|Converting $VG/a from raid5_n is directly possible to the following layouts:|raid0|raid0_meta|striped|raid4|raid6_n_6|raid5_la|raid5_ls|raid5_ra|raid5_rs|"
out=$(lvx lvconvert --type raid5 "$VG/m" 2>&1 </dev/null); rc=$?
test_eq "raid1 -> raid5 unanswered: LVM2's lines and list, exit 5" \
    "$rc $(lines <<<"$out")" \
    "5 Using default stripesize 64.00 KiB.|--stripes not allowed for LV $VG/m when converting from raid1 to raid5.|Are you sure you want to convert raid1 LV $VG/m to raid5 type? [y/n]:|Logical volume $VG/m NOT converted.|Converting $VG/m from raid1 is directly possible to the following layouts:|mirror|raid4|raid5_n|raid5_la|raid5_ls|raid5_ra|raid5_rs|"
uspace_run_ok "raid5_n t (-i2 -L 8m) and raid1 r (-m2 -L 4m)" sh -c \
    "$LVX lvcreate -q -y -Zn --type raid5_n -i2 -L 8m -n t $VG && $LVX lvcreate -q -y -Zn --type raid1 -m2 -L 4m -n r $VG"
test_ok "t in sync" wait_synced t
test_ok "r in sync" wait_synced r
seqno=$(lvm2 vgs --noheadings -o vg_seqno "$VG" | tr -d ' ')
out=$(lvx lvconvert -y --type raid6 "$VG/t" 2>&1); rc=$?
test_eq "raid5_n of 3 images -> raid6: LVM2's first line (it adds a stripe first), lvx's refusal of a reshape in the daemon, exit 5" \
    "$rc $(lines <<<"$out")" \
    "5 Using default stripesize 64.00 KiB.|Converting raid5_n LV $VG/t to 4 stripes first.|lvx cannot reshape $VG/t in the user-space backend: its daemon does not make the interim reshape of a takeover yet (activate it with the dm backend).|"
out=$(lvx lvconvert -y --type raid5 "$VG/r" 2>&1); rc=$?
test_eq "raid1 of 3 images -> raid5: LVM2's lines, exit 5" "$rc $(lines <<<"$out")" \
    "5 Using default stripesize 64.00 KiB.|Convert raid1 LV $VG/r to 2 images first.|Converting $VG/r from raid1 is directly possible to the following layout:|mirror|"
uspace_run_ok "deactivate t" lvx lvchange -an "$VG/t"
seqno=$(lvm2 vgs --noheadings -o vg_seqno "$VG" | tr -d ' ')
out=$(lvx lvconvert -y --type raid1 "$VG/t" 2>&1); rc=$?
test_eq "inactive: LVM2's line, exit 5" "$rc $(tail -n1 <<<"$out" | sed 's/^ *//')" \
    "5 $VG/t must be active to perform this operation."
test_eq "the metadata unchanged by the refusals (LVM2 reads seqno $seqno)" \
    "$(lvm2 vgs --noheadings -o vg_seqno "$VG" | tr -d ' ')" "$seqno"

# ---- raid5_n -> raid6 -> raid5
convert a raid6 raid6_n_6 "Using default stripesize 64.00 KiB.|Replaced LV type raid6 (same as raid6_zr) with possible type raid6_n_6.|Repeat this command to convert to raid6 after an interim conversion has finished.|"
test_eq "... 5 images, the new one on the fifth PV" \
    "$(lvm2 lvs --noheadings -o stripes "$VG/a" | tr -d ' ') $(lvm2 lvs -a --noheadings -o devices "$VG/a_rimage_4" | tr -d ' ' | cut -d'(' -f1)" \
    "5 ${DEVS[4]}"
data_is a "$SCRATCH/da" "... the data"
nomismatch a
xor_rows "$SCRATCH/da" 3 65536 "$SCRATCH/pa"
report a_rimage_3
test_eq "... a_rimage_3 (P) holds the XOR of each row's three 64 KiB chunks" \
    "$(pv_sum a_rimage_3 0 $((4 * MIB)))" "$(fsum "$SCRATCH/pa")"
convert a raid5 raid5_n "Using default stripesize 64.00 KiB.|Replaced LV type raid5 (same as raid5_ls) with possible type raid5_n.|Repeat this command to convert to raid5 after an interim conversion has finished.|"
test_eq "... 4 images" "$(lvm2 lvs --noheadings -o stripes "$VG/a" | tr -d ' ')" 4
data_is a "$SCRATCH/da" "... the data"
nomismatch a

# ---- raid4 -> raid6_n_6 -> raid4
test_eq "raid4 f: the parity image f_rimage_0 first" "$(imgs f)" \
    "f_rimage_0 $P0|f_rimage_1 $P1|f_rimage_2 $P2|f_rimage_3 $P3|"
convert f raid6_n_6 raid6_n_6 "Using default stripesize 64.00 KiB.|"
test_eq "... the parity image behind the stripes (f_rimage_3), Q on the fifth PV" "$(imgs f)" \
    "f_rimage_0 $P1|f_rimage_1 $P2|f_rimage_2 $P3|f_rimage_3 $P0|f_rimage_4 ${DEVS[4]}|"
xor_rows "$SCRATCH/df" 3 65536 "$SCRATCH/pf"
report f_rimage_3
test_eq "... f_rimage_3 holds the XOR of each row" "$(pv_sum f_rimage_3 0 $((4 * MIB)))" "$(fsum "$SCRATCH/pf")"
data_is f "$SCRATCH/df" "... the data"
nomismatch f
convert f raid4 raid4 "Using default stripesize 64.00 KiB.|"
test_eq "... the parity image first again" "$(imgs f)" \
    "f_rimage_0 $P0|f_rimage_1 $P1|f_rimage_2 $P2|f_rimage_3 $P3|"
report f_rimage_0
test_eq "... f_rimage_0 holds the XOR of each row" "$(pv_sum f_rimage_0 0 $((4 * MIB)))" "$(fsum "$SCRATCH/pf")"
data_is f "$SCRATCH/df" "... the data"
nomismatch f

# ---- raid1 -> raid5 -> raid1
convert m raid5 raid5 "Using default stripesize 64.00 KiB.|--stripes not allowed for LV $VG/m when converting from raid1 to raid5.|"
test_eq "... stripe size 64 KiB, 2 images" "$(lvm2 lvs --noheadings -o stripe_size,stripes "$VG/m" | tr -s ' ')" " 64.00k 2"
data_is m "$SCRATCH/dm" "... the data"
nomismatch m
report m_rimage_0
a0=$(pv_sum m_rimage_0 0 $((8 * MIB)))
report m_rimage_1
test_eq "... both images hold the same bytes (md's raid5 of 2 devices)" "$(pv_sum m_rimage_1 0 $((8 * MIB)))" "$a0"
write m dm2 8
uspace_run_ok "deactivated and activated again" sh -c "$LVX lvchange -an $VG/m && $LVX lvchange -ay $VG/m"
data_is m "$SCRATCH/dm2" "... the new data"
convert m raid1 raid1
data_is m "$SCRATCH/dm2" "... the data"

# ---- raid5 (ls) -> raid6_ls_6 -> raid5_ls
convert l raid6 raid6_ls_6 "Using default stripesize 64.00 KiB.|Replaced LV type raid6 (same as raid6_zr) with possible type raid6_ls_6.|Repeat this command to convert to raid6 after an interim conversion has finished.|"
data_is l "$SCRATCH/dl" "... the data"
nomismatch l
convert l raid5 raid5_ls "Using default stripesize 64.00 KiB.|Replaced LV type raid5 (same as raid5_ls) with possible type raid5_ls.|Repeat this command to convert to raid5 after an interim conversion has finished.|"
data_is l "$SCRATCH/dl" "... the data"
uspace_run_ok "deactivate the VG" lvx vgchange -an "$VG"
done_testing
