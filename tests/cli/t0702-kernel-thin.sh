#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0702-kernel-thin: thin pools, thin LVs and thin snapshots through the kernel
# device-mapper, next to LVM2 (both directions, thin_check on lvx's pools).  The
# host kernel may lack device-mapper, so the checks run inside a throw-away QEMU
# guest (kvm-dm-test: stock Debian kernel, the host's lvm/dmsetup) running
# tests/kernel/thin.sh with the plain lvx binary ($LVX_PLAIN, built when missing)
# and 4 virtio disks.  The guest's TAP lines become this test's.  Costs one guest
# boot and about 2-4 min of both cores under TCG (about 45 LVM2/lvx commands).
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips;
# LVX_KERNEL_TIMEOUT=SEC overrides the guest limit of 900 s).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test thin.sh 4 256M 900
