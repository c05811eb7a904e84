#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/dm-raid6-takeover.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0749-kernel-raid6-takeover.sh), as dm-raid-takeover.sh but with 5 disks a
# VG (twin VGs rl by LVM2 and rx by lvx, TWIN_DISKS=5): the takeovers between RAID
# levels of LVs with rmeta: raid5_n -> raid6 (replaced by raid6_n_6, a Q pair added) ->
# raid5 (replaced by raid5_n); raid4 -> raid6_n_6 (through raid5_n: the parity pair
# moved to the end, the rmeta cleared) -> raid4; raid1 of 2 images -> raid5 -> raid1;
# raid5 (ls) -> raid6 (raid6_ls_6) -> raid5 (raid5_ls); the question unanswered.  After
# each: output, layout, metadata text, dm tables and data as LVM2's; the kernel's check
# finds no mismatch in what lvx's tables made it build; LVM2 reads the end.
# shellcheck disable=SC2317,SC2086  # functions called through check(); lists split on purpose
# shellcheck source=tests/kernel/guest-tap.sh
. /t/guest-tap.sh
TWIN_DISKS=5
# shellcheck source=tests/kernel/raid-twins.sh
. /t/raid-twins.sh
# shellcheck source=tests/kernel/raid-takeover-lib.sh
. /t/raid-takeover-lib.sh

both_create "--type raid5_n -i3 -L 12m -n a" --type raid5_n -i3 -L 12m -n a
both_create "--type raid4 -i3 -L 12m -n f" --type raid4 -i3 -L 12m -n f
both_create "--type raid1 -m1 -L 8m -n m" --type raid1 -m1 -L 8m -n m
both_create "--type raid5 -i3 -L 12m -n l" --type raid5 -i3 -L 12m -n l
LVS="a f m l"
for lv in $LVS; do fill $lv; done
check "all in sync" wait_sync rl rx
same "raid5_n, raid4, raid1 and raid5 LVs"

conv "raid5_n -> raid6 unanswered (no -y)" --type raid6 V/a
step "raid5_n -> raid6 (replaced by raid6_n_6)" --type raid6 V/a
nomismatch a "raid6_n_6 made of raid5_n"
step "raid6_n_6 -> raid5 (replaced by raid5_n)" --type raid5 V/a
step "raid4 -> raid6_n_6 (through raid5_n)" --type raid6_n_6 V/f
nomismatch f "raid6_n_6 made of raid4"
step "raid6_n_6 -> raid4" --type raid4 V/f
nomismatch f "raid4 made of raid6_n_6"
conv "raid1 -> raid5 unanswered (no -y)" --type raid5 V/m
step "raid1 -> raid5" --type raid5 V/m
nomismatch m "raid5 made of raid1"
step "raid5 of 2 images -> raid1" --type raid1 V/m
step "raid5 (ls) -> raid6 (replaced by raid6_ls_6)" --type raid6 V/l
nomismatch l "raid6_ls_6 made of raid5"
step "raid6_ls_6 -> raid5 (replaced by raid5_ls)" --type raid5 V/l
the_end

guest_done
