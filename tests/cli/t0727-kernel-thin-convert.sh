#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0727-kernel-thin-convert: lvconvert --thinpool / --type thin-pool next to LVM2 with
# the kernel (LVM2 cannot convert without device-mapper, so the twin comparison is
# here; the host side is t0696): output, exit codes and metadata (sub-LVs, pmspare,
# placement, also of a pool whose data spans two PVs) equal to LVM2's; each tool
# activates the other's converted pool and reads the other's thin LV byte for byte;
# a corrupted _tmeta superblock refused by both alike.  Runs tests/kernel/thin-convert.sh
# in a throw-away QEMU guest (kvm-dm-test) with 4 virtio disks; about 25 LVM2/lvx
# commands, 2-4 min of both cores under TCG.
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips;
# LVX_KERNEL_TIMEOUT=SEC overrides the guest limit of 300 s).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test thin-convert.sh 4 256M 300
