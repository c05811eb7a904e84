#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0778-kernel-raid-refresh: a raid1 leg that failed for a while and came back is taken
# back by `lvchange --refresh` / `vgchange --refresh` (dm backend) beside LVM2, inside a
# throw-away QEMU guest (kvm-dm-test) running tests/kernel/raid-refresh.sh with the
# plain lvx binary and 4 virtio disks of 64 MiB.  LVM2's refresh suspends and resumes
# the raid device even when its table stays; dm-raid retries failed legs on such a
# resume.  lvx before this change left the leg dead ('D', lv_health_status "refresh
# needed"): LVM2's lvchange-raid10 and lvchange-raid456 failed at lvchange-raid.sh:244.
# The same for a raid1 origin of a COW snapshot (its raid device is the -real layer).
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips;
# LVX_KERNEL_TIMEOUT=SEC overrides the guest limit of 600 s).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test raid-refresh.sh 4 64M 600
