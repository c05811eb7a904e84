#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0759-kernel-mirror-add: lvconvert -m +1 of an active disk-log mirror in the kernel
# (dm backend) beside LVM2, inside a throw-away QEMU guest (kvm-dm-test) running
# tests/kernel/mirror-add.sh with the plain lvx binary and 8 virtio disks of 128 MiB:
# exit status and output (LVM2's poll ends the same), the metadata once LVM2's poll has
# collapsed its resync layer, the dm tables, the data on every image.  Until this change
# lvx refused it (exit 5).  The guest's TAP lines become this test's.
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips;
# LVX_KERNEL_TIMEOUT=SEC overrides the guest limit of 900 s).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test mirror-add.sh 8 128M 900
