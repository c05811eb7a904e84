#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0710-kernel-raid: RAID LVs made by lvx and by LVM2, side by side in the kernel.
# LVM2 creates RAID LVs only with device-mapper (the host has none), so the checks
# run inside a throw-away QEMU guest (kvm-dm-test: stock Debian kernel with dm-raid,
# the host's lvm/dmsetup) running tests/kernel/dm-raid.sh with the plain lvx binary
# ($LVX_PLAIN, built when missing) and 10 virtio disks of 256 MiB: layouts and
# metadata, dm tables, names and UUIDs, sync, data both ways.  The guest's TAP lines
# become this test's.
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips;
# LVX_KERNEL_TIMEOUT=SEC overrides the guest limit of 1500 s).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test dm-raid.sh 10 256M 1500
