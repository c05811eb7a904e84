#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0763-kernel-vgsplit-thin: vgsplit and vgmerge of a VG with thin pools (LVM2's test
# vgsplit-thin.sh, first layout) with the kernel: an active pool refused as LVM2 does;
# lvx's split equal to LVM2's (output, metadata of both VGs); after lvx's split LVM2
# and lvx's dm backend activate the pools of both VGs and read the thin LVs, the COW
# snapshot and the thin LV over its external origin as lvx wrote them; the same after
# lvx's vgmerge.  Runs tests/kernel/vgsplit-thin.sh in a throw-away QEMU guest
# (kvm-dm-test) with 5 virtio disks; 1-3 min under TCG.  The host side (LVM2's
# refusals, the spare, layout 2) is t1041.
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips;
# LVX_KERNEL_TIMEOUT=SEC overrides the guest limit of 300 s).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test vgsplit-thin.sh 5 64M 300
