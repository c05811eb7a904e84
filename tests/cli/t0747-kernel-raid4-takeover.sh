#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0747-kernel-raid4-takeover: lvconvert --type raid4|raid6_n_6|raid10 of striped, raid0
# and raid0_meta LVs and --type raid0|raid0_meta|striped back, made by lvx and by LVM2
# on twin VGs, side by side in the kernel (LVM2 converts only active LVs).  The checks
# run inside a throw-away QEMU guest (kvm-dm-test) running
# tests/kernel/dm-raid4-takeover.sh with the plain lvx binary ($LVX_PLAIN, built when
# missing) and 8 virtio disks of 64 MiB: output, layouts, metadata text and dm tables
# equal LVM2's after every step, the data written before reads back, the kernel's
# --syncaction check finds no mismatch in what lvx's tables made it build, LVM2
# activates and reads the result.  The guest's TAP lines become this test's.
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips;
# LVX_KERNEL_TIMEOUT=SEC overrides the guest limit of 300 s).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test dm-raid4-takeover.sh 8 64M 300 --put "$LVX_ROOT/tests/kernel/raid-twins.sh:/t/raid-twins.sh" \
    --put "$LVX_ROOT/tests/kernel/raid-takeover-lib.sh:/t/raid-takeover-lib.sh"
