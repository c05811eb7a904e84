#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0760-kernel-mirror-repair: lvconvert -y --repair of an active 3-image disk-log mirror
# in the kernel (dm backend) that lost an image's PV, beside LVM2, inside a throw-away
# QEMU guest (kvm-dm-test) running tests/kernel/mirror-repair.sh with the plain lvx
# binary and 10 virtio disks of 128 MiB: exit status and output, the metadata once
# LVM2's poll has collapsed its resync layer (the new image's name and PV, the log
# kept), the dm tables, the data on every image.  The guest's TAP lines become this
# test's.  The same guest then runs tests/kernel/mirror-repair-linear.sh
# (guest-parts.sh: the disks blank again in between): two of three images lost, the log
# on a PV of its own (allocation/mirror_logs_require_separate_pvs = 1), the repair ends
# with 2 images as LVM2's.
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips;
# LVX_KERNEL_TIMEOUT=SEC overrides the guest limit of 900 s).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

parts=(mirror-repair.sh mirror-repair-linear.sh)
puts=(--put "$LVX_ROOT/tests/kernel/mirror-lost.sh:/t/mirror-lost.sh")
for p in "${parts[@]}"; do puts+=(--put "$LVX_ROOT/tests/kernel/$p:/t/$p"); done
kernel_guest_test guest-parts.sh 10 128M 900 --env "GUEST_PARTS=${parts[*]}" "${puts[@]}"
