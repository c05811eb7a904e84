#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0784-kernel-thin-pool-sub-takeover: a live thin pool's striped _tdata taken over to
# raid10 and back, and the repair of a raid1 _tmeta, next to LVM2 with the kernel
# (LVM2's lvconvert-raid-takeover-thin.sh and lvconvert-repair-thin-raid.sh).  Runs
# tests/kernel/thin-pool-sub-takeover.sh in a throw-away QEMU guest (kvm-dm-test) with 8
# sparse 128M virtio disks.
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips;
# LVX_KERNEL_TIMEOUT=SEC overrides the guest limit of 400 s).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test thin-pool-sub-takeover.sh 8 128M 400
