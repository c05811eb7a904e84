#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0772-kernel-thin-pool-on-raid: a thin pool whose data and metadata are raid1 LVs
# (lvconvert --thinpool of a raid1 LV with a raid1 --poolmetadata, LVM2's
# pvmove-thin-segtypes.sh:59), next to LVM2 with the kernel: lvs -a, the metadata, the
# dm tables, names and UUIDs, and pvmove (plain and --atomic) of it equal to LVM2's.
# Runs tests/kernel/thin-pool-on-raid.sh in a throw-away QEMU guest (kvm-dm-test) with 6
# sparse 256M virtio disks.
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips;
# LVX_KERNEL_TIMEOUT=SEC overrides the guest limit of 400 s).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test thin-pool-on-raid.sh 6 256M 400
