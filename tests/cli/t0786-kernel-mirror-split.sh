#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0786-kernel-mirror-split: lvconvert --splitmirrors N (N > 1) of active old-style
# mirrors, lvx beside LVM2 2.03.16 in the kernel (LVM2 splits only active, in-sync
# mirrors: device-mapper needed, the host has none).  A throw-away QEMU guest
# (kvm-dm-test) runs tests/kernel/mirror-split.sh over 10 virtio disks of 64 MiB:
# output, exit codes, metadata, dm names and tables equal LVM2's, the data kept.
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test mirror-split.sh 10 64M 600
