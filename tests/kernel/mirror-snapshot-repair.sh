#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/mirror-snapshot-repair.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0769-kernel-mirror-snapshot-repair.sh) with 10 virtio disks, lvx at /t/lvx
# and the host's LVM2/dmsetup.  Prints TAP.  `echo n | lvconvert --repair` of an ACTIVE
# 4-image disk-log mirror that is the origin of a COW snapshot and lost two images' PVs
# (LVM2's lvconvert-repair-snapshot.sh and vgreduce-removemissing-snapshot.sh), both tools:
#
#   vda-vde  VG "lvm-ms": LVM2
#   vdf-vdj  VG "lvx-ms": lvx (the origin and its snapshot deactivated for the change and
#            activated again)
#
# Images on the first four PVs, the log on the fifth; 16 MiB A written, the snapshot
# taken, 8 MiB B written over the origin's start; the second and fourth PVs' labels
# wiped while the VG is inactive, the VG activated with --activationmode partial, then
# repaired answering "n" (the failed images removed, none added).  Checks: exit status
# and output, the metadata, the dm tables, the origin's and the snapshot's data, then
# vgreduce --removemissing.  Before it: the partial tables.  The repair runs with each
# tool's snapshot held open (both reload live).
# shellcheck disable=SC2086
. /t/guest-tap.sh

LVM_VG=lvm-ms
LVX_VG=lvx-ms
pv_map a:f b:g c:h d:i e:j
side_by_side() {  # [IN=TEXT] side_by_side ARGS...: LVM2 on LVM_VG, lvx on LVX_VG ("VG" in
    # ARGS), TEXT on their stdin; sets ra/oa (LVM2) and rb/ob (lvx), notes the outputs
    ra=0 rb=0
    oa=$(lvm "${@//VG/$LVM_VG}" <<<"${IN:-}" 2>&1) || ra=$?
    ob=$($LVX "${@//VG/$LVX_VG}" <<<"${IN:-}" 2>&1) || rb=$?
    note "LVM2: $oa"
    note "lvx: $ob"
}
sum() { dd if="$1" bs=1M count=16 iflag=direct status=none | sha256sum | cut -d' ' -f1; }

dd if=/dev/urandom of=/tmp/A bs=1M count=16 2>/dev/null
dd if=/dev/urandom of=/tmp/B bs=1M count=8 2>/dev/null
cp /tmp/A /tmp/O && dd if=/tmp/B of=/tmp/O bs=1M conv=notrunc status=none
A=$(sha256sum </tmp/A | cut -d' ' -f1)
O=$(sha256sum </tmp/O | cut -d' ' -f1)

LVM_PVS="/dev/vda /dev/vdb /dev/vdc /dev/vdd /dev/vde"
LVX_PVS="/dev/vdf /dev/vdg /dev/vdh /dev/vdi /dev/vdj"
check "LVM2 makes lvm-ms, lvx makes lvx-ms (vgcreate on the disks)" sh -c \
    "lvm vgcreate -q $LVM_VG $LVM_PVS && $LVX vgcreate -q $LVX_VG $LVX_PVS"
check "lvcreate --type mirror -m3 by each tool: images on PVs 0-3, log on PV 4" sh -c \
    "lvm lvcreate -q --type mirror -m3 -L 16m -n 4way $LVM_VG $LVM_PVS:0 &&
     $LVX lvcreate -q --type mirror -m3 -L 16m -n 4way $LVX_VG $LVX_PVS:0"
sync_both() { wait_sync lvm $LVM_VG/4way && wait_sync lvm $LVX_VG/4way; }
check "both in sync" sync_both
check "16 MiB A written to each, a snapshot taken, 8 MiB B written over the origin" sh -c \
    "dd if=/tmp/A of=/dev/$LVM_VG/4way bs=1M oflag=direct status=none &&
     dd if=/tmp/A of=/dev/$LVX_VG/4way bs=1M oflag=direct status=none &&
     lvm lvcreate -q -s $LVM_VG/4way -L 16m -n snap /dev/vda &&
     $LVX lvcreate -q -s $LVX_VG/4way -L 16m -n snap /dev/vdf &&
     dd if=/tmp/B of=/dev/$LVM_VG/4way bs=1M oflag=direct status=none &&
     dd if=/tmp/B of=/dev/$LVX_VG/4way bs=1M oflag=direct status=none"
check "both deactivated, PV 1's and PV 3's labels wiped on each (lost disks)" sh -c \
    "lvm vgchange -an $LVM_VG >/dev/null && $LVX vgchange -an $LVX_VG >/dev/null &&
     for d in vdb vdd vdg vdi; do dd if=/dev/zero of=/dev/\$d bs=1M count=1 oflag=direct status=none || exit 1; done"
side_by_side vgchange -ay --activationmode partial VG
check_eq "vgchange -ay --activationmode partial: exit status as LVM2's" "$rb" "$ra"
check_eq "dm tables of the partial activation as LVM2's" "$(tables $LVX_VG)" "$(tables $LVM_VG)"
# both repair live (lvx took the origin and its snapshots down for the change before the
# live repair, and refused with the snapshot open): each snapshot held open meanwhile
exec 3</dev/$LVX_VG/snap 4</dev/$LVM_VG/snap
IN=n side_by_side lvconvert --repair VG/4way
exec 3<&- 4<&-
check_eq "echo n | lvconvert --repair of the active origin mirror: exit status and output as LVM2's" \
    "$rb $(quiet_missing <<<"${ob//$LVX_VG/VG}")" "$ra $(quiet_missing <<<"${oa//$LVM_VG/VG}")"
check_eq "metadata as LVM2's (mimage_1 and mimage_3 gone, the log and the snapshot kept)" \
    "$(meta $LVX $LVX_VG)" "$(meta lvm $LVM_VG)"
check_eq "dm tables as LVM2's" "$(tables $LVX_VG)" "$(tables $LVM_VG)"
check_eq "dm names and UUIDs as LVM2's" "$(dm_forms $LVX_VG)" "$(dm_forms $LVM_VG)"
check_eq "LVM2's origin reads A with B over its start" "$(sum /dev/$LVM_VG/4way)" "$O"
check_eq "lvx's origin reads A with B over its start" "$(sum /dev/$LVX_VG/4way)" "$O"
check_eq "LVM2's snapshot reads A" "$(sum /dev/$LVM_VG/snap)" "$A"
check_eq "lvx's snapshot reads A" "$(sum /dev/$LVX_VG/snap)" "$A"
for k in 0 2; do
    check_eq "lvx's 4way_mimage_$k holds the origin's data" \
        "$(sum /dev/mapper/${LVX_VG//-/--}-4way_mimage_$k)" "$O"
done
side_by_side vgreduce --removemissing VG
check_eq "vgreduce --removemissing: exit status and output as LVM2's" \
    "$rb $(quiet_missing <<<"${ob//$LVX_VG/VG}")" "$ra $(quiet_missing <<<"${oa//$LVM_VG/VG}")"
check_eq "... metadata as LVM2's" "$(meta $LVX $LVX_VG)" "$(meta lvm $LVM_VG)"
check_eq "... lvs -a -o +devices shows no unknown device (lvx)" \
    "$($LVX lvs -a -o +devices $LVX_VG 2>&1 | grep -c unknown)" "0"
check "both deactivated" sh -c "lvm vgchange -an $LVM_VG >/dev/null 2>&1; $LVX vgchange -an $LVX_VG >/dev/null"
guest_done
