#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0740-kernel-sparse: sparse snapshots (lvcreate --type snapshot -V) next to LVM2 with
# the kernel (LVM2 cannot make snapshots without device-mapper; the host side is t0986):
# messages, exit codes, metadata, dm names, UUIDs and tables (zero target under the
# _vorigin) equal to LVM2's; data read back; each tool activates the other's; lvremove
# takes the _vorigin along.  Runs tests/kernel/sparse.sh in a throw-away QEMU guest
# (kvm-dm-test) with 4 virtio disks; about 30 LVM2/lvx commands, 1-3 min under TCG.
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips;
# LVX_KERNEL_TIMEOUT=SEC overrides the guest limit of 300 s).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test sparse.sh 4 256M 300
