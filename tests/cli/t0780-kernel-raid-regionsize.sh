#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0780-kernel-raid-regionsize: `lvconvert -R SIZE` and `--type T -R SIZE` of raid1 and
# raid5 LVs (dm backend) beside LVM2, inside a throw-away QEMU guest (kvm-dm-test)
# running tests/kernel/raid-regionsize.sh with the plain lvx binary and 6 virtio disks
# of 64 MiB: output, exit status, metadata and dm tables equal LVM2's after every step
# (changes, the same size, answered n, too large, below the stripe size), data kept.
# lvx before this change printed "already has image count of 3" and kept the region
# size (LVM2's lvconvert-raid-regionsize failed at :32).
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips;
# LVX_KERNEL_TIMEOUT=SEC overrides the guest limit of 600 s).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test raid-regionsize.sh 6 64M 600
