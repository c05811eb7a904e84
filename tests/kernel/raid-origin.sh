#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/raid-origin.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0774-kernel-raid-origin.sh) with 6 virtio disks, lvx at /t/lvx and the host's
# LVM2/dmsetup.  Prints TAP.  RAID LVs as origins of COW snapshots (LVM2's
# lvconvert-raid.sh:41-98 and lvconvert-snapshot-raid.sh), both tools:
#
#   vda-vdc  VG "lvm-ro": made and changed by LVM2
#   vdd-vdf  VG "lvx-ro": the same command lines through lvx
#
# Checks: a snapshot of a raid1 LV; lv_attr 'o' for the origin (LVM2: origin before RAID);
# `lvconvert -m 2` and `-m 0` of the origin while its snapshot is active (the origin's
# own table is on its -real layer): output, exit status, metadata and dm tables equal
# LVM2's; the origin and the snapshot keep their data; lvconvert -s of a raid1 origin.
# shellcheck disable=SC2086
. /t/guest-tap.sh

LVM_VG=lvm-ro
LVX_VG=lvx-ro
pv_map a:d b:e c:f

for p in A B; do dd if=/dev/urandom of=/tmp/$p bs=1M count=4 2>/dev/null; done
check "LVM2 makes lvm-ro, lvx makes lvx-ro (2 MiB extents)" sh -c \
    "lvm pvcreate -q /dev/vda /dev/vdb /dev/vdc && lvm vgcreate -q -s 2m $LVM_VG /dev/vda /dev/vdb /dev/vdc &&
     $LVX pvcreate -q /dev/vdd /dev/vde /dev/vdf && $LVX vgcreate -q -s 2m $LVX_VG /dev/vdd /dev/vde /dev/vdf"
both "lvcreate --type raid1 -m 1 -l 2 -n lv1" lvcreate --type raid1 -m 1 -l 2 -n lv1 VG
for vg in $LVM_VG $LVX_VG; do
    for _ in $(seq 100); do
        [ "$(lvm lvs --noheadings -o sync_percent $vg/lv1 | trim)" = 100.00 ] && break
        sleep 0.2
    done
    check "$vg: A written to lv1" dd if=/tmp/A of=/dev/$vg/lv1 bs=1M oflag=direct 2>/dev/null
done
both "lvcreate -aey -s VG/lv1 -n snap -l 3" lvcreate -aey -s VG/lv1 -n snap -l 3
check_eq "lv_attr of the origin and the snapshot equal LVM2's ('o' before 'r')" \
    "$($LVX lvs --noheadings -o lv_name,lv_attr $LVX_VG | trim | xargs)" \
    "$(lvm lvs --noheadings -o lv_name,lv_attr $LVM_VG | trim | xargs)"
for vg in $LVM_VG $LVX_VG; do
    check "$vg: B written over the origin" dd if=/tmp/B of=/dev/$vg/lv1 bs=1M oflag=direct 2>/dev/null
done
data_kept() {  # each side: the origin reads B, its snapshot A
    local vg
    for vg in $LVM_VG $LVX_VG; do
        check "$vg: origin reads B, snapshot A" sh -c "cmp /tmp/B /dev/$vg/lv1 && cmp /tmp/A /dev/$vg/snap"
    done
}
both "lvconvert -y -m 2 VG/lv1 under its snapshot" lvconvert -y -m 2 VG/lv1
check_eq "... metadata equal LVM2's" "$(meta $LVX $LVX_VG)" "$(meta lvm $LVM_VG)"
check_eq "... dm tables equal LVM2's (the raid table on lv1-real)" "$(tables $LVX_VG)" "$(tables $LVM_VG)"
data_kept
both "lvconvert -m 0 VG/lv1 answered n" lvconvert -m 0 VG/lv1
both "lvconvert -y -m 0 VG/lv1 under its snapshot (linear)" lvconvert -y -m 0 VG/lv1
check_eq "... metadata equal LVM2's" "$(meta $LVX $LVX_VG)" "$(meta lvm $LVM_VG)"
check_eq "... dm tables equal LVM2's" "$(tables $LVX_VG)" "$(tables $LVM_VG)"
data_kept
both "lvconvert -y --type raid1 -m 1 VG/lv1 under its snapshot (linear -> raid1)" \
    lvconvert -y --type raid1 -m 1 VG/lv1
check_eq "... metadata equal LVM2's" "$(meta $LVX $LVX_VG)" "$(meta lvm $LVM_VG)"
check_eq "... dm tables equal LVM2's" "$(tables $LVX_VG)" "$(tables $LVM_VG)"
data_kept
check "both VGs removed" sh -c "lvm vgremove -q -ff $LVM_VG && $LVX vgremove -q -ff $LVX_VG"
guest_done
