#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0771-kernel-thin-merge-sysinit: LVM2's thin-vglock with the kernel: a thin merge that
# waits (origin open at lvconvert --merge) is done in the kernel alone by vgchange -ay
# --sysinit (the origin's table maps the snapshot's thin device, lvs shows the
# snapshot's segment fields -- thin_id -- for the origin as LVM2's lvs does, the pool's
# transaction_id unchanged) and
# finished in the metadata by vgchange --refresh; a refresh of the open origin keeps
# the merge waiting, one after it is let go merges and finishes; LVM2 activates the
# result.  Runs tests/kernel/thin-merge-sysinit.sh in a throw-away QEMU guest
# (kvm-dm-test) with 2 virtio disks; 1-3 min under TCG.  The user-space backend's
# side is t1056.
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips;
# LVX_KERNEL_TIMEOUT=SEC overrides the guest limit of 300 s).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test thin-merge-sysinit.sh 2 64M 300
