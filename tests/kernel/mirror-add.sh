#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/mirror-add.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0759-kernel-mirror-add.sh) with 8 virtio disks, lvx at /t/lvx and the
# host's LVM2/dmsetup.  Prints TAP.  lvconvert -m +1 of an ACTIVE disk-log mirror in
# the kernel (dm backend), both tools:
#
#   vda-vdd  VG "lvm-ma": made, written and converted by LVM2 (its temporary resync
#            layer NAME_mimagetmp_2, polled until in sync and collapsed)
#   vde-vdh  VG "lvx-ma": the same command lines through lvx (the LV deactivated for the
#            change and activated again, the kernel copying every region)
#
# Checks: exit status and output (LVM2's first line and its poll's last two; its
# progress lines in between depend on timing), the metadata text once LVM2's poll is
# done, the dm tables, every image's device holding the data, data written after;
# then --splitmirrors 1 twice (3 images -> 2 -> linear): output, metadata, dm tables
# as LVM2's, the split LV holding the data.
# shellcheck disable=SC2086
. /t/guest-tap.sh

LVM_VG=lvm-ma
LVX_VG=lvx-ma
pv_map a:e b:f c:g d:h
sync_both() { wait_sync lvm $LVM_VG/m && wait_sync lvm $LVX_VG/m; }
img_sum() { dd if="/dev/mapper/$1" bs=1M count=16 iflag=direct status=none | sha256sum | cut -d' ' -f1; }

dd if=/dev/urandom of=/tmp/A bs=1M count=16 2>/dev/null
dd if=/dev/urandom of=/tmp/B bs=1M count=16 2>/dev/null
A=$(sha256sum </tmp/A | cut -d' ' -f1)
B=$(sha256sum </tmp/B | cut -d' ' -f1)

check "LVM2 makes lvm-ma, lvx makes lvx-ma" sh -c \
    "lvm pvcreate -q /dev/vda /dev/vdb /dev/vdc /dev/vdd && lvm vgcreate -q $LVM_VG /dev/vda /dev/vdb /dev/vdc /dev/vdd &&
     $LVX pvcreate -q /dev/vde /dev/vdf /dev/vdg /dev/vdh && $LVX vgcreate -q $LVX_VG /dev/vde /dev/vdf /dev/vdg /dev/vdh"
check "lvcreate --type mirror -m1 (disk log) by each tool, images on the first two PVs, log on the third" sh -c \
    "lvm lvcreate -q --type mirror -m1 -L 16m -n m $LVM_VG /dev/vda /dev/vdb /dev/vdc &&
     $LVX lvcreate -q --type mirror -m1 -L 16m -n m $LVX_VG /dev/vde /dev/vdf /dev/vdg"
check "both in sync" sync_both
check "16 MiB written to each" sh -c \
    "dd if=/tmp/A of=/dev/$LVM_VG/m bs=1M oflag=direct status=none &&
     dd if=/tmp/A of=/dev/$LVX_VG/m bs=1M oflag=direct status=none"

ra=0 rb=0
oa=$(lvm lvconvert -y -m +1 $LVM_VG/m 2>&1) || ra=$?
ob=$($LVX lvconvert -y -m +1 $LVX_VG/m 2>&1) || rb=$?
note "LVM2: $oa"
note "lvx: $ob"
ends() { { head -1; tail -2; } <<<"$1"; }
check_eq "lvconvert -m +1 of the active mirror: exit status, first line and the poll's end as LVM2's" \
    "$rb $(ends "${ob//$LVX_VG/VG}")" "$ra $(ends "${oa//$LVM_VG/VG}")"
check_eq "LVM2's lines between are its poll's progress" \
    "$(sed '1d;$d' <<<"$oa" | sed '$d' | grep -cv "^  $LVM_VG/m: Converted: [0-9.]*%$")" "0"
check "both in sync" sync_both
check_eq "metadata as LVM2's after its poll (3 images, the log kept, the new image placed alike)" \
    "$(meta $LVX $LVX_VG)" "$(meta lvm $LVM_VG)"
check_eq "dm tables as LVM2's" "$(tables $LVX_VG)" "$(tables $LVM_VG)"
for k in 0 1 2; do
    check_eq "lvx's m_mimage_$k holds the data" "$(img_sum ${LVX_VG//-/--}-m_mimage_$k)" "$A"
done
check_eq "LVM2's m_mimage_2 too" "$(img_sum ${LVM_VG//-/--}-m_mimage_2)" "$A"
check "16 MiB more written to lvx's m" dd if=/tmp/B of=/dev/$LVX_VG/m bs=1M oflag=direct status=none
for k in 0 1 2; do
    check_eq "lvx's m_mimage_$k holds them" "$(img_sum ${LVX_VG//-/--}-m_mimage_$k)" "$B"
done
# --splitmirrors of the 3-image mirror (its last image leaves as the linear LV sp),
# then of the 2-image one (m becomes linear, its log gone)
for n in sp sp2; do
    ra=0 rb=0
    oa=$(lvm lvconvert --splitmirrors 1 -n $n $LVM_VG/m 2>&1) || ra=$?
    ob=$($LVX lvconvert --splitmirrors 1 -n $n $LVX_VG/m 2>&1) || rb=$?
    check_eq "--splitmirrors 1 -n $n: exit status and output as LVM2's" \
        "$rb ${ob//$LVX_VG/VG}" "$ra ${oa//$LVM_VG/VG}"
    check_eq "--splitmirrors 1 -n $n: metadata and dm tables as LVM2's" \
        "$(meta $LVX $LVX_VG; tables $LVX_VG)" "$(meta lvm $LVM_VG; tables $LVM_VG)"
    check_eq "lvx's $n holds the data" "$(img_sum ${LVX_VG//-/--}-$n)" "$B"
done
check "vgck of both" sh -c "lvm vgck $LVM_VG && lvm vgck $LVX_VG"
check "both deactivated" sh -c "lvm vgchange -an $LVM_VG >/dev/null && $LVX vgchange -an $LVX_VG >/dev/null"
guest_done
