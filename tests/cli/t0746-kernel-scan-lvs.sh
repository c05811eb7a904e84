#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0746-kernel-scan-lvs: devices/scan_lvs with the kernel next to LVM2 (the user-space
# backend's side is t0992): LVs refused as PVs with scan_lvs 0, a VG stacked on an LV
# with 1 (dm tables, data through both levels), filters by the LV's /dev/VG/LV and
# /dev/mapper names, the lower LV in use while the upper VG is active; every command's
# output and exit status equal to LVM2's.  Runs tests/kernel/scan-lvs.sh in a
# throw-away QEMU guest (kvm-dm-test) with 4 virtio disks; 1-3 min under TCG.
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips;
# LVX_KERNEL_TIMEOUT=SEC overrides the guest limit of 300 s).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test scan-lvs.sh 4 256M 300
