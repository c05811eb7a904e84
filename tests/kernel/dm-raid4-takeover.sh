#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/dm-raid4-takeover.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0747-kernel-raid4-takeover.sh), as dm-raid-takeover.sh (twin VGs rl by
# LVM2 and rx by lvx, 4 disks each): raid0_meta -> raid6_n_6 of 2 stripes (LVM2 makes
# it raid5_n, with its warnings) -> raid0_meta (rmeta cleared) -> raid4 (the parity
# pair first, every pair renamed) -> raid0; raid0 -> raid10 on the PVs named ->
# striped (the new pairs on the PVs named, beside the rmeta there).  After
# each: output, layout, metadata text, dm tables and data as LVM2's; the kernel's
# check finds no mismatch in what lvx's tables made it build; LVM2 reads the end.
# shellcheck disable=SC2317,SC2086  # functions called through check(); lists split on purpose
# shellcheck source=tests/kernel/guest-tap.sh
. /t/guest-tap.sh
# shellcheck source=tests/kernel/raid-twins.sh
. /t/raid-twins.sh
# shellcheck source=tests/kernel/raid-takeover-lib.sh
. /t/raid-takeover-lib.sh

both_create "--type raid0_meta -i2 -L 8m -n c" --type raid0_meta -i2 -L 8m -n c
both_create "-i3 -L 12m -n r (striped)" -i3 -L 12m -n r
LVS="c r"
for lv in $LVS; do fill $lv; done
same "striped and raid0_meta LVs"

step "raid0_meta -> raid6_n_6 of 2 stripes (replaced by raid5_n)" --type raid6_n_6 V/c
step "raid5_n -> raid0_meta" --type raid0_meta V/c
step "raid0_meta -> raid4 (the parity pair first)" --type raid4 V/c
nomismatch c "raid4 made of raid0_meta"
step "raid4 -> raid0" --type raid0 V/c
step "raid0 -> raid10 with a PV list" --type raid10 V/c %2 %3
step "raid10 -> striped" --type striped V/c
the_end

guest_done
