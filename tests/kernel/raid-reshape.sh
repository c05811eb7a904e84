#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/raid-reshape.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0756-kernel-raid-reshape.sh), 4 virtio disks in VG "rl": a raid5 LV (-i3,
# 12 MiB of random data) that LVM2 reshapes in the kernel (--type raid5_rs) while both
# tools are asked for a reshape the VG has no room for (stripes added with another
# stripe size: --stripes 4 --stripesize 128k, before and after LVM2's): lvx
# refuses as LVM2 does (exit 5, the same last line), nothing changed; after
# LVM2's reshape (the kernel's md done) the data is intact, lvx's report of the LV
# (segtype, stripes, stripe size, reshape space, sizes) equals LVM2's, lvx's activation
# of the reshaped LV (deactivated) ends as LVM2's does (same exit status, tables, data),
# and LVM2's vgck passes.
# What LVM2 wrote at each step (metadata, its -vvvv output, tables, status, lvs) goes to
# /out/rec for the record.
# shellcheck disable=SC2317,SC2086
# shellcheck source=tests/kernel/guest-tap.sh
. /t/guest-tap.sh
# shellcheck source=tests/kernel/raid-twins.sh
. /t/raid-twins.sh
R=/out/rec
mkdir -p $R
FIELDS=lv_name,segtype,stripes,stripesize,reshape_len_le,lv_size
rep() { $1 lvs -a --noheadings --separator ' ' -o $FIELDS rl 2>/dev/null | sed 's/^ *//'; }
sums() { dd if=/dev/mapper/rl-a bs=1M count=12 iflag=direct status=none | sha256sum; }
record() {     # record NAME: metadata, tables, status, LVM2's report
    lvm vgcfgbackup -f $R/$1.vg rl >/dev/null 2>&1
    dmsetup table | grep '^rl-' >$R/$1.table
    dmsetup status | grep '^rl-' >$R/$1.status
    lvm lvs -a -o+reshape_len_le,data_offset,new_data_offset,raid_sync_action,sync_percent,stripesize rl >$R/$1.lvs 2>&1
}
wait_reshape() {
    local i
    for i in $(seq 1 240); do
        [ "$(lvm lvs --noheadings -o raid_sync_action,sync_percent rl/a 2>/dev/null | trim)" = idle100.00 ] && return 0
        [ $i = 2 ] && record "$1-during"
        sleep 1
    done
    return 1
}

refuse() {     # refuse DESC ARGS: lvconvert ARGS rl/a refused by LVM2 and lvx alike
    local m0 t0 out lout rc=0 lrc=0 d=$1
    shift
    m0=$(meta rl); t0=$(tables rl)
    lout=$(lvm lvconvert -y "$@" rl/a 2>&1) || lrc=$?
    out=$($LVX lvconvert -y "$@" rl/a 2>&1) || rc=$?
    check_eq "$d: lvx refuses the reshape of the active LV as LVM2 (exit 5, last line)" \
        "$rc $(echo "$out" | tail -n1 | sed 's/^ *//')" \
        "5 $(echo "$lout" | tail -n1 | sed 's/^ *//')"
    note "LVM2: exit $lrc"
    check_eq "... the metadata unchanged" "$(meta rl)" "$m0"
    check_eq "... the dm tables unchanged" "$(tables rl)" "$t0"
}

check "LVM2: pvcreate, vgcreate rl, lvcreate raid5 -i3 -L 12m a" sh -c \
    "lvm pvcreate -q $RL_DISKS && lvm vgcreate -q rl $RL_DISKS && lvm lvcreate -q -y --type raid5 -i3 -L 12m -n a rl"
check "a in sync" wait_sync rl
dd if=/dev/urandom of=/tmp/data bs=1M count=12 status=none
check "12 MiB written to a" dd if=/tmp/data of=/dev/mapper/rl-a bs=1M oflag=direct status=none
want=$(sha256sum </tmp/data)
record before
refuse "--stripes 4 --stripesize 128k" --stripes 4 --stripesize 128k

lvm lvconvert -y -vvvv --type raid5_rs rl/a >$R/conv1.out 2>$R/conv1.err
echo "exit $?" >>$R/conv1.out
record conv1
check "LVM2's reshape to raid5_rs runs in the kernel to its end" wait_reshape conv1
record conv1-done
check_eq "the data intact after LVM2's reshape" "$(sums)" "$want"
check_eq "lvx's report of the reshaped LV equals LVM2's" "$(rep $LVX)" "$(rep lvm)"
refuse "--stripes 4 --stripesize 128k" --stripes 4 --stripesize 128k

# This kernel's dm-raid may refuse the table of a reshaped LV at activation (Debian's
# 6.1: LVM2's own "raid5_rs 3 128 region_size 4096 4 ..." fails with EINVAL): lvx's
# activation must end as LVM2's does, and where LVM2's works give its tables.
check "LVM2 deactivates the reshaped LV" lvm lvchange -an rl/a
lrc=0
lvm lvchange -ay -vvvv rl/a 2>$R/act.err || lrc=$?
note "LVM2's activation of the reshaped LV: exit $lrc"
t0=$(tables rl); s0=$(sums)
record lvm-activated
lvm lvchange -an rl/a >/dev/null 2>&1
xrc=0
$LVX lvchange -ay rl/a >$R/lvx-act.out 2>&1 || xrc=$?
record lvx-activated
check_eq "lvx's activation of the reshaped LV ends as LVM2's (exit status)" "$xrc" "$lrc"
check_eq "... with the tables LVM2's activation gave it" "$(tables rl)" "$t0"
check_eq "... the same data" "$(sums)" "$s0"
if [ $lrc = 0 ]; then check_eq "... intact" "$s0" "$want"; fi
$LVX lvchange -an rl/a >/dev/null 2>&1
check "LVM2's vgck passes" lvm vgck rl
dmesg | tail -n 60 >$R/dmesg
lvm vgchange -an rl >/dev/null 2>&1
guest_done
