#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/raid-split.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0775-kernel-raid-split.sh) with 8 virtio disks, lvx at /t/lvx and the host's
# LVM2/dmsetup.  Prints TAP.  `lvconvert --splitmirrors` of raid1 LVs (LVM2's
# lvconvert-raid.sh:124-170), both tools:
#
#   vda-vdd  VG "lvm-sp": made and changed by LVM2
#   vde-vdh  VG "lvx-sp": the same command lines through lvx
#
# Checks, after each step: exit status and output, metadata, seqno, dm tables and the
# dm names/UUID forms equal LVM2's; the split LV holds the data.  Steps: 3-way -> 2-way
# + linear; 2-way -> linear + linear (refused without -y); 4-way with a PV named;
# --trackchanges (the image visible read-only, "- -" in the raid table), writes to the
# raid LV not seen by the image, --merge VG/lv1_rimage_2 (the raid LV reads the new
# data), the refusals while tracking (LVM2 2.03.16 refuses a split of the tracking LV
# too), --merge of an image that is not tracked.
# shellcheck disable=SC2086
. /t/guest-tap.sh

LVM_VG=lvm-sp
LVX_VG=lvx-sp
pv_map a:e b:f c:g d:h

seq_of() { lvm vgs --noheadings -o vg_seqno "$1" 2>/dev/null | trim; }
attrs() { lvm lvs -a --noheadings -o lv_name,lv_attr,segtype "$1" 2>/dev/null | trim | sort | xargs; }
mark() { SA=$(seq_of $LVM_VG) SX=$(seq_of $LVX_VG); }
same() {  # same DESC: metadata, seqno steps since mark, lvs, tables and dm names equal LVM2's
    check_eq "$1: metadata equal LVM2's" "$(meta $LVX $LVX_VG)" "$(meta lvm $LVM_VG)"
    check_eq "$1: seqno steps equal" "+$(($(seq_of $LVX_VG) - SX))" "+$(($(seq_of $LVM_VG) - SA))"
    check_eq "$1: lv_name, lv_attr, segtype equal" "$(attrs $LVX_VG)" "$(attrs $LVM_VG)"
    check_eq "$1: dm tables equal" "$(tables $LVX_VG)" "$(tables $LVM_VG)"
    check_eq "$1: dm names and UUID forms equal" "$(dm_forms $LVX_VG)" "$(dm_forms $LVM_VG)"
}
synced() {
    local vg
    for vg in $LVM_VG $LVX_VG; do check "$vg/$1 in sync" wait_sync lvm $vg/$1; done
}
reads() {  # reads DEV-SUFFIX FILE: both sides' device reads FILE
    local vg
    for vg in $LVM_VG $LVX_VG; do check "$vg: $1 reads $(basename $2)" cmp -n 4194304 $2 /dev/mapper/${vg//-/--}-$1; done
}
write() {
    local vg
    for vg in $LVM_VG $LVX_VG; do check "$vg: $(basename $2) written to $1" dd if=$2 of=/dev/$vg/$1 bs=1M oflag=direct 2>/dev/null; done
}
for p in A B; do dd if=/dev/urandom of=/tmp/$p bs=1M count=4 2>/dev/null; done
check "LVM2 makes lvm-sp, lvx makes lvx-sp (2 MiB extents)" sh -c \
    "lvm pvcreate -q /dev/vda /dev/vdb /dev/vdc /dev/vdd && lvm vgcreate -q -s 2m $LVM_VG /dev/vda /dev/vdb /dev/vdc /dev/vdd &&
     $LVX pvcreate -q /dev/vde /dev/vdf /dev/vdg /dev/vdh && $LVX vgcreate -q -s 2m $LVX_VG /dev/vde /dev/vdf /dev/vdg /dev/vdh"

# 3-way -> 2-way + linear
both "lvcreate --type raid1 -m 2 -l 2 -n lv1" lvcreate --type raid1 -m 2 -l 2 -n lv1 VG
synced lv1
write lv1 /tmp/A
mark
both "lvconvert --splitmirrors 1 -n lv2 VG/lv1" lvconvert --splitmirrors 1 -n lv2 VG/lv1
same "3-way split"
reads lv2 /tmp/A
both "lvremove -ff VG" lvremove -ff VG

# 2-way -> linear + linear
both "lvcreate --type raid1 -m 1 -l 2 -n lv1" lvcreate --type raid1 -m 1 -l 2 -n lv1 VG
synced lv1
write lv1 /tmp/A
mark
both "lvconvert --splitmirrors 1 -n lv2 VG/lv1 (no -y: refused)" lvconvert --splitmirrors 1 -n lv2 VG/lv1
both "lvconvert --yes --splitmirrors 1 -n lv2 VG/lv1" lvconvert --yes --splitmirrors 1 -n lv2 VG/lv1
same "2-way split"
reads lv1 /tmp/A
reads lv2 /tmp/A
both "lvremove -ff VG" lvremove -ff VG

# 4-way, the image on the second PV
both "lvcreate --type raid1 -m 3 -l 2 -n lv1" lvcreate --type raid1 -m 3 -l 2 -n lv1 VG
synced lv1
ra=0 rb=0
mark
oa=$(lvm lvconvert --splitmirrors 1 --name lv2 $LVM_VG/lv1 /dev/vdb 2>&1) || ra=$?
ob=$($LVX lvconvert --splitmirrors 1 --name lv2 $LVX_VG/lv1 /dev/vdf 2>&1) || rb=$?
check_eq "lvconvert --splitmirrors 1 --name lv2 VG/lv1 PV1: exit status and output equal LVM2's" \
    "$rb ${ob//$LVX_VG/VG}" "$ra ${oa//$LVM_VG/VG}"
same "4-way split of PV1's image"
both "lvremove -ff VG" lvremove -ff VG

# --trackchanges, --merge
both "lvcreate --type raid1 -m 2 -l 2 -n lv1" lvcreate --type raid1 -m 2 -l 2 -n lv1 VG
synced lv1
write lv1 /tmp/A
mark
both "lvconvert --splitmirrors 1 --trackchanges VG/lv1" lvconvert --splitmirrors 1 --trackchanges VG/lv1
same "split --trackchanges"
reads lv1_rimage_2 /tmp/A
check_match "lvx: lv1_rimage_2 is read-only in the kernel" "$(blockdev --getro /dev/mapper/lvx--sp-lv1_rimage_2)" 1
mark
both "a second --trackchanges: refused" lvconvert --splitmirrors 1 --trackchanges VG/lv1
both "lvconvert -m 1 of the tracking LV: refused" lvconvert -y -m 1 VG/lv1
both "a split of another image while tracking: refused" lvconvert --splitmirrors 1 -n lv3 VG/lv1
same "refusals while tracking"
write lv1 /tmp/B
reads lv1_rimage_2 /tmp/A
mark
both "lvconvert --merge VG/lv1_rimage_2" lvconvert --merge VG/lv1_rimage_2
same "merge"
synced lv1
reads lv1 /tmp/B
both "lvconvert --merge VG/lv1_rimage_1 (not tracked): refused" lvconvert --merge VG/lv1_rimage_1
both "lvconvert --splitmirrors 1 --trackchanges VG/lv1 again" lvconvert --splitmirrors 1 --trackchanges VG/lv1
reads lv1_rimage_2 /tmp/B
both "lvconvert --splitmirrors 1 -n lv3 VG/lv1 while tracking: refused (LVM2 2.03.16)" \
    lvconvert --splitmirrors 1 -n lv3 VG/lv1
both "lvconvert --merge VG/lv1_rimage_2 again" lvconvert --merge VG/lv1_rimage_2
same "merged again"
check "both VGs removed" sh -c "lvm vgremove -q -ff $LVM_VG && $LVX vgremove -q -ff $LVX_VG"
guest_done
