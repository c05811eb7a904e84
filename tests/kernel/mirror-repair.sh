#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/mirror-repair.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0760-kernel-mirror-repair.sh) with 10 virtio disks, lvx at /t/lvx and the
# host's LVM2/dmsetup.  Prints TAP.  lvconvert -y --repair of an ACTIVE 3-image disk-log
# mirror in the kernel (dm backend) that lost an image's PV, both tools:
#
#   vda-vde  VG "lvm-mr": LVM2 (its temporary resync layer, polled and collapsed)
#   vdf-vdj  VG "lvx-mr": lvx (the LV deactivated for the change and activated again)
#
# Images on the first three PVs, the log on the fourth, the fifth free; the second PV's
# label is wiped while the VG is inactive (a lost disk), the VG activated with
# --activationmode partial, then repaired (not written while degraded: the kernel holds
# such writes for dmeventd, which the guest does not run).  Checks: exit status and output (its poll's progress lines below 100% aside: their number is timing)
# (LVM2's warnings about the missing device aside), the metadata text once LVM2's poll
# is done, the dm tables, every image's device holding the data.
# shellcheck disable=SC2086
. /t/guest-tap.sh

LVM_VG=lvm-mr
LVX_VG=lvx-mr
. /t/mirror-lost.sh
mirror_lost 16 1
note "LVM2: $oa"
note "lvx: $ob"
# no write while degraded: the kernel's mirror (handle_errors) holds writes after a
# leg fails until dmeventd reconfigures it, and the guest runs no dmeventd
C=$A
repair_both "lvconvert -y --repair of the active mirror (the new image placed and named alike, the log kept)" \
    --config 'devices { hints = "none" }' -y --repair
for k in 0 2 3; do
    check_eq "lvx's m_mimage_$k holds the data" "$(img_sum ${LVX_VG//-/--}-m_mimage_$k)" "$C"
done
check_eq "lvx's m reads it" "$(dd if=/dev/$LVX_VG/m bs=1M iflag=direct status=none | sha256sum | cut -d' ' -f1)" "$C"
check "both deactivated" sh -c "lvm vgchange -an $LVM_VG >/dev/null 2>&1; $LVX vgchange -an $LVX_VG >/dev/null"
guest_done
