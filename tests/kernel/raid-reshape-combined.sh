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
# that a region size under the stripe size refused (-I dropped with --stripes 1).  Then
# on all 20 disks, LVM2 first, lvx second on the same disks: a raid10 of 4 stripes
# (from striped -i4 -I256k) given 10 stripes and a 64 KiB stripe size (8 -> 20 images;
# lvconvert-raid-reshape.sh :229), then made striped: output, report, metadata, tables
# and data equal.  After each: the same exit status and output, the kernel's work
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
check "rl and rx removed" sh -c "lvm vgremove -q -ff rl rx && lvm pvremove -q $RL_DISKS $RX_DISKS"

# lvconvert-raid-reshape.sh :224-233 on 20 disks, first by LVM2, then by lvx on the same
# disks (VG rten, 1 MiB extents): striped -i4 -I256k -> raid10, --stripes 10 --stripesize
# 64K (8 -> 20 images), then striped; output, metadata, tables, data compared
ALL=$(echo /dev/vd?)
dd if=/dev/urandom of=/tmp/data.m bs=1M count=16 status=none
r10idle() {
    local i
    dm_settle idle rten
    for i in $(seq 1 240); do
        [ "$(lvm lvs --noheadings -o raid_sync_action,sync_percent rten/m 2>/dev/null | trim)" = idle100.00 ] && return 0
        sleep 1
    done
    return 1
}
r10run() {      # r10run TOOL TAG: the steps by TOOL, what it printed and wrote to /tmp/TAG.*
    local t=$1 g=$2
    $t pvcreate -q $ALL >/dev/null 2>&1 && $t vgcreate -q -s 1M rten $ALL >/dev/null 2>&1 &&
        $t lvcreate -q -y -i4 -I256k -L16M -n m rten >/dev/null 2>&1 || return 1
    dd if=/tmp/data.m of=/dev/mapper/rten-m bs=1M oflag=direct status=none
    $t lvconvert -y --type raid10 rten/m >/dev/null 2>&1 && r10idle || return 1
    { $t lvconvert -y --type raid10 --stripes 10 --stripesize 64K rten/m 2>&1; echo "rc=$?"; } |
        grep -v -e 'NOT backed up' >/tmp/$g.out
    meta rten >/tmp/$g.meta; tables rten >/tmp/$g.tables; layout rten >/tmp/$g.layout
    lvm lvs --noheadings -o lv_size,data_stripes,stripes,stripesize,reshape_len_le rten/m | sed 's/^ *//; s/  */ /g' >/tmp/$g.lvs
    r10idle || return 1
    cmp -s <(dd if=/dev/mapper/rten-m bs=1M count=16 iflag=direct status=none) /tmp/data.m &&
        echo same >/tmp/$g.data
    { $t lvconvert -y --type striped rten/m 2>&1; echo "rc=$?"; } | grep -v -e 'NOT backed up' >>/tmp/$g.out
    meta rten >/tmp/$g.smeta; tables rten >/tmp/$g.stables
    cmp -s <(dd if=/dev/mapper/rten-m bs=1M count=16 iflag=direct status=none) /tmp/data.m &&
        echo same >>/tmp/$g.data
    $t vgremove -q -ff rten >/dev/null 2>&1 && $t pvremove -q $ALL >/dev/null 2>&1
}
check "raid10 8 -> 20 images, then striped: LVM2's run" r10run lvm l
check "... lvx's run on the same disks" r10run $LVX x
cp /tmp/l.* /tmp/x.* $R/ 2>/dev/null
check_eq "raid10 --stripes 10 --stripesize 64K, then striped: lvx says what LVM2 says" "$(cat /tmp/x.out)" "$(cat /tmp/l.out)"
check_eq "... after the reshape: LVM2's report of lvx's LV (size, data_stripes, stripes, stripesize, reshape_len_le) equals LVM2's" \
    "$(cat /tmp/x.lvs)" "$(cat /tmp/l.lvs)"
check_eq "... which is 40.00m 10 20 64.00k 20" "$(cat /tmp/l.lvs)" "40.00m 10 20 64.00k 20"
check_match "... LVM2's metadata holds the reshape" "$(cat /tmp/l.meta)" 'type = "raid10+RESHAPE+RESHAPE_DATA_OFFSET"'
check_eq "... lvx's metadata text equals LVM2's" "$(cat /tmp/x.meta)" "$(cat /tmp/l.meta)"
check_eq "... lvx's dm tables equal LVM2's" "$(cat /tmp/x.tables)" "$(cat /tmp/l.tables)"
check_eq "... lvx's layout equals LVM2's" "$(cat /tmp/x.layout)" "$(cat /tmp/l.layout)"
check_eq "... striped: lvx's metadata text and tables equal LVM2's" "$(cat /tmp/x.smeta /tmp/x.stables)" \
    "$(cat /tmp/l.smeta /tmp/l.stables)"
check_eq "... the data intact after the reshape and after the takeover (LVM2, lvx)" \
    "$(tr '\n' ' ' 2>/dev/null </tmp/l.data)/$(tr '\n' ' ' 2>/dev/null </tmp/x.data)" "same same /same same "
dmesg | tail -n 80 >$R/dmesg
guest_done
