#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0719-kernel-pvmove: pvmove of LVs active in the kernel's device-mapper (the dm
# backend's pvmove0 mirror, activate/dm_pvmove.c), in one throw-away QEMU guest
# (kvm-dm-test; the host has no device-mapper) with 8 disks of 128 MiB, three scripts of
# tests/kernel/ one after another (guest-parts.sh: the disks blank again between them,
# one check more for each: it ran to its end; one guest instead of three, 6-13 s of the
# guest lane less per guest saved):
#
#   pvmove-tables.sh  vda-vdd: lvx's tables of a move equal LVM2's for the same metadata
#                     (a move lvx started, and LVM2's at its setup and after its first
#                     checkpoint); LVM2 reads (vgck, lvs) and finishes a move lvx started;
#                     lvx activates a VG with LVM2's move in progress and finishes it.
#   pvmove-kill.sh    vda-vdc: moves SIGKILLed at random points and resumed, data
#                     checked each time; $LVX_PVMOVE_KILL_RUNS runs (default 3, what CI
#                     runs; the issue's demonstration is 10).
#   pvmove-fio.sh     vda-vdh: every PV of a 4-stripe LV with a mounted XFS moved to a new
#                     disk, one after another, while fio writes and verifies (crc32c).
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

need_cmd fio
echo "${LVX_PVMOVE_KILL_RUNS:-3}" >"$SCRATCH/kill-runs"
parts=(pvmove-tables.sh pvmove-kill.sh pvmove-fio.sh)
puts=()
for p in "${parts[@]}"; do puts+=(--put "$LVX_ROOT/tests/kernel/$p:/t/$p"); done
kernel_guest_test guest-parts.sh 8 128M 1200 --env "GUEST_PARTS=${parts[*]}" "${puts[@]}" \
    --put "$SCRATCH/kill-runs:/t/kill-runs" --put "$(type -P fio):/t/fio"
