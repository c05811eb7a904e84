#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0777-kernel-raid-writemostly: lvchange --writemostly PV[:t|:n|:y] and --writebehind N
# of a raid1 LV in the kernel (dm backend) beside LVM2, inside a throw-away QEMU guest
# (kvm-dm-test) running tests/kernel/raid-writemostly.sh with the plain lvx binary and 4
# virtio disks of 64 MiB: output, exit status, metadata, dm tables ("write_mostly N",
# "max_write_behind N"), lv_attr and lv_health_status equal LVM2's.  lvx before this
# change refused the options ("unrecognized option '--writemostly'").
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips;
# LVX_KERNEL_TIMEOUT=SEC overrides the guest limit of 600 s).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test raid-writemostly.sh 4 64M 600
