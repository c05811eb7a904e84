#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0792-kernel-mirror-fault-policy: the lvx daemon handles a failed leg of a mirror or
# RAID LV that the kernel runs (dm backend, monitored) as LVM2's dmeventd does: on
# dm-mirror's / dm-raid's event it runs `lvx lvconvert --repair --use-policies`, which
# reloads the LV live (the mirror suspended without flushing: the writes it held since
# the failure go on).  A 2-leg and a 3-leg mirror (remove policy), a 3-leg mirror
# (allocate: LVM2's resync layer) and a raid1 (raid_fault_policy allocate), each with
# a writer at work when a PV (a dm linear slice) is switched to the error target: the
# writer ends, the data reads back from the LV and every leg, and the metadata, dm
# tables and command output equal LVM2's for the same repair run by hand on a twin VG
# (the guest runs no dmeventd).  Runs tests/kernel/mirror-fault.sh in a throw-away
# QEMU guest (kvm-dm-test) with 2 virtio disks.
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips;
# LVX_KERNEL_TIMEOUT=SEC overrides the guest limit of 600 s).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test mirror-fault.sh 2 640M 600
