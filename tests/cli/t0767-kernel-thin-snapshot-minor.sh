#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0767-kernel-thin-snapshot-minor: a persistent minor on a thin LV that is the origin of
# a COW snapshot, and on a COW snapshot, next to LVM2 with the kernel: the minor goes to
# the LV's top device (the origin's snapshot-origin device, the snapshot's snapshot
# device; -real and -cow get the kernel's), as LVM2's dev_manager.c, also after
# vgchange -an/-ay and lvchange -My --minor of the active origin.  Runs
# tests/kernel/thin-snapshot-minor.sh in a throw-away QEMU guest (kvm-dm-test) with 2
# sparse 256M virtio disks; about 30 LVM2/lvx commands.
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips;
# LVX_KERNEL_TIMEOUT=SEC overrides the guest limit of 300 s).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test thin-snapshot-minor.sh 2 256M 300
