#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0755-kernel-dm-events: the lvx daemon waits for the kernel's device-mapper events on
# the thin pools and snapshots it watches for the dm backend (a thin pool past its low
# water mark is grown at once, with a poll tick of 600 s) and reads no status of an
# idle watched device at its ticks.  Runs tests/kernel/dm-events.sh in a throw-away
# QEMU guest (kvm-dm-test) with 2 virtio disks; 1-3 min under TCG.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test dm-events.sh 2 512M 300
