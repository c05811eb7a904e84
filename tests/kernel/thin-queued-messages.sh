#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/thin-queued-messages.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0770-kernel-thin-queued-messages.sh) with 2 sparse 256M virtio disks, lvx
# at /t/lvx and the host's LVM2/dmsetup.  Prints TAP.  Twin VGs (LVM2 on vda, VG
# "lvmqm"; lvx on vdb, VG "lvxqm"), LVM2's lvextend-thin-adddel.sh with each tool:
#
#   - pool with thin lv1, lv2; the pool's _tmeta replaced by an error table
#     (dmsetup remove -f of the busy device); lvremove lv1: the delete message fails:
#     the same exit status as LVM2 (5) with "Failed to update pool VG/pool."; lv1 gone,
#     its delete queued in the metadata (message1 { delete = 1 }, transaction_id 3) as
#     LVM2's pool segment says it;
#   - vgchange -an, vgchange -ay (the kernel's transaction id one behind: accepted, as
#     LVM2), the message still queued;
#   - lvchange -an, lvextend -L+8M of the pool: exit 0, the message sent (gone from the
#     metadata), the pool segments equal; thin_dump of the _tmeta (component activation)
#     has no device 1, keeps device 2, transaction 3, as LVM2's.
# shellcheck disable=SC2086  # disk lists split on purpose
. /t/guest-tap.sh

LVM_VG=lvmqm
LVX_VG=lvxqm
seg() {  # seg TOOL VG: the pool's segment lines (no ids, times, comments)
    meta "$1" "$2" | sed -n '/^\t\tpool {/,/^\t\t}/p' | grep -v -e '#' | sed '/^\s*$/d'
}
dump() {  # dump TOOL VG: superblock transaction and device ids of the pool's _tmeta
    "$1" lvchange -q -y -ay "$2/pool_tmeta" >/dev/null 2>&1
    thin_dump "/dev/$2/pool_tmeta" 2>&1 |
        grep -o -e '<superblock .*transaction="[0-9]*"' -e '<device dev_id="[0-9]*"' |
        grep -o -e ' transaction="[0-9]*"' -e 'dev_id="[0-9]*"' | xargs
    "$1" lvchange -q -an "$2/pool_tmeta" >/dev/null 2>&1
}

check "LVM2 makes lvmqm on vda, lvx makes lvxqm on vdb" sh -c \
    "lvm pvcreate -q /dev/vda && lvm vgcreate -q lvmqm /dev/vda &&
     $LVX pvcreate -q /dev/vdb && $LVX vgcreate -q lvxqm /dev/vdb"
each "lvcreate -V10M -n lv1 -L10M -T VG/pool" lvcreate -q -V10M -n lv1 -L10M -T VG/pool
each "lvcreate -V10M -n lv2 VG/pool" lvcreate -q -V10M -n lv2 VG/pool
for vg in $LVM_VG $LVX_VG; do dmsetup remove -f "$vg-pool_tmeta" >/dev/null 2>&1; done
check_eq "dmsetup remove -f of both _tmeta: error tables" \
    "$(dmsetup table $LVX_VG-pool_tmeta | cut -d' ' -f3) $(dmsetup table $LVM_VG-pool_tmeta | cut -d' ' -f3)" \
    "error error"
ra=0; oa=$(lvm lvremove -y $LVM_VG/lv1 2>&1) || ra=$?
rb=0; ob=$($LVX lvremove -y $LVX_VG/lv1 2>&1) || rb=$?
check_eq "lvremove lv1 with the pool's metadata gone: lvx's exit status is LVM2's (5)" "$rb" "$ra"
check_eq "... both say 'Failed to update pool VG/pool.'" \
    "$(grep -c "Failed to update pool $LVX_VG/pool." <<<"$ob") $(grep -c "Failed to update pool $LVM_VG/pool." <<<"$oa")" "1 1"
note "LVM2: $oa"
note "lvx: $ob"
check_eq "... lv1 gone, message1 { delete = 1 } queued, transaction_id 3: lvx's pool segment is LVM2's" \
    "$(seg $LVX $LVX_VG)" "$(seg lvm $LVM_VG)"
check_match "... (LVM2's has it)" "$(seg lvm $LVM_VG)" "delete = 1"
each "vgchange -an VG" vgchange -q -an VG
check_eq "... no -tpool device left" "$(dmsetup ls | grep -c -e "$LVX_VG-pool-tpool" -e "$LVM_VG-pool-tpool")" "0"
each "vgchange -ay VG (the kernel's transaction_id one behind the queued message)" vgchange -q -ay VG
check_eq "... still queued (the pool segments equal)" "$(seg $LVX $LVX_VG)" "$(seg lvm $LVM_VG)"
check_match "... (lvx's has message1)" "$(seg $LVX $LVX_VG)" "message1 {"
each "lvchange -an VG" lvchange -q -an VG
each "lvextend -L+8M VG/pool (sends the queued message)" lvextend -q -L+8M VG/pool
check_eq "... the message gone from both, the pool segments equal" "$(seg $LVX $LVX_VG)" "$(seg lvm $LVM_VG)"
check_eq "... none in lvx's" "$(seg $LVX $LVX_VG | grep -c message)" "0"
each "lvchange -an VG" lvchange -q -an VG
check_eq "thin_dump of _tmeta: lvx's as LVM2's: device 2 only, transaction 3" \
    "$(dump $LVX $LVX_VG) | $(dump lvm $LVM_VG)" "transaction=3 dev_id=2 | transaction=3 dev_id=2"
each "lvremove -ff VG" lvremove -q -ff VG
each "vgremove -ff VG" vgremove -q -ff VG
guest_done
