#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0789-kernel-raid-small-diffs: small RAID/mirror differences from LVM2 (t1101 has the
# user backend's side), lvx's dm backend beside LVM2 inside a throw-away QEMU guest
# (kvm-dm-test) running tests/kernel/raid-small-diffs.sh with the plain lvx binary and 6
# virtio disks of 64 MiB: lvcreate --type mirror -m1 -l 100%FREE on 3 and on 2 PVs (lvx
# refused it: "Insufficient suitable allocatable extents"), lvs -o data_offset,
# new_data_offset,reshape_len_le of raid5/raid1/raid4 LVs (lvx printed blanks), and
# lvconvert -y --type raid1 of an active linear origin ("it is a sub-LV (origin)").
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips;
# LVX_KERNEL_TIMEOUT=SEC overrides the guest limit of 600 s).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test raid-small-diffs.sh 6 64M 600
