#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0742-kernel-thin-cow: COW snapshots of thin LVs (lvcreate -s -L SIZE VG/THIN) next
# to LVM2 with the kernel (the host side is t0995): messages, exit codes, metadata, dm
# names, UUIDs and tables (snapshot-origin over the thin LV's -real) equal to LVM2's;
# the snapshot keeps the old data; each tool activates the other's and reads the same
# bytes; lvremove gives the origin its thin table back.  Runs tests/kernel/thin-cow.sh in
# a throw-away QEMU guest (kvm-dm-test) with 4 virtio disks; 1-3 min under TCG.
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips;
# LVX_KERNEL_TIMEOUT=SEC overrides the guest limit of 300 s).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test thin-cow.sh 4 256M 300
