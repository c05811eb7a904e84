#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1088-raid-takeover-inactive-order: lvconvert --type raid5/raid6 of an inactive
# striped LV (a thin pool's _tdata, a plain LV) and of an inactive linear LV: LVM2
# 2.03.16 checks that the LV is active before it replaces the type, so it prints only
# "... must be active to perform this operation." (lvx printed its two "Replaced LV
# type ..." lines first).  Compared with LVM2 on the same devices; nothing written.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"

need_loop
need_cmd lvm
need_lvx
plan_later
mapfile -t D < <(make_loops 4 64M)
[[ ${#D[@]} == 4 ]] || { _tap_result 1 "4 loop devices"; done_testing; }
lvm_sandbox "${D[@]}"
VG=vgrto$$
seqno() { lvm2 vgs --noheadings -o vg_seqno "$VG" 2>/dev/null | tr -d ' '; }

test_ok "pvcreate, vgcreate, a pool of 3 stripes, a striped LV of 2 and a linear LV" sh -c \
    "$LVX pvcreate -q ${D[*]} >/dev/null 2>&1 && $LVX vgcreate -q $VG ${D[*]} >/dev/null 2>&1 &&
     $LVX lvcreate -q -an -L12 -i3 -T $VG/pool >/dev/null 2>&1 &&
     $LVX lvcreate -q -an -L8 -i2 -n st $VG >/dev/null 2>&1 &&
     $LVX lvcreate -q -an -L8 -n lin $VG >/dev/null 2>&1"
s0=$(seqno)
for t in raid5 raid6 raid5_ls; do
    same_refusal "lvconvert --type $t -y VG/pool_tdata (inactive)" \
        lvconvert --type "$t" -y "$VG/pool_tdata"
    test_eq "... no 'Replaced LV type' line" "$(grep -c "Replaced LV type" "$SCRATCH/x.err")" 0
done
same_refusal "lvconvert --type raid5 -y VG/st (striped, inactive)" lvconvert --type raid5 -y "$VG/st"
test_eq "... no 'Replaced LV type' line" "$(grep -c "Replaced LV type" "$SCRATCH/x.err")" 0
same_refusal "lvconvert --type raid6 -y VG/st (striped, inactive)" lvconvert --type raid6 -y "$VG/st"
same_refusal "lvconvert --type raid5 -y VG/lin (linear, inactive)" lvconvert --type raid5 -y "$VG/lin"
test_eq "nothing written (seqno)" "$(seqno)" "$s0"
lvx vgremove -q -ff "$VG" >/dev/null 2>&1
done_testing
