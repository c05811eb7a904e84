#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0761-kernel-raid-stripes: `lvconvert --stripes N` adding stripes to an active raid5
# raid6 and raid4 LV, by LVM2 and by lvx on twin VGs in a throw-away QEMU guest (kvm-dm-test,
# 12 virtio disks of 64 MiB) running tests/kernel/raid-stripes.sh: the same output,
# metadata, tables and new size after the kernel's reshape, the data intact, and the
# same tables when each tool activates the reshaped LV again.  LVX_GUEST_KEEP=DIR
# keeps the guest's record (metadata, tables, status of both VGs at each step).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

KERNEL_GUEST_MORE=1 kernel_guest_test raid-stripes.sh 12 64M 900 --put "$LVX_ROOT/tests/kernel/raid-twins.sh:/t/raid-twins.sh"
if [[ -n ${LVX_GUEST_KEEP:-} ]]; then
    rm -rf "$LVX_GUEST_KEEP"
    cp -r "$KERNEL_OUT" "$LVX_GUEST_KEEP"
fi
done_testing
