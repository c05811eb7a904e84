#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0790-kernel-mirror-layer-add: `lvconvert -m +1 -b -i +30` of a logged mirror ACTIVE in
# the kernel (dm backend) writes LVM2's resync layer (NAME_mimagetmp_N) live, beside
# LVM2 on a twin VG, inside a throw-away QEMU guest running
# tests/kernel/mirror-layer-add.sh with the plain lvx binary and 10 virtio disks of 64 MiB:
# output, dm tables, metadata and lvs -a while layered as LVM2's, a second -m+1 refused
# alike, the layer's log dropped and added again, an ext4 mounted across the conversion,
# the detached poller, the foreground `lvconvert VG/LV` collapsing it (tables, metadata, every image's data); a core-log
# mirror given --mirrorlog disk with its new image (the layer on the new log).
# The guest's TAP lines become this test's.
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips;
# LVX_KERNEL_TIMEOUT=SEC overrides the guest limit of 600 s).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test mirror-layer-add.sh 10 64M 600
