#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/raid-reshape-keep.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0776-kernel-raid-reshape-keep.sh), twin VGs of 6 disks with 1 MiB extents
# (tests/kernel/raid-twins.sh: "rl" changed by LVM2, "rx" by lvx): the steps of LVM2's
# lvconvert-raid-reshape.sh on an active raid5_ls -i3 LV of 16 MiB holding 8 MiB of
# random data, each by LVM2 on rl and by lvx on rx: --stripesize 256K (reshape space
# allocated, the kernel's md reshapes), --type raid5_n (the space reused), then raid5_n
# -> striped (the space freed) -> raid5_n -> raid5_ls, --stripes 5, --stripes 3 --force
# and --stripes 3 (the freed images removed); then lvconvert-raid-takeover.sh's --type
# raid6 of a striped -i2 LV three times (raid5_n; a stripe added first; raid6_n_6); then
# a raid10 -i2 -m1 LV's stripe size changed twice and its reshape space freed.
# After each: the same exit status and
# output, the kernel's reshape runs to its end in both, then the same layout, metadata
# text, dm tables and data.  What each tool wrote (metadata, tables, status, lvs) goes
# to /out/rec.
# shellcheck disable=SC2317,SC2086
# shellcheck source=tests/kernel/guest-tap.sh
. /t/guest-tap.sh
TWIN_DISKS=6
# shellcheck source=tests/kernel/raid-twins.sh
. /t/raid-twins.sh
R=/out/rec
mkdir -p $R
dd if=/dev/urandom of=/tmp/data.a bs=1M count=8 status=none
LVS=a

check "LVM2: pvcreate, vgcreate -s 1M rl" sh -c "lvm pvcreate -q $RL_DISKS && lvm vgcreate -q -s 1M rl $RL_DISKS"
check "lvx: pvcreate, vgcreate -s 1M rx" sh -c "$LVX pvcreate -q $RX_DISKS && $LVX vgcreate -q -s 1M rx $RX_DISKS"
check "raid5_ls -i3 -L 16M: created by LVM2 on rl, by lvx on rx" sh -c \
    "lvm lvcreate -q -y --type raid5_ls -i3 -L 16M -n a rl && $LVX lvcreate -q -y --type raid5_ls -i3 -L 16M -n a rx"
check "both in sync" idle
for vg in rl rx; do dd if=/tmp/data.a of=/dev/mapper/$vg-a bs=1M oflag=direct status=none; done
record before

twin_step stripesize raid5_ls 3 4 --stripesize 256K
check_eq "stripesize: LVM2's stripesize of rl, reshape_len of rx" \
    "$(rl_field stripesize rl) $(rl_field reshape_len_le rx)" "256.00k $(rl_field reshape_len_le rl)"
twin_step raid5_n raid5_n 3 4 --type raid5_n
twin_step striped striped 3 3 --type striped
twin_step to-raid5_n raid5_n 3 4 --type raid5_n
twin_step raid5_ls raid5_ls 3 4 --type raid5_ls
twin_step stripes5 raid5_ls 5 6 --stripes 5
twin_step stripes3f raid5_ls 3 6 --stripes 3 --force
twin_step stripes3 raid5_ls 3 4 --stripes 3
check "LVM2's vgck of rx passes" lvm vgck rx
check "a removed (LVM2 rl, lvx rx)" sh -c "lvm lvremove -q -y rl/a && $LVX lvremove -q -y rx/a"

# lvconvert-raid-takeover.sh's raid6 of 2 stripes: striped -> raid5_n (2 stripes),
# then a stripe added first (raid5_n, 3 stripes: LVM2's interim reshape), then raid6_n_6
dd if=/dev/urandom of=/tmp/data.b bs=1M count=8 status=none
LVS=b
check "striped -i2 -L 8M: created by LVM2 on rl, by lvx on rx" sh -c \
    "lvm lvcreate -q -y --type striped -i2 -L 8M -n b rl && $LVX lvcreate -q -y --type striped -i2 -L 8M -n b rx"
for vg in rl rx; do dd if=/tmp/data.b of=/dev/mapper/$vg-b bs=1M oflag=direct status=none; done
twin_step to-raid5_n-2 raid5_n 2 3 --type raid6
twin_step stripe-first raid5_n 3 4 --type raid6
twin_step to-raid6 raid6_n_6 3 5 --type raid6
check "LVM2's vgck of rx passes (takeover)" lvm vgck rx

# raid10 -i2 -m1 -I64k: --stripesize 128K (reshape space allocated: LVM2 loads it
# without raid10_copies; the kernel's md moves the data behind the space), --stripesize
# 256K (the space reused, the kernel's data goes back in front), --stripes 2 (nothing
# to change: the space freed, "data_offset 0" loaded first)
dd if=/dev/urandom of=/tmp/data.c bs=1M count=8 status=none
LVS=c
check "raid10 -i2 -m1 -I64k -L 16M: created by LVM2 on rl, by lvx on rx" sh -c \
    "lvm lvcreate -q -y --type raid10 -i2 -m1 -I64k -L 16M -n c rl && $LVX lvcreate -q -y --type raid10 -i2 -m1 -I64k -L 16M -n c rx"
check "both in sync (raid10)" idle
for vg in rl rx; do dd if=/tmp/data.c of=/dev/mapper/$vg-c bs=1M oflag=direct status=none; done
twin_step r10-128k raid10 2 4 --stripesize 128K
check_eq "r10-128k: LVM2's stripesize, reshape_len_le, data_offset of rx" \
    "$(lvm lvs --noheadings -o stripesize,reshape_len_le,data_offset rx/c | trim)" "128.00k42048"
twin_step r10-256k raid10 2 4 --stripesize 256K
twin_step r10-free raid10 2 4 --stripes 2
check_eq "r10-free: LVM2's reshape_len_le, lv_size of rx" \
    "$(lvm lvs --noheadings --units m -o reshape_len_le,lv_size rx/c | trim)" "016.00m"
check "LVM2's vgck of rx passes (raid10)" lvm vgck rx
dmesg | tail -n 80 >$R/dmesg
lvm vgchange -an rl rx >/dev/null 2>&1
guest_done
