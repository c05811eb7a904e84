#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0726-kernel-mirror-more: old-style mirrors in the dm backend beside LVM2, in a
# throw-away QEMU guest (tests/kernel/mirror-more.sh, 6 virtio disks of 64 MiB): a
# mirror with a mirrored log (tables, data, removal), lvextend of an active mirror, and
# lvconvert of active mirrors (-m0, linear -> 3 images, -m1) with the tables reloaded as
# LVM2's.  The guest's TAP lines become this test's.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test mirror-more.sh 6 64M 280
