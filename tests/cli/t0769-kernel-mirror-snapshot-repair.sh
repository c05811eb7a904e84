#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0769-kernel-mirror-snapshot-repair: `echo n | lvconvert --repair` of an active 4-image
# disk-log mirror that is the origin of a COW snapshot and lost two images' PVs (LVM2's
# lvconvert-repair-snapshot.sh, vgreduce-removemissing-snapshot.sh), in the kernel (dm
# backend) beside LVM2, inside a throw-away QEMU guest (kvm-dm-test) running
# tests/kernel/mirror-snapshot-repair.sh with the plain lvx binary and 10 virtio disks of
# 128 MiB: exit status and output, the metadata, the dm tables, the origin's and the
# snapshot's data after the repair, then vgreduce --removemissing.  The guest's TAP lines
# become this test's.  lvx before this change refused the repair ("it is a sub-LV
# (origin)").
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips;
# LVX_KERNEL_TIMEOUT=SEC overrides the guest limit of 900 s).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test mirror-snapshot-repair.sh 10 128M 900
