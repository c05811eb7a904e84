#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0756-kernel-raid-reshape: LVM2's reshape of a raid5 LV in the kernel (--type
# raid5_rs) and lvx beside it, inside a throw-away QEMU guest (kvm-dm-test) running
# tests/kernel/raid-reshape.sh with the plain lvx binary and 4 virtio disks of 64 MiB:
# lvx refuses a reshape it does not make of the active LV (--stripes 4 --stripesize
# 128k: stripes added with another stripe size; exit 5, metadata and tables unchanged);
# after the reshape the data is intact, lvx's report equals LVM2's, and lvx's activation
# of the reshaped LV ends as LVM2's (in Debian's 6.1 kernel both fail: dm-raid refuses
# the table of a reshaped raid5_rs LV with EINVAL; where LVM2's works, the same tables).
# LVX_GUEST_KEEP=DIR keeps the guest's record of LVM2's steps (metadata, tables, -vvvv
# output) in DIR.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

KERNEL_GUEST_MORE=1 kernel_guest_test raid-reshape.sh 4 64M 600 --put "$LVX_ROOT/tests/kernel/raid-twins.sh:/t/raid-twins.sh"
if [[ -n ${LVX_GUEST_KEEP:-} ]]; then
    rm -rf "$LVX_GUEST_KEEP"
    cp -r "$KERNEL_OUT" "$LVX_GUEST_KEEP"
fi
done_testing
