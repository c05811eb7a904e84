#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0713-kernel-raid-more: lvconvert -m +N/-N, lvchange --rebuild/--resync and degraded
# activation of RAID LVs by lvx and by LVM2 on twin VGs, side by side in the kernel
# (tests/kernel/dm-raid-more.sh in a throw-away QEMU guest, 8 virtio disks of 64 MiB):
# layouts, metadata text and dm tables equal LVM2's after every step (degraded: the
# "-missing_0_0" error devices too), data intact.  The guest's TAP lines become this
# test's.
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips;
# LVX_KERNEL_TIMEOUT=SEC overrides the guest limit of 900 s).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test dm-raid-more.sh 8 64M 900 --put "$LVX_ROOT/tests/kernel/raid-twins.sh:/t/raid-twins.sh"
