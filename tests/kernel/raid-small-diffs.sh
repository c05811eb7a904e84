#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/raid-small-diffs.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0789-kernel-raid-small-diffs.sh) with 6 virtio disks of 64 MiB, lvx at /t/lvx
# and the host's LVM2/dmsetup.  Prints TAP.  Small RAID/mirror differences (t1101 has the
# user backend's side), both tools side by side in the kernel:
#
#   vda-vdc  VG "lvm-sd": LVM2          vdd-vdf  VG "lvx-sd": lvx
#
#   - lvcreate --type mirror -m1 -l 100%FREE on 3 PVs and on 2: LVM2's approximate
#     allocation (images as large as images and log fit), layouts equal;
#   - lvs -o data_offset,new_data_offset,reshape_len_le of raid5, raid1 and raid4 r_4
#     (its images blank: LVM2 finds the RAID LV by the name cut at the first '_');
#   - lvconvert -y --type raid1 of an active linear origin of a COW snapshot: LVM2's
#     refusal, exit 5.
# shellcheck disable=SC2086
. /t/guest-tap.sh

LVM_VG=lvm-sd
LVX_VG=lvx-sd
pv_map a:d b:e c:f
check "LVM2 makes lvm-sd, lvx makes lvx-sd" sh -c \
    "lvm pvcreate -q /dev/vda /dev/vdb /dev/vdc && lvm vgcreate -q $LVM_VG /dev/vda /dev/vdb /dev/vdc &&
     $LVX pvcreate -q /dev/vdd /dev/vde /dev/vdf && $LVX vgcreate -q $LVX_VG /dev/vdd /dev/vde /dev/vdf"
layout() {  # layout TOOL VG: names, PE ranges with the PVs as LVM2's
    $1 lvs -a --noheadings -o name,seg_pe_ranges "$2" 2>&1 | sed -e 's/^ *//' -e 's/  */ /g' \
        -e 's|/dev/vdd|/dev/vda|g;s|/dev/vde|/dev/vdb|g;s|/dev/vdf|/dev/vdc|g' | sort
}
both "lvcreate --type mirror -m1 -l 100%FREE (3 PVs)" lvcreate -q -y --type mirror -m1 -l 100%FREE -n mm VG
check_eq "3 PVs: mirror layout equal LVM2's" "$(layout $LVX $LVX_VG)" "$(layout lvm $LVM_VG)"
both "lvremove mm" lvremove -q -y VG/mm
check "vgreduce the third PV (both)" sh -c "lvm vgreduce -q $LVM_VG /dev/vdc && $LVX vgreduce -q $LVX_VG /dev/vdf"
both "lvcreate --type mirror -m1 -l 100%FREE (2 PVs)" lvcreate -q -y --type mirror -m1 -l 100%FREE -n mm VG
check_eq "2 PVs: mirror layout equal LVM2's" "$(layout $LVX $LVX_VG)" "$(layout lvm $LVM_VG)"
both "lvremove mm" lvremove -q -y VG/mm
check "vgextend the third PV (both)" sh -c "lvm vgextend -q $LVM_VG /dev/vdc && $LVX vgextend -q $LVX_VG /dev/vdf"

both "lvcreate raid5 r5" lvcreate -q -y --type raid5 -i2 -L 8M -n r5 VG
both "lvcreate raid1 r1" lvcreate -q -y --type raid1 -m1 -L 8M -n r1 VG
both "lvcreate raid4 r_4" lvcreate -q -y --type raid4 -i2 -L 8M -n r_4 VG
for vg in $LVM_VG $LVX_VG; do
    tool=lvm; [ $vg = $LVX_VG ] && tool=$LVX
    for lv in r5 r1 r_4; do wait_sync $tool $vg/$lv; done
done
both "lvs -a data_offset,new_data_offset,reshape_len_le" \
    lvs -a -o lv_name,segtype,data_offset,new_data_offset,reshape_len_le VG
both "lvchange -an r5" lvchange -an VG/r5
both "lvs -a data_offset of an inactive raid5" lvs -a -o lv_name,data_offset,new_data_offset VG/r5 VG/r5_rimage_0
both "lvremove r5 r1 r_4" lvremove -q -y VG/r5 VG/r1 VG/r_4

both "lvcreate o" lvcreate -q -y -L 8M -n o VG
both "lvcreate -s -n s VG/o" lvcreate -q -y -s -L 4M -n s VG/o
both "lvconvert -y --type raid1 VG/o (an active origin)" lvconvert -y --type raid1 VG/o
check_eq "metadata equal LVM2's" "$(meta $LVX $LVX_VG)" "$(meta lvm $LVM_VG)"
guest_done
