#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0703-kernel-snapshot-merge: lvconvert --merge of COW snapshots through the kernel device-mapper, next to LVM2.  The
# host kernel may lack device-mapper, so the checks run inside a throw-away QEMU
# guest (kvm-dm-test: stock Debian kernel, the host's lvm/dmsetup) running
# tests/kernel/snapshot-merge.sh with the plain lvx binary ($LVX_PLAIN, built when missing)
# and 4 virtio disks.  The guest's TAP lines become this test's.  Costs one guest
# boot and about 30-60 s of CPU under TCG.
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips;
# LVX_KERNEL_TIMEOUT=SEC overrides the guest limit of 600 s).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test snapshot-merge.sh 4 128M 600
