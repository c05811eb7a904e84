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
#      records a position between the start and the end (a checkpoint); raid5 k4
#      (-i4 -I 64k, 16 MiB) loses a stripe (lvconvert --stripes 3 --force: backward),
#      stopped likewise (lvx's daemon continues it and runs the second command).
#   2  (after lvx's daemon on the host served kr frozen and wrote /t/data/hx_LV.bin
#      over each LV's old size) LVM2 activates kr: the kernel goes on with each
#      reshape from the recorded position to its end; the daemon's bytes read back
#      (r5, when /t/data/done_r5 says lvx's daemon finished its reshape: in sync at
#      once, no resync); u5, made by the daemon, which started its reshape
#      (--stripes 4) and was stopped mid-way: the kernel finishes it and reads its bytes;
#      (when /t/data/hx_t10.bin is there) the daemon's raid10 growths t10 (finished, its
#      new space resynced) and s10 (stopped mid-walk: s10 is activated first, throttled,
#      its superblock and bitmap recorded while the kernel reshapes), z10 (the daemon's
#      raid10 --stripesize 128k stopped mid-walk, backward), the daemon's
#      stripe removal d5 (first command only) and k4 (LVM2's removal the daemon ended,
#      both commands): t10, d5 and k4 must be taken in sync at once; the kernel reads
#      every LV's bytes; d5's superblocks as the kernel leaves them (/out/d5_sb.txt),
#      LVM2's second lvconvert --stripes 3 of d5 (refused: dm-raid shows 5 "A"); x5,
#      LVM2's own removal in the kernel, deactivated between its two commands: md's
#      superblocks (/out/d5_sb.txt) and the kernel's refusal to reload it (/out/x5.txt).
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
# sb_line LV-RMETA: its superblock's fields read from its PV (the sub-LV need not be
# active), offsets of docs/dm-formats.md §2/§3: devices position flags reshape(hex)
# delta_disks array_sectors data_offset new_data_offset events bm_sync_size
sb_line() {
    local r dev pe es ps
    r=$(lvm lvs -a --noheadings -o seg_pe_ranges kr/$1 2>/dev/null | trim)
    dev=${r%%:*} pe=${r#*:} pe=${pe%%-*}
    es=$(lvm vgs --noheadings --units s --nosuffix -o vg_extent_size kr 2>/dev/null | trim)
    ps=$(lvm pvs --noheadings --units s --nosuffix -o pe_start "$dev" 2>/dev/null | trim)
    sb_at "$dev" $((ps + pe * es))
}
sb_at() {  # sb_at DEV SECTOR: sb_line's fields of the superblock at SECTOR of DEV
    local f=/tmp/sb.bin
    dd if="$1" of=$f bs=512 skip="$2" count=16 iflag=direct status=none
    echo "devices=$(od -A n -t u4 -j 8 -N 4 $f | trim) position=$(od -A n -t d4 -j 12 -N 4 $f | trim)" \
        "flags=$(od -A n -t u4 -j 60 -N 4 $f | trim) reshape=$(od -A n -t x8 -j 64 -N 8 $f | trim)" \
        "delta_disks=$(od -A n -t d4 -j 84 -N 4 $f | trim) array_sectors=$(od -A n -t u8 -j 88 -N 8 $f | trim)" \
        "data_offset=$(od -A n -t u8 -j 96 -N 8 $f | trim) new_data_offset=$(od -A n -t u8 -j 104 -N 8 $f | trim)" \
        "events=$(od -A n -t u8 -j 16 -N 8 $f | trim) bm_sync_size=$(od -A n -t u8 -j $((4096 + 40)) -N 8 $f | trim)"
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
    check "LVM2 lvcreate --type raid5 -i4 -I 64k -L 16m kr/k4" \
        lvm lvcreate -q -y --type raid5 -i4 -I 64k -L 16m -n k4 kr
    dmraid_wait_idle kr-k4
    dd if=/dev/urandom of=/out/ka_k4.bin bs=1M count=16 status=none
    check "kr/k4: 16 MiB written through dm-raid" dd if=/out/ka_k4.bin of=/dev/kr/k4 bs=1M oflag=direct conv=fsync status=none
    check "kr/k4: reshape throttled (lvchange --maxrecoveryrate 64k)" lvm lvchange -q --maxrecoveryrate 64k kr/k4
    record before
    # md throttles a sync only above speed_limit_min (1000 KiB/s by default)
    check "md's speed_limit_min 1 KiB/s" sh -c "echo 1 >/proc/sys/dev/raid/speed_limit_min"
    check "LVM2 lvconvert --stripes 4 kr/r5 (forward)" lvm lvconvert -y --stripes 4 kr/r5
    check "LVM2 lvconvert --stripes 4 kr/r6 (forward)" lvm lvconvert -y --stripes 4 kr/r6
    check "LVM2 lvconvert --stripesize 128k kr/r5b (backward)" lvm lvconvert -y --stripesize 128k kr/r5b
    check "LVM2 lvconvert --stripes 3 --force kr/k4 (a stripe removed: backward)" lvm lvconvert -y --force --stripes 3 kr/k4
    LVS="$LVS k4"
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
    if [ -f /t/data/hx_s10.bin ]; then
        # s10 first, alone and throttled, to see md's superblock and bitmap mid-growth
        echo 1 >/proc/sys/dev/raid/speed_limit_min
        check "LVM2 activates kr/s10 (the daemon's raid10 growth stopped mid-walk)" lvm lvchange -ay kr/s10
        sleep 1
        s10_mid=$(dmraid_status kr-s10)
        check_eq "kr/s10: the kernel goes on with the daemon's growth ($s10_mid)" \
            "$(echo "$s10_mid" | cut -d' ' -f1,4)" "6 reshape"
        for i in 0 1 2 3 4 5; do echo "$i $(sb_at /dev/mapper/kr-s10_rmeta_$i 0)"; done >/out/s10_sb_mid.txt
        echo "status after: $(dmraid_status kr-s10)" >>/out/s10_sb_mid.txt
        echo 1000 >/proc/sys/dev/raid/speed_limit_min
    fi
    check "LVM2 activates kr (after lvx's daemon served the reshapes frozen)" lvm vgchange -ay kr
    for lv in t10 d5 k4; do
        [ -f /t/data/hx_$lv.bin ] || continue
        set -- $(dmraid_status kr-$lv 2>/dev/null) - - - - - -
        dmsetup status kr-$lv >$R/taken_$lv
        check_eq "kr/$lv (ended by lvx's daemon): dm-raid takes it in sync at once ($*)" \
            "$(echo "$2" | tr -d A) $([ "${3%/*}" = "${3#*/}" ] && echo complete) $4" " complete idle"
    done
    for lv in t10 s10 z10 d5 k4; do [ -f /t/data/hx_$lv.bin ] && LVS="$LVS $lv"; done
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
    if [ -f /t/data/hx_d5.bin ]; then
        # d5: the superblocks as the kernel leaves them, LVM2's second command, again
        check "deactivate kr/d5" lvm lvchange -an kr/d5
        for i in 0 1 2 3 4; do echo "kernel $i $(sb_line d5_rmeta_$i)"; done >/out/d5_sb.txt
        check "reactivate kr/d5" lvm lvchange -ay kr/d5
        # dm-raid shows the leaving leg "A" (its superblock's role kept): LVM2 counts 5
        # in-sync images against 4 and refuses (lvx's second command runs on the host)
        check_fail "LVM2's second lvconvert --stripes 3 kr/d5 refused after a reactivation ($(dmraid_status kr-d5))" \
            "Device count is incorrect" lvm lvconvert -y --stripes 3 kr/d5
        check_eq "kr/d5: still 5 images, 16 MiB" \
            "$(lvm lvs --noheadings --units m -o stripes,lv_size kr/d5 | xargs)" "5 16.00m"
        check_eq "kr/d5: the kernel reads the daemon's bytes again" "$(head_sha /dev/kr/d5 12)" "$(sha /t/data/hx_d5.bin)"
        check "deactivate kr/d5" lvm lvchange -an kr/d5
        # x5: LVM2's own removal in the kernel, deactivated between its two commands
        # (what md leaves, next to d5's)
        check "LVM2 lvcreate --type raid5 -i4 -I 64k -L 16m kr/x5" \
            lvm lvcreate -q -y --type raid5 -i4 -I 64k -L 16m -n x5 kr
        dmraid_wait_idle kr-x5
        dd if=/dev/urandom of=/tmp/x5.bin bs=1M count=12 status=none
        check "kr/x5: 12 MiB written" dd if=/tmp/x5.bin of=/dev/kr/x5 bs=1M oflag=direct conv=fsync status=none
        check "LVM2 lvconvert --stripes 3 --force kr/x5" lvm lvconvert -y --force --stripes 3 kr/x5
        sleep 1
        dmraid_wait_idle kr-x5
        echo "x5 end (live): $(dmraid_status kr-x5)" >/out/x5.txt
        check_eq "kr/x5 at the kernel's end: 4 devices, the leaving leg 'a' ($(dmraid_status kr-x5))" \
            "$(dmraid_status kr-x5 | cut -d' ' -f1,2)" "4 AAAAa"
        check_eq "kr/x5 reads its 12 MiB after the kernel's removal" "$(head_sha /dev/kr/x5 12)" "$(sha /tmp/x5.bin)"
        check "deactivate kr/x5" lvm lvchange -an kr/x5
        for i in 0 1 2 3 4; do echo "lvm2 $i $(sb_line x5_rmeta_$i)"; done >>/out/d5_sb.txt
        dmesg -c >/dev/null
        check_fail "LVM2 cannot reactivate kr/x5 between its two commands (the kernel refuses its table)" \
            "reload ioctl" lvm lvchange -ay kr/x5
        dmesg | grep -i -e raid -e device-mapper >>/out/x5.txt
        check "kr/x5 removed" lvm lvremove -q -y kr/x5
    fi
    record after
    check "deactivate kr" lvm vgchange -an kr
fi
sync
guest_done
