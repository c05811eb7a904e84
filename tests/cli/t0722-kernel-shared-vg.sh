#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0722-kernel-shared-vg: LVs of a shared VG (lock_type sanlock) activated through the
# kernel device-mapper, their leases held by the lvx daemon as lvmlockd holds them for
# LVM2.  Inside a kvm-dm-test guest (tests/kernel/shared-vg.sh): two sanlock daemons
# (the host's /usr/sbin/sanlock, no watchdog, one with its own SANLOCK_RUN_DIR) stand
# for two hosts; lvx on host A activates with the dm backend (-aey, -asy, -an,
# vgchange), host B joins the lockspace with lvx and holds the LV's lease with
# `sanlock command` (refusal, no dm device made); SIGKILL of the daemon's worker frees
# the lease.
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips;
# LVX_KERNEL_TIMEOUT=SEC overrides the guest limit of 300 s).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

sanlock=$(command -v sanlock 2>/dev/null) || skip_all "no sanlock"
client=$(readlink -f /usr/lib/x86_64-linux-gnu/libsanlock_client.so.1 2>/dev/null) ||
    skip_all "no libsanlock_client.so.1"
[[ -f $client ]] || skip_all "no libsanlock_client.so.1"
# the lvx daemon (the leases' holder) mounts FUSE (built into the guest kernel; --load
# for kernels where it is a module); the library goes to its real path: a --put under
# /lib would replace the guest's /lib symlink (and its modules) with a directory
kernel_guest_test shared-vg.sh 2 512M 300 --modules fuse --load fuse \
    --put "$sanlock:/usr/sbin/sanlock" \
    --put "$client:/usr/lib/x86_64-linux-gnu/libsanlock_client.so.1"
