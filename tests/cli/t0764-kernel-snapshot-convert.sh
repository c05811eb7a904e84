#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0764-kernel-snapshot-convert: lvconvert --splitsnapshot and lvconvert -s ORIGIN LV
# next to LVM2 with the kernel (the host side is t1042): messages, exit codes, metadata,
# dm names, UUIDs and tables equal to LVM2's, active and inactive, linear and thin
# origins; the data each state must show.  Runs tests/kernel/snapshot-convert.sh in a
# throw-away QEMU guest (kvm-dm-test) with 4 virtio disks; 1-3 min under TCG.
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips;
# LVX_KERNEL_TIMEOUT=SEC overrides the guest limit of 300 s).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test snapshot-convert.sh 4 256M 300
