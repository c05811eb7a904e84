#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0718-kernel-mirror: old-style mirror LVs (lvcreate --type mirror, the dm-mirror
# target with a disk or core log) made by lvx and by LVM2, side by side in the kernel.
# LVM2 makes mirrors only with device-mapper (the host has none: "Can't create mirror
# without using device-mapper kernel driver."), so the checks run inside a throw-away
# QEMU guest (kvm-dm-test: stock Debian kernel, the host's lvm/dmsetup) running
# tests/kernel/mirror.sh with the plain lvx binary ($LVX_PLAIN, built when missing) and
# 6 virtio disks of 128 MiB: creation output, metadata, placement, dm names/tables,
# reports, data both ways.  The guest's TAP lines become this test's.
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips;
# LVX_KERNEL_TIMEOUT=SEC overrides the guest limit of 900 s).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test mirror.sh 6 128M 900
