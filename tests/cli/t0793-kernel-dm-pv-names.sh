#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0793-kernel-dm-pv-names: PVs on device-mapper devices that are not LVs (a dm linear
# device over a disk, as LUKS or multipath make one), lvx beside LVM2 inside a
# throw-away QEMU guest (kvm-dm-test) running tests/kernel/dm-pv-names.sh with the
# plain lvx binary and 2 virtio disks of 64 MiB: the PV named /dev/mapper/NAME, filters
# matching every name of the device (/dev/mapper/NAME, /dev/dm-N), and LVM2's
# preference among duplicates (used by an active LV, device size correct, dm device,
# seen first) with its warnings, and its refusal of duplicates in vgcreate/vgextend.
# lvx before this change said "No device found for /dev/mapper/xvda." with a filter
# accepting /dev/mapper/x*, named the PV /dev/dm-0, and preferred the disk under the dm
# device "because device was seen first".
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips;
# LVX_KERNEL_TIMEOUT=SEC overrides the guest limit of 300 s).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test dm-pv-names.sh 2 64M 300
