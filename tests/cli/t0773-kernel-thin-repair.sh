#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0773-kernel-thin-repair: `lvconvert --repair` of a thin pool with damaged metadata in
# the kernel (dm backend) beside LVM2, inside a throw-away QEMU guest (kvm-dm-test)
# running tests/kernel/thin-repair.sh with the plain lvx binary and 4 virtio disks of
# 128 MiB: the refusals, the repair's output, exit status and metadata equal to LVM2's,
# the dm tables, the thin LVs' data after it, each tool activating the other's repaired
# pool.  The guest's TAP lines become this test's.  lvx before this change had no thin
# pool repair ("Command on LV ... does not accept LV type thinpool").
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips;
# LVX_KERNEL_TIMEOUT=SEC overrides the guest limit of 600 s).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test thin-repair.sh 4 128M 600
