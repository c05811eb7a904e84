#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/thin-convert.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0727-kernel-thin-convert.sh) with 4 virtio disks, lvx at /t/lvx and the
# host's LVM2/dmsetup/thin-provisioning-tools.  Prints TAP.  lvconvert to thin pools
# (LVM2 needs the kernel's thin-pool target for it, so the twin comparison is here):
#
#   vda-vdb  VG "lvm-tc": made and converted by LVM2
#   vdc-vdd  VG "lvx-tc": the same command lines through lvx
#
# Checks: lvconvert --thinpool / --type thin-pool (inactive and active LV, with
# --poolmetadata, -c/-Z/--discards), the metadata swap, and lvcreate -T of a pool whose
# data spans both PVs: output and exit codes equal LVM2's; the metadata text equal to
# LVM2's once ids/times are normalized (sub-LV names, sizes, pmspare, placement); LVM2
# with the kernel activates lvx's converted pool (thin_check included) and reads the
# bytes lvx wrote to a thin LV in it, lvx the other way round; a corrupted _tmeta
# superblock: both tools refuse the activation with the same words and exit code; lvx
# reports a thin LV with an external origin (made by LVM2) and that origin as LVM2.
# shellcheck disable=SC2086  # disk lists split on purpose
. /t/guest-tap.sh

LVM_VG=lvm-tc
LVX_VG=lvx-tc

dd if=/dev/urandom of=/tmp/A bs=1M count=8 2>/dev/null
dd if=/dev/urandom of=/tmp/B bs=1M count=8 2>/dev/null

check "LVM2 makes lvm-tc, lvx makes lvx-tc" sh -c \
    "lvm pvcreate -q /dev/vda /dev/vdb && lvm vgcreate -q lvm-tc /dev/vda /dev/vdb &&
     $LVX pvcreate -q /dev/vdc /dev/vdd && $LVX vgcreate -q lvx-tc /dev/vdc /dev/vdd"
# (lvcreate -an: lvx zeroes the LV's start without activation, LVM2 warns it did not;
# README "Where lvx deliberately differs")
check "both tools: lvcreate -an -L 40m -n data" sh -c \
    "lvm lvcreate -q -an -L 40m -n data lvm-tc && $LVX lvcreate -q -an -L 40m -n data lvx-tc"
both "lvconvert -y --thinpool VG/data (inactive)" lvconvert -y --thinpool VG/data
both "lvcreate -L 20m -n d2 (active)" lvcreate -L 20m -n d2 VG
both "lvconvert -y --type thin-pool -c 128k -Zn --discards nopassdown VG/d2 (active)" \
    lvconvert -y --type thin-pool -c 128k -Zn --discards nopassdown VG/d2
check_eq "the pool converted from an active LV is active again, as LVM2's" \
    "$($LVX lvs --noheadings -o lv_active lvx-tc/d2 | trim)" "$(lvm lvs --noheadings -o lv_active lvm-tc/d2 | trim)"
for tool in lvm $LVX; do
    vg=$LVM_VG
    [ "$tool" = lvm ] || vg=$LVX_VG
    $tool lvcreate -q -an -L 8m -n m3 $vg >/dev/null 2>&1
    $tool lvcreate -q -an -L 20m -n d3 $vg >/dev/null 2>&1
    $tool lvcreate -q -an -L 8m -n m4 $vg >/dev/null 2>&1
done
both "lvconvert -y --thinpool VG/d3 --poolmetadata VG/m3" lvconvert -y --thinpool VG/d3 --poolmetadata VG/m3
both "lvconvert -y --thinpool VG/d3 --poolmetadata m4 (swap)" lvconvert -y --thinpool VG/d3 --poolmetadata m4
both "lvcreate -T -L 300m VG/span (data over both PVs)" lvcreate -T -L 300m VG/span
check_eq "metadata of lvx's VG equals LVM2's (ids, times, hosts normalized)" \
    "$(meta $LVX lvx-tc)" "$(meta lvm lvm-tc)"

# ---------------------------------------------------------------- data across tools
check "lvx: thin LV t1 in the converted pool data, pattern A written" sh -c \
    "$LVX lvcreate -q -V 32m -T lvx-tc/data -n t1 && dd if=/tmp/A of=/dev/lvx-tc/t1 bs=1M oflag=direct 2>/dev/null"
check "LVM2: thin LV t1 in its converted pool data, pattern B written" sh -c \
    "lvm lvcreate -q -V 32m -T lvm-tc/data -n t1 && dd if=/tmp/B of=/dev/lvm-tc/t1 bs=1M oflag=direct 2>/dev/null"
check "both VGs deactivated by their own tool" sh -c "$LVX vgchange -an lvx-tc && lvm vgchange -an lvm-tc"
check "thin_check accepts lvx's converted pool (LVM2 activates the _tmeta alone)" sh -c \
    "lvm lvchange -ay -y lvx-tc/data_tmeta && thin_check /dev/lvx-tc/data_tmeta; rc=\$?; lvm lvchange -an lvx-tc/data_tmeta; exit \$rc"
check "LVM2 activates lvx's VG (thin_check of its pools), lvx LVM2's" sh -c \
    "lvm vgchange -ay lvx-tc && $LVX vgchange -ay lvm-tc"
check "LVM2 reads A from lvx's t1, lvx reads B from LVM2's t1" sh -c \
    "cmp -n 8388608 /tmp/A /dev/lvx-tc/t1 && cmp -n 8388608 /tmp/B /dev/lvm-tc/t1"
check "deactivated" sh -c "lvm vgchange -an lvx-tc && $LVX vgchange -an lvm-tc"

# ---------------------------------------------------------------- thin_check failure
corrupt() {  # corrupt VG: 8 bytes into the superblock of VG/data_tmeta (a copy kept)
    local d pe pes
    d=$(lvm lvs -a --noheadings -o devices "$1/data_tmeta" | trim)
    pe=${d#*(}; pe=${pe%)}; d=${d%(*}
    pes=$(lvm pvs --noheadings --units b --nosuffix -o pe_start "$d" | trim)
    echo "$d $((pes / 4096 + pe * 1024))" >/tmp/sb-$1
    dd if="$d" of=/tmp/sb-$1.img bs=4096 skip=$((pes / 4096 + pe * 1024)) count=1 2>/dev/null
    printf 'garbage!' | dd of="$d" bs=1 seek=$((pes + pe * 4194304 + 40)) conv=notrunc 2>/dev/null
}
restore() {
    local d b
    read -r d b </tmp/sb-$1
    dd if=/tmp/sb-$1.img of="$d" bs=4096 seek="$b" count=1 conv=notrunc 2>/dev/null
}
corrupt lvm-tc
corrupt lvx-tc
both "lvchange -ay VG/t1 with a corrupted _tmeta superblock: refused" lvchange -ay VG/t1
check_eq "... neither pool is active" \
    "$(dmsetup ls | grep -c -e '^lvx--tc-data' -e '^lvm--tc-data')" "0"
restore lvm-tc
restore lvx-tc
check "restored: lvx activates its t1 again and reads A" sh -c \
    "$LVX lvchange -ay lvx-tc/t1 && cmp -n 8388608 /tmp/A /dev/lvx-tc/t1 && $LVX vgchange -an lvx-tc"

# ---------------------------------------------------------------- external origin (LVM2 makes it)
check "LVM2: lvconvert --thin --thinpool lvm-tc/data --originname extorig lvm-tc/ext" sh -c \
    "lvm lvcreate -q -an -L 8m -n ext lvm-tc && lvm lvchange -q -pr lvm-tc/ext &&
     lvm lvconvert -y --thin --thinpool lvm-tc/data --originname extorig lvm-tc/ext"
EXT=lv_name,lv_attr,origin,origin_size,lv_role,lv_layout,pool_lv,lv_size,lv_ancestors,lv_descendants
check_eq "lvx reports LVM2's thin LV with an external origin and its origin as LVM2" \
    "$($LVX lvs -a --noheadings --separator , -o $EXT lvm-tc | trim)" \
    "$(lvm lvs -a --noheadings --separator , -o $EXT lvm-tc | trim)"
check "deactivated" lvm vgchange -an lvm-tc

guest_done
