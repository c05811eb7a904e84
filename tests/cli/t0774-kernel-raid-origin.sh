#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0774-kernel-raid-origin: raid1 LVs as origins of COW snapshots in the kernel (dm
# backend) beside LVM2, inside a throw-away QEMU guest (kvm-dm-test) running
# tests/kernel/raid-origin.sh with the plain lvx binary and 6 virtio disks of 128 MiB:
# the snapshot, lv_attr, `lvconvert -m 2` and `-m 0` of the origin under its active
# snapshot (output, metadata, dm tables equal to LVM2's; data kept).  lvx before this
# change refused the snapshot ("lvx makes snapshots of linear, striped and mirror LVs
# only") and the conversions ("it is a sub-LV (origin)").
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips;
# LVX_KERNEL_TIMEOUT=SEC overrides the guest limit of 600 s).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test raid-origin.sh 6 128M 600
