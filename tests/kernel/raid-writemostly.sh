#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/raid-writemostly.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0777-kernel-raid-writemostly.sh) with 4 virtio disks, lvx at /t/lvx and the
# host's LVM2/dmsetup.  Prints TAP.  lvchange --writemostly / --writebehind of a raid1
# LV in the kernel (dm backend), both tools:
#
#   vda-vdb  VG "lvm-wm": made and changed by LVM2
#   vdc-vdd  VG "lvx-wm": the same command lines through lvx
#
# Checks (output, exit status, metadata and dm tables equal LVM2's): --writemostly PV
# (the dm-raid line's "write_mostly 0"), --writebehind 512 ("max_write_behind"),
# lv_attr / lv_health_status of the images ('w', "writemostly"), :t of both PVs at once,
# the refusal of every image writemostly, --writemostly PV:n and --writebehind 0 (the
# parameters gone).
# shellcheck disable=SC2086
. /t/guest-tap.sh

LVM_VG=lvm-wm
LVX_VG=lvx-wm
pv_map a:c b:d

# bothpv DESC ARGS...: as both, with PV1/PV2 the first/second disk of each VG
bothpv() {
    local desc=$1 ra=0 rb=0 oa ob a=() b=() x
    shift
    for x in "$@"; do
        x=${x//PV1/\/dev\/vda}; a+=("${x//PV2/\/dev\/vdb}")
    done
    for x in "$@"; do
        x=${x//PV1/\/dev\/vdc}; b+=("${x//PV2/\/dev\/vdd}")
    done
    oa=$(lvm "${a[@]//VG/$LVM_VG}" 2>&1) || ra=$?
    ob=$($LVX "${b[@]//VG/$LVX_VG}" 2>&1) || rb=$?
    ob=${ob//\/dev\/vdc//dev/vda}
    ob=${ob//\/dev\/vdd//dev/vdb}
    check_eq "$desc: lvx's exit status and output equal LVM2's" \
        "$rb ${ob//$LVX_VG/VG}" "$ra ${oa//$LVM_VG/VG}"
}
same_state() {
    check_eq "$1: metadata equal LVM2's" "$(meta $LVX $LVX_VG)" "$(meta lvm $LVM_VG)"
    check_eq "$1: dm tables equal LVM2's" "$(tables $LVX_VG)" "$(tables $LVM_VG)"
    check_eq "$1: lv_attr, lv_health_status equal LVM2's" \
        "$($LVX lvs -a --noheadings -o lv_name,lv_attr,lv_health_status,raid_write_behind $LVX_VG | trim | xargs)" \
        "$(lvm lvs -a --noheadings -o lv_name,lv_attr,lv_health_status,raid_write_behind $LVM_VG | trim | xargs)"
}

check "LVM2 makes lvm-wm, lvx makes lvx-wm" sh -c \
    "lvm pvcreate -q /dev/vda /dev/vdb && lvm vgcreate -q -s 2m $LVM_VG /dev/vda /dev/vdb &&
     $LVX pvcreate -q /dev/vdc /dev/vdd && $LVX vgcreate -q -s 2m $LVX_VG /dev/vdc /dev/vdd"
both "lvcreate --type raid1 -m 1 -l 4 -n r" lvcreate --type raid1 -m 1 -l 4 -n r VG
for vg in $LVM_VG $LVX_VG; do
    for _ in $(seq 300); do
        [ "$(lvm lvs --noheadings -o sync_percent $vg/r | trim)" = 100.00 ] && break
        sleep 0.2
    done
done
bothpv "lvchange --writemostly PV1" lvchange --writemostly PV1 VG/r
same_state "--writemostly PV1"
check_match "... the raid line has write_mostly 0" "$(tables $LVX_VG)" " write_mostly 0 "
bothpv "lvchange --writebehind 512" lvchange --writebehind 512 VG/r
same_state "--writebehind 512"
# the kernel's table read back does not echo 512 (6.12 printed "max_write_behind 0"
# for both tools): the parameter's presence is checked, its value by the tables above
check_match "... the raid line has max_write_behind" "$(tables $LVX_VG)" " max_write_behind "
bothpv "lvchange --writemostly PV1:t --writemostly PV2:t" lvchange --writemostly PV1:t --writemostly PV2:t VG/r
same_state "both toggled"
bothpv "lvchange --writemostly PV1 (every image: refused)" lvchange --writemostly PV1 VG/r
same_state "after the refusal"
bothpv "lvchange --writemostly PV2:n --writebehind 0" lvchange --writemostly PV2:n --writebehind 0 VG/r
same_state "cleared"
check "both VGs removed" sh -c "lvm vgremove -q -ff $LVM_VG && $LVX vgremove -q -ff $LVX_VG"
guest_done
