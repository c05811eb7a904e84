#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0776-kernel-raid-reshape-keep: the steps of LVM2's lvconvert-raid-reshape.sh (an
# active raid5_ls -i3 LV: --stripesize 256K, --type raid5_n, raid5_n <-> striped,
# --stripes 5, --stripes 3 --force, --stripes 3; a raid10 -i2 -m1 LV's --stripesize
# 128K, 256K, then --stripes 2 freeing its reshape space) by LVM2 and by lvx on twin VGs in a
# throw-away QEMU guest (kvm-dm-test, 12 virtio disks of 64 MiB) running
# tests/kernel/raid-reshape-keep.sh: the same output, layout, metadata, tables and data
# after each.  LVX_GUEST_KEEP=DIR keeps the guest's record.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

KERNEL_GUEST_MORE=1 kernel_guest_test raid-reshape-keep.sh 12 64M 1200 --put "$LVX_ROOT/tests/kernel/raid-twins.sh:/t/raid-twins.sh"
if [[ -n ${LVX_GUEST_KEEP:-} ]]; then
    rm -rf "$LVX_GUEST_KEEP"
    cp -r "$KERNEL_OUT" "$LVX_GUEST_KEEP"
fi
done_testing
