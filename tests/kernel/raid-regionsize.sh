#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/raid-regionsize.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0780-kernel-raid-regionsize.sh) with 6 virtio disks, lvx at /t/lvx and the
# host's LVM2/dmsetup.  Prints TAP.  `lvconvert -R` / `--type T -R` of RAID LVs (LVM2's
# lvconvert-raid-regionsize.sh), both tools side by side:
#
#   vda-vdc  VG "lvm-rs": LVM2          vdd-vdf  VG "lvx-rs": lvx
#
# Each step: exit status and output, metadata, dm tables equal LVM2's; the data stays.
# shellcheck disable=SC2086
. /t/guest-tap.sh

LVM_VG=lvm-rs
LVX_VG=lvx-rs
pv_map a:d b:e c:f
dd if=/dev/urandom of=/tmp/A bs=1M count=8 2>/dev/null
check "LVM2 makes lvm-rs, lvx makes lvx-rs" sh -c \
    "lvm pvcreate -q /dev/vda /dev/vdb /dev/vdc && lvm vgcreate -q $LVM_VG /dev/vda /dev/vdb /dev/vdc &&
     $LVX pvcreate -q /dev/vdd /dev/vde /dev/vdf && $LVX vgcreate -q $LVX_VG /dev/vdd /dev/vde /dev/vdf"
both "lvcreate --type raid1 -m 2 -R64K -L8M -n r" lvcreate -q -y --type raid1 -m 2 -R64K -L8M -n r VG
for vg in $LVM_VG $LVX_VG; do
    tool=lvm; [ $vg = $LVX_VG ] && tool=$LVX
    check "$vg: in sync" wait_sync $tool $vg/r
    check "$vg: A written" dd if=/tmp/A of=/dev/$vg/r bs=1M oflag=direct status=none
done
step() {  # step DESC ARGS...: the same lvconvert by both, then compared
    local desc=$1
    shift
    both "$desc" lvconvert "$@"
    check_eq "$desc: metadata equal LVM2's" "$(meta $LVX $LVX_VG)" "$(meta lvm $LVM_VG)"
    check_eq "$desc: dm tables equal LVM2's" "$(tables $LVX_VG)" "$(tables $LVM_VG)"
}
step "--type raid1 --yes -R 128K" --type raid1 --yes -R 128K VG/r
step "--regionsize 128K (the same: refused)" --regionsize 128K VG/r
step "-R 256K answered n" -R 256K VG/r
step "-y -R 1m" -y -R 1m VG/r
step "-y -R 1G (larger than the LV)" -y -R 1G VG/r
step "-y -R 16K" -y -R 16K VG/r
for vg in $LVM_VG $LVX_VG; do
    tool=lvm; [ $vg = $LVX_VG ] && tool=$LVX
    check "$vg: in sync" wait_sync $tool $vg/r
    check "$vg: reads A" cmp /tmp/A /dev/$vg/r
done
both "lvs region_size, sync" lvs --noheadings -o lv_name,region_size,copy_percent VG/r
both "lvcreate raid5 -i 2 -I 64k -L 8M -n r5" lvcreate -q -y --type raid5 -i 2 -I 64k -L 8M -n r5 VG
for vg in $LVM_VG $LVX_VG; do
    tool=lvm; [ $vg = $LVX_VG ] && tool=$LVX
    check "$vg: r5 in sync" wait_sync $tool $vg/r5
done
step "raid5 -y -R 32K (below the stripe size)" -y -R 32K VG/r5
step "raid5 -y -R 512K" -y -R 512K VG/r5
check "both VGs removed" sh -c "lvm vgremove -q -ff $LVM_VG && $LVX vgremove -q -ff $LVX_VG"
guest_done
