#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/mirror-layer.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0787-kernel-mirror-layer.sh) with 8 virtio disks, lvx at /t/lvx and the
# host's LVM2/dmsetup.  Prints TAP.  Mirrors LVM2 left CONVERTING: LVM2's lvconvert
# -m +1 of an inactive disk-log mirror writes its temporary resync layer
# (m_mimagetmp_2: the old mirror with its log, under a top mirror of it and the new
# image), which its poll collapses once in sync.  Two VGs made by LVM2 the same way:
#
#   vda-vdd  "lvm-cl": LVM2 finishes its layers (the oracle)
#   vde-vdh  "lvx-cl": lvx finishes them
#
#   m  inactive layer: each tool activates it (--poll n: stacked as LVM2 stacks it, no
#      poller) and polls it (lvconvert VG/m: waits, collapses it live).
#   n  layer LVM2 activated (--poll n, its tables recorded): lvx's report of it, then
#      `lvconvert VG/n` of each tool.
# Checks: output, metadata and dm tables as LVM2's once finished, data on every image.
# shellcheck disable=SC2086
. /t/guest-tap.sh

LVM_VG=lvm-cl
LVX_VG=lvx-cl
pv_map a:e b:f c:g d:h
img_sum() { dd if="/dev/mapper/$1" bs=1M count=$2 iflag=direct status=none | sha256sum | cut -d' ' -f1; }
dd if=/dev/urandom of=/tmp/A bs=1M count=16 2>/dev/null
A=$(sha256sum </tmp/A | cut -d' ' -f1)
dd if=/tmp/A of=/tmp/A8 bs=1M count=8 status=none
A8=$(sha256sum </tmp/A8 | cut -d' ' -f1)

mk() {   # mk VG D1 D2 D3 D4: LVM2's VG, mirrors m (16 MiB) and n (8 MiB) written, layers
    lvm pvcreate -q $2 $3 $4 $5 && lvm vgcreate -q $1 $2 $3 $4 $5 &&
        lvm lvcreate -q --type mirror -m1 -L 16m -n m $1 $2 $3 $4 &&
        lvm lvcreate -q --type mirror -m1 -L 8m -n n $1 $2 $3 $4 &&
        wait_sync lvm $1/m && wait_sync lvm $1/n &&
        dd if=/tmp/A of=/dev/$1/m bs=1M oflag=direct status=none &&
        dd if=/tmp/A8 of=/dev/$1/n bs=1M oflag=direct status=none &&
        lvm vgchange -q -an $1 >/dev/null &&
        lvm lvconvert -q -m +1 $1/m $5 && lvm lvconvert -q -m +1 $1/n $5
}
mk_both() { mk $LVM_VG /dev/vda /dev/vdb /dev/vdc /dev/vdd && mk $LVX_VG /dev/vde /dev/vdf /dev/vdg /dev/vdh; }
sync2() { wait_sync lvm $LVM_VG/$1 && wait_sync lvm $LVX_VG/$1; }
check "LVM2 makes both VGs, mirrors m and n written, deactivated, -m +1 (its layers)" mk_both
check_eq "both VGs hold the layers" \
    "$(lvm lvs --noheadings -o devices $LVM_VG/m $LVX_VG/n | trim)" \
    "m_mimagetmp_2(0),m_mimage_2(0)
n_mimagetmp_2(0),n_mimage_2(0)"
R=lv_name,lv_attr,devices,mirror_log,convert_lv,lv_converting,lv_layout,lv_role
check_eq "lvx reports the inactive layers as LVM2" "$($LVX lvs -a -o $R $LVX_VG)" \
    "$(lvm lvs -a -o $R $LVX_VG)"

# ---- m: an inactive layer
ra=0 rb=0
# (LVM2's lvconvert VG/LV takes no --config: the wrapper lvm() is not used for it)
oa=$(lvm lvchange -ay --poll n $LVM_VG/m 2>&1 && command lvm lvconvert $LVM_VG/m 2>&1) || ra=$?
ob=$($LVX lvchange -ay --poll n $LVX_VG/m 2>&1 && $LVX lvconvert $LVX_VG/m 2>&1) || rb=$?
note "LVM2: $oa"
note "lvx: $ob"
# both stacked the layer; each poll ends with "Converted: 100.00%" and collapses it
# ("Logical volume VG/m converted."); progress lines before may differ
check_eq "m activated and polled: exit status, the poll's 100% line and the collapse as LVM2's" \
    "$rb $(grep -E 'Converted: 100.00%|converted\.$' <<<"${ob//$LVX_VG/VG}")" \
    "$ra $(grep -E 'Converted: 100.00%|converted\.$' <<<"${oa//$LVM_VG/VG}")"
check "both in sync" sync2 m
check_eq "m's metadata as LVM2's once collapsed" "$(meta $LVX $LVX_VG | sed -n '/^\t\tm/,/^\t\t}/p')" \
    "$(meta lvm $LVM_VG | sed -n '/^\t\tm/,/^\t\t}/p')"
check_eq "n is still LVM2's layer (only m was activated)" \
    "$($LVX lvs --noheadings -o devices $LVX_VG/n | trim)" "n_mimagetmp_2(0),n_mimage_2(0)"
check_eq "m's dm tables as LVM2's" "$(tables $LVX_VG | grep -- '-m')" "$(tables $LVM_VG | grep -- '-m')"
for k in 0 1 2; do
    check_eq "lvx's m_mimage_$k holds the data" "$(img_sum ${LVX_VG//-/--}-m_mimage_$k 16)" "$A"
done
check_eq "lvx's m reads it" "$(img_sum ${LVX_VG//-/--}-m 16)" "$A"

# ---- n: a layer LVM2 activated (its poll not run)
check "LVM2 activates n's layer in both VGs (--poll n)" sh -c \
    "lvm lvchange -ay --poll n $LVM_VG/n && lvm lvchange -ay --poll n $LVX_VG/n"
note "LVM2's tables of the layer: $(tables $LVX_VG | grep -- '-n')"
check "both in sync" sync2 n
R2=lv_name,lv_attr,copy_percent,devices,mirror_log,convert_lv,lv_converting
check_eq "lvx reports the active layer as LVM2" "$($LVX lvs -a -o $R2 $LVX_VG)" \
    "$(lvm lvs -a -o $R2 $LVX_VG)"
ra=0 rb=0
oa=$(command lvm lvconvert $LVM_VG/n 2>&1) || ra=$?
ob=$($LVX lvconvert $LVX_VG/n 2>&1) || rb=$?
note "LVM2: $oa"
note "lvx: $ob"
check_eq "lvconvert VG/n: exit status and output as LVM2's" "$rb ${ob//$LVX_VG/VG}" "$ra ${oa//$LVM_VG/VG}"
check_eq "metadata as LVM2's" "$(meta $LVX $LVX_VG)" "$(meta lvm $LVM_VG)"
check_eq "dm tables as LVM2's" "$(tables $LVX_VG)" "$(tables $LVM_VG)"
for k in 0 1 2; do
    check_eq "n_mimage_$k holds the data" "$(img_sum ${LVX_VG//-/--}-n_mimage_$k 8)" "$A8"
done
check "vgck of both" sh -c "lvm vgck $LVM_VG && lvm vgck $LVX_VG"
check "both deactivated" sh -c "lvm vgchange -an $LVM_VG >/dev/null && $LVX vgchange -an $LVX_VG >/dev/null"
guest_done
