#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0783-kernel-mirror-resync: lvchange --resync of an active disk-log mirror in the
# kernel (dm backend) beside LVM2, inside a throw-away QEMU guest (kvm-dm-test) running
# tests/kernel/mirror-resync.sh with the plain lvx binary and 6 virtio disks of 64 MiB:
# exit status and output, metadata and dm tables as LVM2's, the kernel copying every
# region again (an image overwritten behind the log holds image 0's data after).  Until
# this change lvx refused it ("does not accept LV type mirror", exit 5).  The guest's
# TAP lines become this test's.
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips;
# LVX_KERNEL_TIMEOUT=SEC overrides the guest limit of 600 s).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test mirror-resync.sh 6 64M 600
