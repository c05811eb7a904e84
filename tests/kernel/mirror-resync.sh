#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/mirror-resync.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0783-kernel-mirror-resync.sh) with 6 virtio disks, lvx at /t/lvx and the
# host's LVM2/dmsetup.  Prints TAP.  lvchange --resync of an ACTIVE disk-log mirror in
# the kernel (dm backend), both tools:
#
#   vda-vdc  VG "lvm-rs": made, written and resynced by LVM2
#   vdd-vdf  VG "lvx-rs": the same command lines through lvx
#
# Image 1 is overwritten through its own dm device behind the log's back (the log still
# says in sync), then `lvchange -y --resync`: exit status and output as LVM2's, the
# metadata and dm tables after it as LVM2's, both back in sync, image 1 of each holding
# image 0's data again (only a wiped log makes the kernel copy every region).
# shellcheck disable=SC2086
. /t/guest-tap.sh

LVM_VG=lvm-rs
LVX_VG=lvx-rs
pv_map a:d b:e c:f
sync_both() { wait_sync lvm $LVM_VG/m && wait_sync lvm $LVX_VG/m; }
img_sum() { dd if="/dev/mapper/$1" bs=1M count=8 iflag=direct status=none | sha256sum | cut -d' ' -f1; }

dd if=/dev/urandom of=/tmp/A bs=1M count=8 2>/dev/null
dd if=/dev/urandom of=/tmp/B bs=1M count=8 2>/dev/null
A=$(sha256sum </tmp/A | cut -d' ' -f1)

check "LVM2 makes lvm-rs, lvx makes lvx-rs, a disk-log mirror in each" sh -c \
    "lvm pvcreate -q /dev/vda /dev/vdb /dev/vdc && lvm vgcreate -q $LVM_VG /dev/vda /dev/vdb /dev/vdc &&
     $LVX pvcreate -q /dev/vdd /dev/vde /dev/vdf && $LVX vgcreate -q $LVX_VG /dev/vdd /dev/vde /dev/vdf &&
     lvm lvcreate -q --type mirror -m1 -L 8m -n m $LVM_VG /dev/vda /dev/vdb /dev/vdc &&
     $LVX lvcreate -q --type mirror -m1 -L 8m -n m $LVX_VG /dev/vdd /dev/vde /dev/vdf"
write_both() {
    local vg
    for vg in $LVM_VG $LVX_VG; do
        dd if=/tmp/A of=/dev/$vg/m bs=1M oflag=direct status=none &&
            dd if=/tmp/B of=/dev/mapper/${vg//-/--}-m_mimage_1 bs=1M oflag=direct status=none ||
            return 1
    done
}
check "both in sync" sync_both
check "8 MiB written to each, image 1 overwritten behind the log" write_both
check_eq "image 1 of each differs from image 0 (the log does not know)" \
    "$(img_sum ${LVM_VG//-/--}-m_mimage_1) $(img_sum ${LVX_VG//-/--}-m_mimage_1)" \
    "$(sha256sum </tmp/B | cut -d' ' -f1) $(sha256sum </tmp/B | cut -d' ' -f1)"
both "lvchange -y --resync of the active mirror" lvchange -y --resync VG/m
check_eq "metadata and dm tables after it as LVM2's" \
    "$(meta $LVX $LVX_VG; tables $LVX_VG)" "$(meta lvm $LVM_VG; tables $LVM_VG)"
check "both in sync again" sync_both
check_eq "image 1 of each holds image 0's data again (LVM2's, lvx's)" \
    "$(img_sum ${LVM_VG//-/--}-m_mimage_1) $(img_sum ${LVX_VG//-/--}-m_mimage_1)" "$A $A"
check "both deactivated" sh -c "lvm vgchange -an $LVM_VG >/dev/null && $LVX vgchange -an $LVX_VG >/dev/null"
guest_done
