#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/user-raid-reshaping.sh - runs INSIDE a kvm-dm-test guest (started twice by
# tests/cli/t0791-kernel-user-raid-reshaping.sh) on 6 virtio disks kept on the host;
# /t/data/phase says which part:
#   1  LVM2 makes VG kr: raid5 r5 (-i3 -I 64k, 12 MiB) gets a fourth stripe
#      (lvconvert --stripes 4: forward, data from the reshape space in front to 0),
#      raid6 r6 (-i3 -I 64k, 12 MiB) a fourth, raid5 r5b (-i3 -I 64k, 12 MiB) another
#      stripe size (--stripesize 128k: backward, data from 0 into the space behind);
#      all written first (/out/ka_LV.bin), their reshapes throttled
#      (--maxrecoveryrate 64k) and stopped by deactivating kr once each superblock
#      records a position between the start and the end (a checkpoint).
#   2  (after lvx's daemon on the host served kr frozen and wrote /t/data/hx_LV.bin
#      over each LV's old size) LVM2 activates kr: the kernel goes on with each
#      reshape from the recorded position to its end; the daemon's bytes read back
#      (r5, when /t/data/done_r5 says lvx's daemon finished its reshape: in sync at
#      once, no resync); u5, made by the daemon, which started its reshape
#      (--stripes 4) and was stopped mid-way: the kernel finishes it and reads its bytes.
# Prints TAP (also to /out/result.tap).
# shellcheck disable=SC2046,SC2086
# shellcheck source=tests/kernel/guest-tap.sh
. /t/guest-tap.sh
R=/out/rec
mkdir -p $R
LVS="r5 r6 r5b"
# the reshape_position recorded in rmeta_0's superblock (hex; ffffffffffffffff: none)
sb_pos() {
    dd if=/dev/mapper/kr-$1_rmeta_0 bs=4096 count=1 iflag=direct status=none |
        od -A n -t x8 -j 64 -N 8 | tr -d ' '
}
sha() { sha256sum <"$1" | cut -d' ' -f1; }
head_sha() { dd if="$1" bs=1M count="$2" iflag=direct status=none | sha256sum | cut -d' ' -f1; }
record() {
    { dmsetup table; dmsetup status; } >$R/$1.dm 2>&1
    lvm lvs -a -o+segtype,stripes,stripesize,reshape_len_le,data_offset,new_data_offset,raid_sync_action,sync_percent,devices kr >$R/$1.lvs 2>&1
}
PHASE=$(cat /t/data/phase)

if [ "$PHASE" = 1 ]; then
    check "LVM2 makes VG kr on vda-vdf" sh -c "lvm pvcreate -q /dev/vd[a-f] >/dev/null && lvm vgcreate -q kr /dev/vd[a-f] >/dev/null"
    for spec in "r5 raid5 3 12" "r6 raid6 3 12" "r5b raid5 3 12"; do
        set -- $spec
        check "LVM2 lvcreate --type $2 -i$3 -I 64k -L $4m kr/$1" \
            lvm lvcreate -q -y --type $2 -i$3 -I 64k -L $4m -n $1 kr
        dmraid_wait_idle kr-$1
        dd if=/dev/urandom of=/out/ka_$1.bin bs=1M count=$4 status=none
        check "kr/$1: $4 MiB written through dm-raid" dd if=/out/ka_$1.bin of=/dev/kr/$1 bs=1M oflag=direct conv=fsync status=none
        check "kr/$1: reshape throttled (lvchange --maxrecoveryrate 64k)" lvm lvchange -q --maxrecoveryrate 64k kr/$1
    done
    record before
    # md throttles a sync only above speed_limit_min (1000 KiB/s by default)
    check "md's speed_limit_min 1 KiB/s" sh -c "echo 1 >/proc/sys/dev/raid/speed_limit_min"
    check "LVM2 lvconvert --stripes 4 kr/r5 (forward)" lvm lvconvert -y --stripes 4 kr/r5
    check "LVM2 lvconvert --stripes 4 kr/r6 (forward)" lvm lvconvert -y --stripes 4 kr/r6
    check "LVM2 lvconvert --stripesize 128k kr/r5b (backward)" lvm lvconvert -y --stripesize 128k kr/r5b
    # a checkpoint (md's 10 s) recorded in every superblock, the reshapes still running
    for _ in $(seq 240); do
        ok=1
        for lv in $LVS; do
            p=$(sb_pos $lv)       # past the start: 0 forward, the array's size backward
            { [ -z "$p" ] || [ "$p" = ffffffffffffffff ] || [ $((16#$p)) = 0 ] ||
                [ $((16#$p)) = 24576 ]; } && ok=0
        done
        echo "$(date +%s) $(for lv in $LVS; do echo "$lv $(sb_pos $lv) $(dmraid_status kr-$lv | cut -d' ' -f3,4)"; done | xargs)" >>$R/positions
        [ $ok = 1 ] && break
        sleep 0.5
    done
    record stopped
    for lv in $LVS; do
        set -- $(dmraid_status kr-$lv 2>/dev/null) - - - - - -
        check_eq "kr/$lv: reshaping when stopped, a position recorded ($* pos $(sb_pos $lv))" \
            "$4 $([ "${3%/*}" -lt "${3#*/}" ] && echo running)" "reshape running"
    done
    check "deactivate kr mid-reshape" lvm vgchange -an kr
else
    # a new guest's speed_limit_min (1000 KiB/s) is above the LVs' 64k: not throttled
    # u5: made by lvx's daemon, which started its reshape and was stopped mid-way
    [ -f /t/data/hx_u5.bin ] && LVS="$LVS u5"
    check "LVM2 activates kr (after lvx's daemon served the reshapes frozen)" lvm vgchange -ay kr
    if [ -f /t/data/done_r5 ]; then
        set -- $(dmraid_status kr-r5 2>/dev/null) - - - - - -
        check_eq "kr/r5 (finished by lvx's daemon): dm-raid takes it in sync at once ($*)" \
            "$(echo "$2" | tr -d A) $4" " idle"
    fi
    for lv in $LVS; do
        dmraid_wait_idle kr-$lv
        set -- $(dmraid_status kr-$lv 2>/dev/null) - - - - - -
        check_eq "kr/$lv: the kernel finished the reshape ($*)" "$(echo "$2" | tr -d A) $4" " idle"
        mb=$(($(stat -c %s /t/data/hx_$lv.bin) / 1048576))
        check_eq "kr/$lv: the kernel reads the daemon's bytes ($mb MiB)" \
            "$(head_sha /dev/kr/$lv $mb)" "$(sha /t/data/hx_$lv.bin)"
    done
    record after
    check "deactivate kr" lvm vgchange -an kr
fi
sync
guest_done
