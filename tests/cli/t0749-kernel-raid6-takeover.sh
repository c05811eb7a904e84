#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0749-kernel-raid6-takeover: lvconvert --type between RAID levels of LVs with rmeta:
# raid4/raid5_n/raid5 -> raid6 (a Q pair added) and back, raid1 of 2 images <-> raid5,
# made by lvx and by LVM2 on twin VGs of 5 PVs each, side by side in the kernel.  The
# checks run inside a throw-away QEMU guest (kvm-dm-test) running
# tests/kernel/dm-raid6-takeover.sh with the plain lvx binary ($LVX_PLAIN, built when
# missing) and 10 virtio disks of 64 MiB: output, layouts, metadata text and dm tables
# equal LVM2's after every step, the data written before reads back, the kernel's
# --syncaction check finds no mismatch in what lvx's tables made it build, LVM2
# activates and reads the result.  The guest's TAP lines become this test's.
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips;
# LVX_KERNEL_TIMEOUT=SEC overrides the guest limit of 300 s).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test dm-raid6-takeover.sh 10 64M 300 --put "$LVX_ROOT/tests/kernel/raid-twins.sh:/t/raid-twins.sh" \
    --put "$LVX_ROOT/tests/kernel/raid-takeover-lib.sh:/t/raid-takeover-lib.sh"
