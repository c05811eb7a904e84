#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0775-kernel-raid-split: `lvconvert --splitmirrors N --name NEW`, `--splitmirrors 1
# --trackchanges` and `--merge VG/LV_rimage_N` of raid1 LVs in the kernel (dm backend)
# beside LVM2, inside a throw-away QEMU guest (kvm-dm-test) running
# tests/kernel/raid-split.sh with the plain lvx binary and 8 virtio disks of 64 MiB:
# output, exit status, metadata, seqno, dm tables and device names/UUIDs equal to
# LVM2's after each step (LVM2's lvconvert-raid.sh:124-170); the data of the split and
# tracked images.  lvx before this change did not know --splitmirrors (exit 3).
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips;
# LVX_KERNEL_TIMEOUT=SEC overrides the guest limit of 600 s).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test raid-split.sh 8 64M 600
