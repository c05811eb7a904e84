#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/raid-refresh.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0778-kernel-raid-refresh.sh) with 4 virtio disks, lvx at /t/lvx and the
# host's LVM2/dmsetup.  Prints TAP.  A RAID leg that failed for a while and came back
# (LVM2's lvchange-raid.sh:225-244, run by lvchange-raid10/-raid456): after
# `lvchange --refresh` the kernel takes the leg back and resyncs it, lv_health_status is
# empty again.  LVM2's refresh suspends and resumes the raid device even when its table
# stays (dm-raid retries failed legs on such a resume); lvx reloaded nothing and left
# the leg dead ('D', health "refresh needed").  Both tools:
#
#   vda-vdb  VG "lvm-rf": LVM2          vdc-vdd  VG "lvx-rf": lvx
# shellcheck disable=SC2086
. /t/guest-tap.sh

LVM_VG=lvm-rf
LVX_VG=lvx-rf
pv_map a:c b:d
dd if=/dev/urandom of=/tmp/A bs=1M count=8 2>/dev/null
check "LVM2 makes lvm-rf, lvx makes lvx-rf" sh -c \
    "lvm pvcreate -q /dev/vda /dev/vdb && lvm vgcreate -q $LVM_VG /dev/vda /dev/vdb &&
     $LVX pvcreate -q /dev/vdc /dev/vdd && $LVX vgcreate -q $LVX_VG /dev/vdc /dev/vdd"
both "lvcreate --type raid1 -m 1 -L 8m -n r" lvcreate -q -y --type raid1 -m 1 -L 8m -n r VG
health() { $1 lvs --noheadings -o lv_health_status,lv_attr "$2/r" 2>/dev/null | xargs; }
kstatus() { dmsetup status "${1//-/--}-r" | awk '{ print $6 }'; }
for t in "lvm $LVM_VG" "$LVX $LVX_VG"; do
    set -- $t
    tool=$1 vg=$2
    check "$vg: in sync" wait_sync $tool $vg/r
    img=/dev/mapper/${vg//-/--}-r_rimage_1
    live=$(dmsetup table ${vg//-/--}-r_rimage_1)
    check "$vg: rimage_1 replaced by the error target" sh -c \
        "dmsetup load ${vg//-/--}-r_rimage_1 --table '0 $(blockdev --getsz $img) error' &&
         dmsetup resume ${vg//-/--}-r_rimage_1"
    check "$vg: A written (leg 1 fails)" dd if=/tmp/A of=/dev/$vg/r bs=1M oflag=direct status=none
    check_eq "$vg: the kernel has the leg dead" "$(kstatus $vg)" "AD"
    check "$vg: rimage_1's table back" sh -c \
        "dmsetup load ${vg//-/--}-r_rimage_1 --table '$live' && dmsetup resume ${vg//-/--}-r_rimage_1"
    check_eq "$vg: still dead before the refresh, health 'r'" "$(kstatus $vg) $(health $tool $vg)" \
        "AD refresh needed rwi-a-r-r-"
    check "$vg: lvchange --refresh" $tool lvchange --refresh $vg/r
    check "$vg: in sync again" wait_sync $tool $vg/r
    check_eq "$vg: both legs live after the refresh, health empty" "$(kstatus $vg) $(health $tool $vg)" \
        "AA rwi-a-r---"
    check "$vg: reads A" cmp /tmp/A /dev/$vg/r
done
check_eq "dm tables equal LVM2's after the refresh" "$(tables $LVX_VG)" "$(tables $LVM_VG)"
# the same through vgchange --refresh, on lvx's VG
img=/dev/mapper/${LVX_VG//-/--}-r_rimage_0
live=$(dmsetup table ${LVX_VG//-/--}-r_rimage_0)
check "lvx-rf: rimage_0 replaced by the error target, B written" sh -c \
    "dmsetup load ${LVX_VG//-/--}-r_rimage_0 --table '0 $(blockdev --getsz $img) error' &&
     dmsetup resume ${LVX_VG//-/--}-r_rimage_0 &&
     dd if=/tmp/A of=/dev/$LVX_VG/r bs=1M oflag=direct status=none &&
     dmsetup load ${LVX_VG//-/--}-r_rimage_0 --table '$live' && dmsetup resume ${LVX_VG//-/--}-r_rimage_0"
check_eq "lvx-rf: leg 0 dead" "$(kstatus $LVX_VG)" "DA"
check "lvx-rf: vgchange --refresh" $LVX vgchange --refresh $LVX_VG
check "lvx-rf: in sync again" wait_sync $LVX lvx-rf/r
check_eq "lvx-rf: both legs live" "$(kstatus $LVX_VG)" "AA"
# a RAID origin of a COW snapshot: its raid device is the -real layer (LVM2's
# lvchange-raid.sh under snapshot); the refresh must suspend and resume that one
for t in "lvm $LVM_VG" "$LVX $LVX_VG"; do
    set -- $t
    tool=$1 vg=$2 d=${2//-/--}
    check "$vg: snapshot of r" $tool lvcreate -q -y -s $vg/r -n snap -L 4m
    check "$vg: in sync" wait_sync $tool $vg/r
    live=$(dmsetup table $d-r_rimage_1)
    check "$vg: rimage_1 fails under writes, then its table comes back" sh -c \
        "dmsetup load $d-r_rimage_1 --table '0 $(blockdev --getsz /dev/mapper/$d-r_rimage_1) error' &&
         dmsetup resume $d-r_rimage_1 && dd if=/tmp/A of=/dev/$vg/r bs=1M oflag=direct status=none &&
         dmsetup load $d-r_rimage_1 --table '$live' && dmsetup resume $d-r_rimage_1"
    check_eq "$vg: origin's leg dead (-real's status)" "$(dmsetup status $d-r-real | awk '{ print $6 }')" "AD"
    check "$vg: lvchange --refresh of the origin" $tool lvchange --refresh $vg/r
    check "$vg: in sync again" wait_sync $tool $vg/r
    check_eq "$vg: both legs live, health letter clear again" \
        "$(dmsetup status $d-r-real | awk '{ print $6 }') $($tool lvs --noheadings -o lv_attr $vg/r | xargs)" \
        "AA owi-a-r---"
done
check "both VGs removed" sh -c "lvm vgremove -q -ff $LVM_VG && $LVX vgremove -q -ff $LVX_VG"
guest_done
