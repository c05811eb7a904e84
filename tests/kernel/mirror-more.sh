#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/mirror-more.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0726-kernel-mirror-more.sh) with 6 virtio disks, lvx at /t/lvx and the
# host's LVM2/dmsetup.  Prints TAP.  Old-style mirrors, the dm backend, both tools side
# by side (vda-vdc: VG "lvm-mm" by LVM2, vdd-vdf: VG "lvx-mm" by lvx, the same command
# lines):
#   - lvcreate --mirrorlog mirrored (global/support_mirrored_mirror_log=1): output,
#     metadata, dm devices and tables (the log's own mirror table) equal LVM2's, the
#     data on every image; lvremove takes every device away;
#   - lvextend of an active mirror: tables reloaded as LVM2's;
#   - lvconvert of active mirrors: -m0 (the table reloaded, the sub-LV devices gone),
#     linear -> 3-image mirror (-m2 --type mirror -i 1, synced by the kernel), -m1:
#     outputs, metadata and tables equal, the data kept;
#   - lvcreate -s of an active mirror (LVM2's listings line 79): -real is the mirror,
#     deactivated and activated again with its snapshot, the snapshot removed.
# shellcheck disable=SC2086
. /t/guest-tap.sh

LVM_VG=lvm-mm
LVX_VG=lvx-mm
PVMAP="s/ $(devnum /dev/vdd) / $(devnum /dev/vda) /g;s/ $(devnum /dev/vde) / $(devnum /dev/vdb) /g;"
PVMAP+="s/ $(devnum /dev/vdf) / $(devnum /dev/vdc) /g;"
dm_of() {
    dmsetup info -c --noheadings --separator ' ' -o name,uuid,attr | grep "^${1//-/--}-" | sort |
        sed -E "s/^${1//-/--}-/VG-/; s/ LVM-[A-Za-z0-9]{64}/ LVM-U/"
}
wait_sync() {  # wait_sync VG LV: Cpy%Sync 100 (at most 120 s)
    local t
    for ((t = 0; t < 240; t++)); do
        [[ $(lvm lvs --noheadings -o copy_percent "$1/$2" 2>/dev/null | trim) == 100.00 ]] && return
        sleep 0.5
    done
}
same_state() {  # same_state DESC: metadata, dm devices, tables equal
    check_eq "$1: metadata equal" "$(meta $LVX $LVX_VG)" "$(meta lvm $LVM_VG)"
    check_eq "$1: dm devices equal" "$(dm_of $LVX_VG)" "$(dm_of $LVM_VG)"
    check_eq "$1: dm tables equal" "$(tables $LVX_VG)" "$(tables $LVM_VG)"
}
S="global/support_mirrored_mirror_log=1"
dd if=/dev/urandom of=/tmp/A bs=1M count=8 2>/dev/null

check "LVM2 makes lvm-mm, lvx makes lvx-mm" sh -c \
    "lvm pvcreate -q /dev/vda /dev/vdb /dev/vdc && lvm vgcreate -q lvm-mm /dev/vda /dev/vdb /dev/vdc &&
     $LVX pvcreate -q /dev/vdd /dev/vde /dev/vdf && $LVX vgcreate -q lvx-mm /dev/vdd /dev/vde /dev/vdf"

# ---------------------------------------------------------------- mirrored log
both "lvcreate --mirrorlog mirrored" lvcreate --config "$S" --type mirror -m1 -L 8m \
    --mirrorlog mirrored -n ml VG
wait_sync $LVM_VG ml
wait_sync $LVX_VG ml
same_state "mirrored log"
note "$(tables $LVX_VG)"
for vg in $LVM_VG $LVX_VG; do
    dd if=/tmp/A of=/dev/$vg/ml bs=1M oflag=direct 2>/dev/null
    check "$vg: both images of ml hold the data" sh -c \
        "cmp /tmp/A /dev/mapper/${vg//-/--}-ml_mimage_0 && cmp /tmp/A /dev/mapper/${vg//-/--}-ml_mimage_1"
done
check_eq "lvs -a of the mirrored log: lvx equals LVM2" \
    "$($LVX lvs -a --noheadings -o lv_name,lv_attr,devices,mirror_log $LVX_VG 2>&1 | sed "s/$LVX_VG/VG/g")" \
    "$(lvm lvs -a --noheadings -o lv_name,lv_attr,devices,mirror_log $LVM_VG 2>&1 | sed "s/$LVM_VG/VG/g")"
both "lvremove of a mirror with a mirrored log" lvremove -f VG/ml
check_eq "no device of either VG left" "$(dmsetup ls | grep -E '^lv[mx]--mm-' || true)" ""

# ---------------------------------------------------------------- active resize and convert
both "lvcreate --type mirror -m1 (active)" lvcreate --type mirror -m1 -L 8m -n m1 VG
wait_sync $LVM_VG m1
wait_sync $LVX_VG m1
for vg in $LVM_VG $LVX_VG; do dd if=/tmp/A of=/dev/$vg/m1 bs=1M oflag=direct 2>/dev/null; done
both "lvextend of an active mirror" lvextend -L+4m VG/m1
wait_sync $LVM_VG m1
wait_sync $LVX_VG m1
same_state "lvextend of an active mirror"
both "lvconvert -m0 of an active mirror" lvconvert -y -m0 VG/m1
same_state "lvconvert -m0 of an active mirror"
both "lvconvert -m2 --type mirror -i 1 of an active linear LV" \
    lvconvert -y -m2 --type mirror -i 1 VG/m1
wait_sync $LVM_VG m1
wait_sync $LVX_VG m1
same_state "lvconvert -m2 of an active linear LV"
for vg in $LVM_VG $LVX_VG; do
    check "$vg: every image of m1 holds the data after the conversions" sh -c \
        "for i in 0 1 2; do cmp -n 8388608 /tmp/A /dev/mapper/${vg//-/--}-m1_mimage_\$i || exit 1; done"
done
both "lvconvert -m1 of an active 3-image mirror" lvconvert -y -m1 VG/m1
same_state "lvconvert -m1 of an active 3-image mirror"
check "$LVX_VG/m1 still holds the data" cmp -n 8388608 /tmp/A /dev/$LVX_VG/m1
both "lvcreate -l2 -s of an active mirror" lvcreate -l2 -s -n snap VG/m1
same_state "a snapshot of a mirror"
check "$LVX_VG/snap reads the mirror's data" cmp -n 8388608 /tmp/A /dev/$LVX_VG/snap
both "vgchange -an of a mirror with a snapshot" vgchange -an VG
check_eq "no device of either VG left after it" "$(dmsetup ls | grep -E '^lv[mx]--mm-' || true)" ""
both "vgchange -ay of a mirror with a snapshot" vgchange -ay VG
same_state "a snapshot of a mirror activated again"
both "lvremove of the mirror's snapshot" lvremove -f VG/snap
same_state "the snapshot removed"
both "vgchange -an" vgchange -an VG
check_eq "no device of either VG left at the end" "$(dmsetup ls | grep -E '^lv[mx]--mm-' || true)" ""
guest_done
