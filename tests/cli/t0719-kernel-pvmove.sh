#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0719-kernel-pvmove: pvmove of LVs active in the kernel's device-mapper (the dm
# backend's pvmove0 mirror, activate/dm_pvmove.c), in three throw-away QEMU guests
# (kvm-dm-test; the host has no device-mapper), each a script of tests/kernel/:
#
#   pvmove-tables.sh  4 disks: lvx's tables of a move equal LVM2's for the same metadata
#                     (a move lvx started, and LVM2's at its setup and after its first
#                     checkpoint); LVM2 reads (vgck, lvs) and finishes a move lvx started;
#                     lvx activates a VG with LVM2's move in progress and finishes it.
#   pvmove-fio.sh     8 disks: every PV of a 4-stripe LV with a mounted XFS moved to a new
#                     disk, one after another, while fio writes and verifies (crc32c).
#   pvmove-kill.sh    4 disks: moves SIGKILLed at random points and resumed, data
#                     checked each time; $LVX_PVMOVE_KILL_RUNS runs (default 3, what CI
#                     runs; the issue's demonstration is 10).
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

need_cmd fio
KERNEL_GUEST_MORE=1 kernel_guest_test pvmove-tables.sh 4 128M 600
echo "${LVX_PVMOVE_KILL_RUNS:-3}" >"$SCRATCH/kill-runs"
KERNEL_GUEST_MORE=1 kernel_guest_test pvmove-kill.sh 4 128M 600 --put "$SCRATCH/kill-runs:/t/kill-runs"
kernel_guest_test pvmove-fio.sh 8 96M 900 --put "$(type -P fio):/t/fio"
