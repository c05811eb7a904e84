#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/mirror-repair.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0760-kernel-mirror-repair.sh) with 10 virtio disks, lvx at /t/lvx and the
# host's LVM2/dmsetup.  Prints TAP.  lvconvert -y --repair of an ACTIVE 3-image disk-log
# mirror in the kernel (dm backend) that lost an image's PV, both tools:
#
#   vda-vde  VG "lvm-mr": LVM2 (its temporary resync layer, polled and collapsed)
#   vdf-vdj  VG "lvx-mr": lvx (the LV deactivated for the change and activated again)
#
# Images on the first three PVs, the log on the fourth, the fifth free; the second PV's
# label is wiped while the VG is inactive (a lost disk), the VG activated with
# --activationmode partial, then repaired (not written while degraded: the kernel holds
# such writes for dmeventd, which the guest does not run).  Checks: exit status and output (its poll's progress lines below 100% aside: their number is timing)
# (LVM2's warnings about the missing device aside), the metadata text once LVM2's poll
# is done, the dm tables, every image's device holding the data.
# shellcheck disable=SC2086
. /t/guest-tap.sh

LVM_VG=lvm-mr
LVX_VG=lvx-mr
pv_map a:f b:g c:h d:i e:j
sync_both() { wait_sync lvm $LVM_VG/m && wait_sync lvm $LVX_VG/m; }
img_sum() { dd if="/dev/mapper/$1" bs=1M count=16 iflag=direct status=none | sha256sum | cut -d' ' -f1; }

dd if=/dev/urandom of=/tmp/A bs=1M count=16 2>/dev/null
A=$(sha256sum </tmp/A | cut -d' ' -f1)

check "LVM2 makes lvm-mr, lvx makes lvx-mr" sh -c \
    "lvm pvcreate -q /dev/vda /dev/vdb /dev/vdc /dev/vdd /dev/vde &&
     lvm vgcreate -q $LVM_VG /dev/vda /dev/vdb /dev/vdc /dev/vdd /dev/vde &&
     $LVX pvcreate -q /dev/vdf /dev/vdg /dev/vdh /dev/vdi /dev/vdj &&
     $LVX vgcreate -q $LVX_VG /dev/vdf /dev/vdg /dev/vdh /dev/vdi /dev/vdj"
check "lvcreate --type mirror -m2 (disk log) by each tool: images on PVs 0-2, log on PV 3" sh -c \
    "lvm lvcreate -q --type mirror -m2 -L 16m -n m $LVM_VG /dev/vda /dev/vdb /dev/vdc /dev/vdd &&
     $LVX lvcreate -q --type mirror -m2 -L 16m -n m $LVX_VG /dev/vdf /dev/vdg /dev/vdh /dev/vdi"
check "both in sync" sync_both
check "16 MiB written to each" sh -c \
    "dd if=/tmp/A of=/dev/$LVM_VG/m bs=1M oflag=direct status=none &&
     dd if=/tmp/A of=/dev/$LVX_VG/m bs=1M oflag=direct status=none"
check "both deactivated, PV 1's label wiped on each (a lost disk)" sh -c \
    "lvm vgchange -an $LVM_VG >/dev/null && $LVX vgchange -an $LVX_VG >/dev/null &&
     dd if=/dev/zero of=/dev/vdb bs=1M count=1 oflag=direct status=none &&
     dd if=/dev/zero of=/dev/vdg bs=1M count=1 oflag=direct status=none"
ra=0 rb=0
oa=$(lvm vgchange -ay --activationmode partial $LVM_VG 2>&1) || ra=$?
ob=$($LVX vgchange -ay --activationmode partial $LVX_VG 2>&1) || rb=$?
check_eq "vgchange -ay --activationmode partial: exit status as LVM2's" "$rb" "$ra"
note "LVM2: $oa"
note "lvx: $ob"
# no write while degraded: the kernel's mirror (handle_errors) holds writes after a
# leg fails until dmeventd reconfigures it, and the guest runs no dmeventd
C=$A
ra=0 rb=0
oa=$(lvm lvconvert -y --repair $LVM_VG/m 2>&1) || ra=$?
ob=$($LVX lvconvert -y --repair $LVX_VG/m 2>&1) || rb=$?
note "LVM2: $oa"
note "lvx: $ob"
# LVM2's poll prints a progress line per interval (how many depends on the timing: a
# run printed "Converted: 75.00%" before 100.00%): those lines left out on both sides
check_eq "lvconvert -y --repair of the active mirror: exit status and output as LVM2's (progress lines below 100% aside)" \
    "$rb $(quiet_missing <<<"${ob//$LVX_VG/VG}" | grep -v "Converted: [0-9.]*%$" ; grep -c "Converted: 100.00%$" <<<"$ob")" \
    "$ra $(quiet_missing <<<"${oa//$LVM_VG/VG}" | grep -v "Converted: [0-9.]*%$" ; grep -c "Converted: 100.00%$" <<<"$oa")"
check "both in sync" sync_both
check_eq "metadata as LVM2's after its poll (the new image placed and named alike, the log kept)" \
    "$(meta $LVX $LVX_VG)" "$(meta lvm $LVM_VG)"
check_eq "dm tables as LVM2's" "$(tables $LVX_VG)" "$(tables $LVM_VG)"
for k in 0 2 3; do
    check_eq "lvx's m_mimage_$k holds the data" "$(img_sum ${LVX_VG//-/--}-m_mimage_$k)" "$C"
done
check_eq "lvx's m reads it" "$(dd if=/dev/$LVX_VG/m bs=1M iflag=direct status=none | sha256sum | cut -d' ' -f1)" "$C"
check "both deactivated" sh -c "lvm vgchange -an $LVM_VG >/dev/null 2>&1; $LVX vgchange -an $LVX_VG >/dev/null"
guest_done
