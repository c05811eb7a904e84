#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/thin-repair.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0773-kernel-thin-repair.sh) with 4 virtio disks, lvx at /t/lvx and the
# host's LVM2/dmsetup/thin-provisioning-tools.  Prints TAP.  `lvconvert --repair` of a
# thin pool with damaged metadata (LVM2's lvconvert-repair-thin.sh), both tools:
#
#   vda-vdb  VG "lvm-rp": made, damaged and repaired by LVM2
#   vdc-vdd  VG "lvx-rp": the same command lines through lvx
#
# The damage, on each side with that side's tool: the pool's metadata swapped into a
# plain LV, one byte of its metadata space map's index block flipped (thin_check fails,
# thin_repair rebuilds the space maps from the mappings), swapped back.  Checks: the
# pool's activation refused alike; the repair refused alike while a thin LV is active;
# the repair's output, exit status and metadata (names, flags, segments: the spare's
# extents become the _tmeta, the old _tmeta the visible pool_meta0, a new spare) equal
# LVM2's; the dm tables after activation equal; both thin LVs read the data written
# before the damage; each tool activates the other's repaired pool and reads it.
# shellcheck disable=SC2086
. /t/guest-tap.sh

LVM_VG=lvm-rp
LVX_VG=lvx-rp
PVMAP="s/ $(devnum /dev/vdc) / $(devnum /dev/vda) /g;s/ $(devnum /dev/vdd) / $(devnum /dev/vdb) /g;"

for p in A B; do dd if=/dev/urandom of=/tmp/$p bs=1M count=8 2>/dev/null; done
check "LVM2 makes lvm-rp, lvx makes lvx-rp" sh -c \
    "lvm pvcreate -q /dev/vda /dev/vdb && lvm vgcreate -q $LVM_VG /dev/vda /dev/vdb &&
     $LVX pvcreate -q /dev/vdc /dev/vdd && $LVX vgcreate -q $LVX_VG /dev/vdc /dev/vdd"
both "lvcreate -T -L20m -V10m -n lv1 VG/pool" lvcreate -T -L20m -V10m -n lv1 VG/pool
both "lvcreate -T -V10m -n lv2 VG/pool" lvcreate -T -V10m -n lv2 VG/pool
both "lvcreate -L4m -n bad VG" lvcreate -L4m -n bad VG
for vg in $LVM_VG $LVX_VG; do
    check "$vg: A written to lv1, B to lv2" sh -c \
        "dd if=/tmp/A of=/dev/$vg/lv1 bs=1M oflag=direct 2>/dev/null &&
         dd if=/tmp/B of=/dev/$vg/lv2 bs=1M oflag=direct 2>/dev/null"
done
both "lvconvert --repair of the pool with its thin LVs active" lvconvert --repair VG/pool
both "vgchange -an VG" vgchange -an VG

flip() {  # flip DEV OFFSET: one byte changed
    local v
    v=$(dd if="$1" bs=1 skip="$2" count=1 2>/dev/null | od -An -tu1 | tr -d ' ')
    printf "\\$(printf %03o $((v ^ 255)))" | dd of="$1" bs=1 seek="$2" count=1 conv=notrunc 2>/dev/null
}
damage() {  # damage TOOL VG
    local index
    $1 lvconvert -q -y --thinpool $2/pool --poolmetadata $2/bad >/dev/null 2>&1 &&
        $1 lvchange -q -ay $2/bad >/dev/null 2>&1 || return 1
    index=$(dd if=/dev/$2/bad bs=1 skip=208 count=8 2>/dev/null | od -An -tu8 | tr -d ' ')
    flip /dev/$2/bad $((index * 4096 + 16))
    sync
    ! thin_check -q /dev/$2/bad || return 1
    $1 lvchange -q -an $2/bad >/dev/null 2>&1 &&
        $1 lvconvert -q -y --thinpool $2/pool --poolmetadata $2/bad >/dev/null 2>&1
}
check "LVM2 damages its pool's metadata (thin_check fails on it)" damage lvm $LVM_VG
check "lvx damages its pool's metadata the same way" damage $LVX $LVX_VG
refusal() {  # refusal TOOL VG: lvchange -ay VG/lv1's exit status and lines, the block
             # thin_check names aside (the kernel placed the two pools' blocks apart)
    local out rc=0
    out=$($1 lvchange -ay $2/lv1 2>&1) || rc=$?
    echo "$rc $out" | sed -E "s/\(block [0-9]+\)/(block N)/; s/$2/VG/g"
}
check_eq "lvchange -ay VG/lv1: refused (thin_check), lvx's exit status and output equal LVM2's" \
    "$(refusal $LVX $LVX_VG)" "$(refusal lvm $LVM_VG)"
both "lvconvert --repair VG/pool" lvconvert --repair VG/pool
check_eq "the metadata after the repair equals LVM2's" "$(meta $LVX $LVX_VG)" "$(meta lvm $LVM_VG)"
check_eq "... the LVs" "$($LVX lvs -a --noheadings -o lv_name $LVX_VG | trim | sort | xargs)" \
    "[lvol1_pmspare] [pool_tdata] [pool_tmeta] bad lv1 lv2 pool pool_meta0"
both "vgchange -ay VG" vgchange -ay VG
check_eq "the dm tables equal LVM2's" "$(tables $LVX_VG)" "$(tables $LVM_VG)"
for vg in $LVM_VG $LVX_VG; do
    check "$vg: lv1 reads A, lv2 reads B" sh -c "cmp -n 8388608 /tmp/A /dev/$vg/lv1 && cmp -n 8388608 /tmp/B /dev/$vg/lv2"
done
both "vgchange -an VG" vgchange -an VG
check "LVM2 activates lvx's repaired pool: lv1 reads A, lv2 reads B" sh -c \
    "lvm vgchange -q -ay $LVX_VG && cmp -n 8388608 /tmp/A /dev/$LVX_VG/lv1 && cmp -n 8388608 /tmp/B /dev/$LVX_VG/lv2 &&
     lvm vgchange -q -an $LVX_VG"
check "lvx activates LVM2's repaired pool: lv1 reads A, lv2 reads B" sh -c \
    "$LVX vgchange -q -ay $LVM_VG && cmp -n 8388608 /tmp/A /dev/$LVM_VG/lv1 && cmp -n 8388608 /tmp/B /dev/$LVM_VG/lv2 &&
     $LVX vgchange -q -an $LVM_VG"
check "pool_meta0 of lvx's side fails thin_check (the unrepaired metadata)" sh -c \
    "$LVX lvchange -q -ay $LVX_VG/pool_meta0 && ! thin_check -q /dev/$LVX_VG/pool_meta0;
     r=\$?; $LVX lvchange -q -an $LVX_VG/pool_meta0; exit \$r"
check "both VGs removed" sh -c "lvm vgremove -q -ff $LVM_VG && $LVX vgremove -q -ff $LVX_VG"
guest_done
