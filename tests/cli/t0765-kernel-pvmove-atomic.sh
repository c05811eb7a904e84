#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0765-kernel-pvmove-atomic: pvmove --atomic of LVs active in the kernel's
# device-mapper (pvmove0 one mirror over pvmove0_mimage_0/1, activate/dm_pvmove.c), in a
# throw-away QEMU guest (kvm-dm-test; the host has no device-mapper): lvx's tables equal
# LVM2's for the same metadata, each tool finishes and aborts the other's atomic move,
# data intact (tests/kernel/pvmove-atomic.sh).
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test pvmove-atomic.sh 4 256M 600
