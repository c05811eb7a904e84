#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0700-kernel-dm: activation through the kernel device-mapper, next to LVM2.  The
# host kernel may lack device-mapper, so the checks run inside a throw-away QEMU
# guest (kvm-dm-test: stock Debian kernel, the host's lvm/dmsetup/mkfs.xfs) running
# tests/kernel/dm-activation.sh with the plain lvx binary ($LVX_PLAIN, built when
# missing) and 10 virtio disks.  The guest's TAP lines become this test's.
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips;
# LVX_KERNEL_TIMEOUT=SEC overrides the guest limit of 900 s).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

# xfs_growfs is not in kvm-dm-test's base image
puts=()
growfs=$(command -v xfs_growfs 2>/dev/null) && puts+=(--put "$growfs")
kernel_guest_test dm-activation.sh 10 512M 900 "${puts[@]}"
