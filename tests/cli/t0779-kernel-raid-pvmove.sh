#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0779-kernel-raid-pvmove: pvmove of an active raid1 LV (dm backend) beside LVM2, inside
# a throw-away QEMU guest (kvm-dm-test) running tests/kernel/raid-pvmove.sh with the
# plain lvx binary and 8 virtio disks of 64 MiB: the move (plain and --atomic of one
# image), LVM2's refusal of a move that would put two images on one PV, and
# `lvchange --syncaction check` of a raid1 under a COW snapshot.  lvx before this change
# refused the move of an active RAID LV (LVM2's pvmove-raid-segtypes failed at :41) and
# sent the check to the wrong device (lvchange-raid10/-raid456 under snapshot, :186).
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips;
# LVX_KERNEL_TIMEOUT=SEC overrides the guest limit of 600 s).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test raid-pvmove.sh 8 64M 600
