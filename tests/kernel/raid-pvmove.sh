#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/raid-pvmove.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0779-kernel-raid-pvmove.sh) with 8 virtio disks, lvx at /t/lvx and the
# host's LVM2/dmsetup.  Prints TAP.  Both tools, twin VGs:
#
#   vda-vdd  VG "lvm-pm": LVM2          vde-vdh  VG "lvx-pm": lvx
#
# - pvmove of an active raid1 LV (LVM2's pvmove-raid-segtypes.sh): the images move
#   (lvx refused: "moves active LVs only when they are linear or striped"), the data
#   stays, dm tables and metadata equal LVM2's after the move, --atomic too;
# - `pvmove -n LV_rimage_0` onto the PV of LV_rimage_1 refused by both (LVM2 keeps a
#   RAID LV's images apart; lvx, given a sub-LV's name, did not look at its LV);
# - `lvchange --syncaction check` of a raid1 under a COW snapshot goes to the origin's
#   -real device (lvx sent it to the snapshot-origin device: "Invalid argument").
# shellcheck disable=SC2086
. /t/guest-tap.sh

LVM_VG=lvm-pm
LVX_VG=lvx-pm
pv_map a:e b:f c:g d:h
dd if=/dev/urandom of=/tmp/A bs=1M count=4 2>/dev/null
check "LVM2 makes lvm-pm, lvx makes lvx-pm (1 MiB extents)" sh -c \
    "lvm pvcreate -q /dev/vda /dev/vdb /dev/vdc /dev/vdd && lvm vgcreate -q -s 1m $LVM_VG /dev/vda /dev/vdb /dev/vdc /dev/vdd &&
     $LVX pvcreate -q /dev/vde /dev/vdf /dev/vdg /dev/vdh && $LVX vgcreate -q -s 1m $LVX_VG /dev/vde /dev/vdf /dev/vdg /dev/vdh"
pv() {  # pv VG N: the VG's Nth disk
    local d=(/dev/vda /dev/vdb /dev/vdc /dev/vdd)
    [ "$1" = "$LVX_VG" ] && d=(/dev/vde /dev/vdf /dev/vdg /dev/vdh)
    echo ${d[$2]}
}
for vg in $LVM_VG $LVX_VG; do
    tool=lvm; [ $vg = $LVX_VG ] && tool=$LVX
    check "$vg: raid1 r on disks 0 1, linear foo on disk 0" sh -c \
        "$tool lvcreate -q -y -l 2 -n foo $vg $(pv $vg 0) && $tool lvcreate -q -y --type raid1 -m 1 -l 4 -n r $vg $(pv $vg 0) $(pv $vg 1)"
    check "$vg: in sync" wait_sync $tool $vg/r
    check "$vg: A written to r" dd if=/tmp/A of=/dev/$vg/r bs=1M oflag=direct status=none
done
devs() { $1 lvs -a --noheadings -o lv_name,devices $2 | xargs; }
for vg in $LVM_VG $LVX_VG; do
    tool=lvm; [ $vg = $LVX_VG ] && tool=$LVX
    check "$vg: pvmove disk 0 -> disk 3 (r active)" $tool pvmove -q $(pv $vg 0) $(pv $vg 3)
    check "$vg: r reads A" cmp /tmp/A /dev/$vg/r
done
check_eq "the LVs' devices after the move equal LVM2's" \
    "$(devs $LVX lvx-pm | sed 's|/dev/vde|a|g; s|/dev/vdf|b|g; s|/dev/vdg|c|g; s|/dev/vdh|d|g')" \
    "$(devs lvm lvm-pm | sed 's|/dev/vd\([a-d]\)|\1|g')"
check_eq "dm tables equal LVM2's" "$(tables $LVX_VG)" "$(tables $LVM_VG)"
check_eq "metadata equal LVM2's" "$(meta $LVX $LVX_VG)" "$(meta lvm $LVM_VG)"
for vg in $LVM_VG $LVX_VG; do
    tool=lvm; [ $vg = $LVX_VG ] && tool=$LVX
    rc=0; $tool pvmove -q -n r_rimage_0 $(pv $vg 3) $(pv $vg 1) >/dev/null 2>&1 || rc=$?
    check_eq "$vg: pvmove -n r_rimage_0 onto rimage_1's disk refused" "$([ $rc != 0 ] && echo refused)" refused
    check "$vg: pvmove --atomic -n r_rimage_0 disk 3 -> disk 2" $tool pvmove -q --atomic -n r_rimage_0 $(pv $vg 3) $(pv $vg 2)
    check "$vg: r reads A" cmp /tmp/A /dev/$vg/r
done
check_eq "after --atomic: dm tables equal LVM2's" "$(tables $LVX_VG)" "$(tables $LVM_VG)"
for vg in $LVM_VG $LVX_VG; do
    tool=lvm; [ $vg = $LVX_VG ] && tool=$LVX
    check "$vg: snapshot of r" $tool lvcreate -q -y -s $vg/r -n snap -l 2 $(pv $vg 3)
    check "$vg: lvchange --syncaction check of r under its snapshot" $tool lvchange --syncaction check $vg/r
    check "$vg: check done, no mismatch" sh -c "
        for i in \$(seq 120); do
            [ \"\$($tool lvs --noheadings -o raid_sync_action,raid_mismatch_count $vg/r | xargs)\" = 'idle 0' ] && exit 0
            sleep 0.5
        done; exit 1"
done
check_eq "the -real device ran the check (dm status of r-real: idle, check counted)" \
    "$(dmsetup status ${LVX_VG//-/--}-r-real | awk '{ print $3, $8 }')" "raid idle"
check "both VGs removed" sh -c "lvm vgremove -q -ff $LVM_VG && $LVX vgremove -q -ff $LVX_VG"
guest_done
