#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/thin-merge-sysinit.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0771-kernel-thin-merge-sysinit.sh) with 2 virtio disks, lvx at /t/lvx and
# the host's LVM2/dmsetup/thin-provisioning-tools.  LVM2's thin-vglock scenario with
# lvx's dm backend: a thin merge that waits (the origin open at lvconvert --merge) is
# done by an activation without polling (--sysinit) in the kernel alone, finished in
# the metadata by the next vgchange --refresh; then a refresh of the open origin keeps
# it unmerged and one after it is let go merges and finishes.
#
# Checks: the origin's thin table line (own thin device, then the snapshot's), lvs of
# lvx equal to LVM2's lvs in the merged-in-kernel state (lv1's LV fields with the
# snapshot's segment fields), transaction_id 3 until the refresh, 4 after it, the data,
# LVM2 activating the result (and thin_check of the pool by LVM2's activation).
. /t/guest-tap.sh

VG=tms
sum() { dd if="$1" bs=1M iflag=direct status=none | sha256sum | cut -d' ' -f1; }
f() { $LVX lvs --noheadings -a -o "$2" "$VG/$1" 2>/dev/null | trim; }
tid() { f pool transaction_id; }
dev_id() { dmsetup table "$VG-lv1" | awk '$3 == "thin" { print $5 }'; }
nrows() { $LVX lvs --noheadings -a -o lv_name "$VG" 2>/dev/null | trim | grep -cx "$1"; }
dd if=/dev/urandom of=/tmp/A bs=1M count=4 2>/dev/null
dd if=/dev/urandom of=/tmp/S bs=1M count=4 2>/dev/null
dd if=/dev/urandom of=/tmp/T bs=1M count=4 2>/dev/null

check "lvx: $VG on vda vdb, pool with lv1 (4 MiB, A written) and one more thin LV (-an)" sh -c \
    "$LVX pvcreate -q /dev/vda /dev/vdb && $LVX vgcreate -q $VG /dev/vda /dev/vdb &&
     $LVX lvcreate -q -T -L16M -V4M -n lv1 $VG/pool && $LVX lvcreate -q -an -V4M -T $VG/pool &&
     dd if=/tmp/A of=/dev/$VG/lv1 bs=1M oflag=direct 2>/dev/null"
exec 3</dev/$VG/lv1             # lv1 open, as mounted
check "lvx: snapshot snap of lv1 (thin_id 3), S written to it" sh -c \
    "$LVX lvcreate -q -s -n snap $VG/lv1 && $LVX lvchange -q -K -ay $VG/snap &&
     dd if=/tmp/S of=/dev/$VG/snap bs=1M oflag=direct 2>/dev/null && $LVX lvchange -q -an $VG/snap"
check_eq "snap's thin_id" "$(f snap thin_id)" 3
out=$($LVX lvconvert --merge $VG/snap 2>&1); rc=$?
check_eq "lvconvert --merge with lv1 open: exit 0, the merge waits" \
    "$rc $(grep -c "Merging of thin snapshot $VG/snap will occur on next activation of $VG/lv1." <<<"$out")" "0 1"
exec 3<&-
check_eq "lv1 let go: thin_id 1, transaction_id 3, lv1's table maps device 1" \
    "$(f lv1 thin_id) $(tid) $(dev_id)" "1 3 1"
check "lvx: vgchange -an" $LVX vgchange -q -an $VG
out=$($LVX vgchange -ay --sysinit $VG 2>&1); rc=$?
check_eq "vgchange -ay --sysinit: exit 0, no merge finished, lv1's table maps snap's device 3" \
    "$rc $(grep -c "has finished" <<<"$out") $(dev_id)" "0 0 3"
note "$out"
check_eq "lvs: lv1 with snap's segment fields (thin_id 3, its transaction_id 2), pool's transaction_id 3" \
    "$(f lv1 lv_name) $(f lv1 thin_id) $(f lv1 transaction_id) $(tid) $(nrows '\[snap\]') $(nrows lv1)" "lv1 3 2 3 1 1"
ol=$(lvm lvs -a -o lv_name,lv_attr,thin_id,transaction_id,lv_active $VG 2>&1)
ox=$($LVX lvs -a -o lv_name,lv_attr,thin_id,transaction_id,lv_active $VG 2>&1)
check_eq "lvs -a -o lv_name,lv_attr,thin_id,transaction_id,lv_active: lvx's equals LVM2's" "$ox" "$ol"
ol=$(lvm lvs -o lv_name,thin_id $VG/lv1 2>&1)
ox=$($LVX lvs -o lv_name,thin_id $VG/lv1 2>&1)
check_eq "lvs -o lv_name,thin_id VG/lv1: lvx's equals LVM2's" "$ox" "$ol"
check_eq "lv1 reads S" "$(sum /dev/$VG/lv1)" "$(sum /tmp/S)"
out=$($LVX vgchange --refresh $VG 2>&1); rc=$?
check_eq "vgchange --refresh: exit 0, 'Merge ... has finished.', thin_id 3, transaction_id 4, snap gone" \
    "$rc $(grep -c "Merge of snapshot into logical volume $VG/lv1 has finished." <<<"$out") $(f lv1 lv_name) $(f lv1 thin_id) $(tid) $(nrows '\[snap\]')" \
    "0 1 lv1 3 4 0"
note "$out"

# a refresh of the open origin keeps the merge waiting; once it is let go, one merges
check "lvx: snapshot snap2 of lv1 (thin_id 4), T written to it" sh -c \
    "$LVX lvcreate -q -s -n snap2 $VG/lv1 && $LVX lvchange -q -K -ay $VG/snap2 &&
     dd if=/tmp/T of=/dev/$VG/snap2 bs=1M oflag=direct 2>/dev/null && $LVX lvchange -q -an $VG/snap2"
exec 3</dev/$VG/lv1
check "lvx: lvconvert --merge snap2 with lv1 open (waits)" $LVX lvconvert -q --merge $VG/snap2
out=$($LVX lvchange --refresh $VG/lv1 2>&1); rc=$?
check_eq "lvchange --refresh of the open lv1: exit 0, its table still maps device 3, thin_id 3, transaction_id 5" \
    "$rc $(dev_id) $(f lv1 thin_id) $(tid)" "0 3 3 5"
exec 3<&-
out=$($LVX lvchange --refresh $VG/lv1 2>&1); rc=$?
check_eq "lv1 let go: lvchange --refresh merges and finishes: device 4, thin_id 4, transaction_id 6, snap2 gone" \
    "$rc $(grep -c "Merge of snapshot into logical volume $VG/lv1 has finished." <<<"$out") $(dev_id) $(f lv1 thin_id) $(tid) $(nrows '\[snap2\]')" \
    "0 1 4 4 6 0"
note "$out"
check_eq "lv1 reads T" "$(sum /dev/$VG/lv1)" "$(sum /tmp/T)"
check "lvx: vgchange -an" $LVX vgchange -q -an $VG
check "LVM2 activates the VG (its thin_check of the pool)" lvm vgchange -ay $VG
check_eq "LVM2: lv1 thin_id 4, transaction_id 6, lv1 reads T" \
    "$(lvm lvs --noheadings -o thin_id $VG/lv1 | trim) $(lvm lvs --noheadings -o transaction_id $VG/pool | trim) $(sum /dev/$VG/lv1)" \
    "4 6 $(sum /tmp/T)"
check "LVM2 removes the VG" lvm vgremove -ff $VG
guest_done
