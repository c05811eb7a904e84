#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0794-kernel-mirror-repair-suspend: lvx's live repair of a kernel mirror whose leg
# failed under a writer ends, twelve times in a row: the noflush suspend of the mirror
# is not interrupted after dm-mirror's presuspend (which it cannot undo) by the
# command's closed io_uring (dev/dm_ioctl.c issues suspends from a thread of their own
# with every signal blocked).  Runs tests/kernel/mirror-repair-suspend.sh in a
# throw-away QEMU guest (kvm-dm-test) with 1 virtio disk.
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips;
# LVX_KERNEL_TIMEOUT=SEC overrides the guest limit of 300 s).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test mirror-repair-suspend.sh 1 512M 300
