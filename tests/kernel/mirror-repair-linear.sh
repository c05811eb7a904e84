#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/mirror-repair-linear.sh - runs INSIDE a kvm-dm-test guest (a part of
# tests/cli/t0760-kernel-mirror-repair.sh's guest, tests/kernel/guest-parts.sh) with 10
# virtio disks, lvx at /t/lvx and the host's LVM2/dmsetup.  Prints TAP.
# lvconvert -y --repair of an ACTIVE 3-image disk-log mirror in the kernel that lost two
# of its images' PVs, with allocation/mirror_logs_require_separate_pvs = 1 (as LVM2's
# lvconvert-repair-replace.sh), both tools:
#
#   vda-vde  VG "lvm-ml": LVM2
#   vdf-vdj  VG "lvx-ml": lvx
#
# Images on the first three PVs, the log on the fourth, the fifth free; the first two
# PVs' labels wiped while the VG is inactive, the VG activated with --activationmode
# partial, then repaired: the survivor is linear for a moment, three images and a log on
# a PV of its own do not fit, so both tools print LVM2's allocator lines, make 2 images
# and say "Failed to replace 1 of 3 images", and LVM2 polls the new mirror ("Converted:
# 100.00%").  Checks: exit status and output (progress lines below 100% and the missing
# device's warnings aside), metadata, dm tables, the data on both images.
# shellcheck disable=SC2086
. /t/guest-tap.sh

LVM_VG=lvm-ml
LVX_VG=lvx-ml
. /t/mirror-lost.sh
# (one --config: LVM2 takes it once; guest-tap.sh's lvm() gives its own)
SEP=(--config 'devices { hints = "none" } allocation { mirror_logs_require_separate_pvs = 1 }')
mirror_lost 8 0 1
repair_both "lvconvert -y --repair with separate log PVs (2 images on PVs 2 and 3, the log on PV 4)" \
    "${SEP[@]}" -y --repair
for k in 0 1; do
    check_eq "lvx's m_mimage_$k holds the data" "$(img_sum ${LVX_VG//-/--}-m_mimage_$k)" "$A"
done
check "both deactivated" sh -c "lvm vgchange -an $LVM_VG >/dev/null 2>&1; $LVX vgchange -an $LVX_VG >/dev/null"
guest_done
