#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0781-kernel-raid-reshape-combined: stripes, stripe size and region size changed in
# one lvconvert of an active raid5_n LV (dm backend; LVM2's
# lvconvert-raid-reshape-striped_to_linear failed at :68 with lvx's "does not reshape
# yet" line), LVM2 and lvx side by side in a throw-away QEMU guest (kvm-dm-test)
# running tests/kernel/raid-reshape-combined.sh with the plain lvx binary and 20 virtio
# disks of 64 MiB (twin VGs on 10; then a raid10 reshape of 8 to 20 images by LVM2 and
# by lvx in turn on all 20, LVM2's lvconvert-raid-reshape :229): output, exit status,
# layout, metadata, dm tables and data equal LVM2's after every step.  LVX_GUEST_KEEP=DIR keeps what the guest recorded.
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

KERNEL_GUEST_MORE=1 kernel_guest_test raid-reshape-combined.sh 20 64M 900 --put "$LVX_ROOT/tests/kernel/raid-twins.sh:/t/raid-twins.sh"
if [[ -n ${LVX_GUEST_KEEP:-} ]]; then
    rm -rf "$LVX_GUEST_KEEP"
    cp -r "$KERNEL_OUT" "$LVX_GUEST_KEEP"
fi
done_testing
