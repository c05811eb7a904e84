#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0762-kernel-thin-crop: a thin pool's _tmeta table against lvm.conf's
# allocation/thin_pool_crop_metadata, and thin LVs with a persistent minor, next to LVM2
# with the kernel (LVM2's thin-16g.sh and lvcreate-thin.sh:235; the host side is t1040):
# the dm table of _tmeta all of a 16G LV, cut to 33161216 sectors with the setting (also
# after re-activation), all again after lvresize without it; output and metadata equal
# to LVM2's; lvcreate --minor / lvchange --persistent y --minor of a thin LV give its
# device that minor.  Runs tests/kernel/thin-crop.sh in a throw-away QEMU guest
# (kvm-dm-test) with 4 sparse 24G virtio disks; about 40 LVM2/lvx commands.
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips;
# LVX_KERNEL_TIMEOUT=SEC overrides the guest limit of 300 s).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test thin-crop.sh 4 24G 300
