#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0738-kernel-dm-monitor: the lvx daemon monitors thin pools and COW snapshots of the
# kernel (dm) backend as LVM2's dmeventd: a 32 MiB pool grows under a 48 MiB dd into a
# thin LV (dm table longer, data read back), --monitor n leaves a pool over its
# threshold alone and --monitor y takes it up again, an 8 MiB snapshot grows while its
# origin is rewritten and stays valid, deactivation ends the watch.  Runs
# tests/kernel/dm-monitor.sh in a throw-away QEMU guest (kvm-dm-test) with 2 virtio
# disks; 1-3 min of both cores under TCG.
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips;
# LVX_KERNEL_TIMEOUT=SEC overrides the guest limit of 300 s).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test dm-monitor.sh 2 512M 300
