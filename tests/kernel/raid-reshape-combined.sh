#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/raid-reshape-combined.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0781-kernel-raid-reshape-combined.sh), twin VGs of 5 disks with 512 KiB
# extents (tests/kernel/raid-twins.sh: "rl" changed by LVM2, "rx" by lvx): LVM2's
# lvconvert-raid-reshape-striped_to_linear.sh on an active LV holding 8 MiB of random
# data: striped -i4 -I32k -> raid5_n -R 128k, grown to 64 MiB, then stripes, stripe
# size and region size changed in one command (`--type raid5_n --stripes 1 -I 64k
# -R 1024k -f`: LVM2 keeps the stripe size of a 2-image LV, takes the region size),
# the freed images removed (`--stripes 1`, LVM2 prints no default stripe size); before
# that a region size under the stripe size refused (-I dropped with --stripes 1).  After each: the same exit status and output, the kernel's work
# runs to its end in both, then the same layout, metadata text, dm tables and data.
# What each tool wrote goes to /out/rec.
# shellcheck disable=SC2317,SC2086
# shellcheck source=tests/kernel/guest-tap.sh
. /t/guest-tap.sh
TWIN_DISKS=5
# shellcheck source=tests/kernel/raid-twins.sh
. /t/raid-twins.sh
R=/out/rec
mkdir -p $R
dd if=/dev/urandom of=/tmp/data.a bs=1M count=8 status=none
LVS=a

check "LVM2: pvcreate, vgcreate -s 512K rl" sh -c "lvm pvcreate -q $RL_DISKS && lvm vgcreate -q -s 512K rl $RL_DISKS"
check "lvx: pvcreate, vgcreate -s 512K rx" sh -c "$LVX pvcreate -q $RX_DISKS && $LVX vgcreate -q -s 512K rx $RX_DISKS"
check "striped -i4 -I32k -L16M: created by LVM2 on rl, by lvx on rx" sh -c \
    "lvm lvcreate -q -y -i4 -I32k -L16M -n a rl && $LVX lvcreate -q -y -i4 -I32k -L16M -n a rx"
for vg in rl rx; do dd if=/tmp/data.a of=/dev/mapper/$vg-a bs=1M oflag=direct status=none; done

twin_step raid5 raid5_n 4 5 --type raid5 -R 128k
twin lvresize "lvresize -y -L 64M" -y -L 64M V/a
check "grown: the kernel's resync runs to its end in both" idle
same grown
conv "--stripes 1 -I 64k -R 16k (region under stripe size 32k: -I dropped)" -y -f --type raid5_n --stripes 1 -I 64k -R 16k V/a
twin_step combined raid5_n 1 5 -f --type raid5_n --stripes 1 -I 64k -R 1024k
check_eq "combined: LVM2's stripesize, regionsize, reshape_len_le of rl" \
    "$(rl_field stripesize rl) $(rl_field regionsize rl) $(rl_field reshape_len_le rl)" "32.00k 1.00m 10"
twin_step removed raid5_n 1 2 --stripes 1
check "LVM2's vgck of rx passes" lvm vgck rx
dmesg | tail -n 80 >$R/dmesg
lvm vgchange -an rl rx >/dev/null 2>&1
guest_done
