#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/dm-raid-takeover.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0744-kernel-raid-takeover.sh) with 8 virtio disks, lvx at /t/lvx and the
# host's LVM2/dmsetup.  Prints TAP (also to /out/result.tap when /out is shared).
#
#   vda-vdd  VG "rl": LVs converted by LVM2
#   vde-vdh  VG "rx": the same LVs, the same conversions, by lvx (dm backend)
#
# The takeovers that add or drop parity or mirror images, made by each tool on its own
# VG on active LVs holding data: raid0 -> raid5_n -> raid0 and striped -> raid10 ->
# striped.  After each: output and exit code, layout, metadata text (ids and times
# aside) and dm tables of lvx equal LVM2's, the data written before reads back; the
# kernel's `--syncaction check` finds no mismatch in the parity and mirrors lvx's
# tables made it build.  The question unanswered as LVM2's.  At the end LVM2's vgck
# accepts lvx's VG and LVM2 activates it and reads the data.
# (raid4, raid6 -> raid5_n, PV lists, refusals: dm-raid4-takeover.sh.)
# shellcheck disable=SC2317,SC2086  # functions called through check(); lists split on purpose
# shellcheck source=tests/kernel/guest-tap.sh
. /t/guest-tap.sh
# shellcheck source=tests/kernel/raid-twins.sh
. /t/raid-twins.sh
# shellcheck source=tests/kernel/raid-takeover-lib.sh
. /t/raid-takeover-lib.sh

both_create "--type raid0 -i3 -L 12m -n r" --type raid0 -i3 -L 12m -n r
both_create "-i2 -L 8m -n s (striped)" -i2 -L 8m -n s
LVS="r s"
for lv in $LVS; do fill $lv; done
same "striped and raid0 LVs"

conv "raid0 -> raid5_n unanswered (no -y)" --type raid5_n V/r
step "raid0 -> raid5_n (a parity image added)" --type raid5_n V/r
nomismatch r "raid5_n made of raid0"
step "raid5_n -> raid0 (the parity image dropped)" --type raid0 V/r
step "striped -> raid10 (a mirror of each stripe)" --type raid10 V/s
nomismatch s "raid10 made of striped"
step "raid10 -> striped" --type striped V/s
the_end

guest_done
