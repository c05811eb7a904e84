#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0754-kernel-dm-watch-persist: the lvx daemon's watches of the dm backend's thin pools
# and snapshots are kept in its state file: a worker killed and started again watches
# the pool again (and grows it), a watched snapshot renamed stays watched under its new
# name, deactivation ends the watches.  Runs tests/kernel/dm-watch-persist.sh in a
# throw-away QEMU guest (kvm-dm-test) with 2 virtio disks; 1-3 min under TCG.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test dm-watch-persist.sh 2 512M 280
