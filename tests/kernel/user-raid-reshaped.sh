#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/user-raid-reshaped.sh - runs INSIDE a kvm-dm-test guest (started twice by
# tests/cli/t0785-kernel-user-raid-reshaped.sh) on 5 virtio disks kept on the host;
# /t/data/phase says which part:
#   1  LVM2 makes VG kr: raid5 r5 (-i3 -I 64k, 12 MiB) gets a fourth stripe
#      (lvconvert --stripes 4: reshape space in front of the data, md moves it to
#      offset 0) and raid5 r5b (-i3 -I 64k, 12 MiB) another stripe size (--stripesize
#      128k: same images, md moves the data from offset 0 to the reshape space);
#      the kernel's reshapes run to their end with the data intact; then new data
#      (/t/data/ka_LV.bin, made here, copied to /out) is written and kr deactivated.
#      dmsetup status and lvs go to /out/rec.
#   2  (after lvx's daemon on the host served kr and wrote /t/data/hx_LV.bin) LVM2
#      activates kr: in sync at once, data_offset as the kernel left it, the daemon's
#      bytes, a --syncaction check finds no mismatch (r5b only after the daemon's use:
#      md's end of its reshape recorded `sectors` 0, which dm-raid refuses).
# Prints TAP (also to /out/result.tap).
# shellcheck disable=SC2046,SC2086
# shellcheck source=tests/kernel/guest-tap.sh
. /t/guest-tap.sh
R=/out/rec
mkdir -p $R
sha() { sha256sum <"$1" | cut -d' ' -f1; }
lv_sha() { dd if="$1" bs=1M iflag=direct status=none | sha256sum | cut -d' ' -f1; }
record() {
    { dmsetup table; dmsetup status; } >$R/$1.dm 2>&1
    lvm lvs -a -o+segtype,stripes,stripesize,reshape_len_le,data_offset,new_data_offset,raid_sync_action,devices kr >$R/$1.lvs 2>&1
}
PHASE=$(cat /t/data/phase)

if [ "$PHASE" = 1 ]; then
    check "LVM2 makes VG kr on vda-vde" sh -c "lvm pvcreate -q /dev/vd[a-e] >/dev/null && lvm vgcreate -q kr /dev/vd[a-e] >/dev/null"
    dd if=/dev/urandom of=/tmp/d12 bs=1M count=12 status=none
    for lv in r5 r5b; do
        check "LVM2 lvcreate --type raid5 -i3 -I 64k -L 12m kr/$lv" \
            lvm lvcreate -q -y --type raid5 -i3 -I 64k -L 12m -n $lv kr
        dmraid_wait_idle kr-$lv
        check "kr/$lv: 12 MiB written through dm-raid" dd if=/tmp/d12 of=/dev/kr/$lv bs=1M oflag=direct conv=fsync status=none
    done
    record before
    check "LVM2 lvconvert --stripes 4 kr/r5 (reshape space in front, md moves the data)" \
        lvm lvconvert -y --stripes 4 kr/r5
    check "LVM2 lvconvert --stripesize 128k kr/r5b (same images)" lvm lvconvert -y --stripesize 128k kr/r5b
    for lv in r5 r5b; do
        dmraid_wait_idle kr-$lv
        record after-$lv
        set -- $(dmraid_status kr-$lv 2>/dev/null) - - - - - -
        check_eq "kr/$lv: the kernel's reshape ended ($*)" "$2 $4" "AAAA$([ $lv = r5 ] && echo A) idle"
        check_eq "kr/$lv: the first 12 MiB are the data written before" \
            "$(dd if=/dev/kr/$lv bs=1M count=12 iflag=direct status=none | sha256sum | cut -d' ' -f1)" "$(sha /tmp/d12)"
        sz=$(lvm lvs --noheadings --units b --nosuffix -o lv_size kr/$lv | trim)
        echo "$lv ${6:-?} $sz" >>$R/offsets
        dd if=/dev/urandom of=/out/ka_$lv.bin bs=$sz count=1 iflag=fullblock status=none
        check "kr/$lv: new data written ($sz bytes, data_offset ${6:-?})" \
            dd if=/out/ka_$lv.bin of=/dev/kr/$lv bs=1M oflag=direct conv=fsync status=none
    done
    check "deactivate kr" lvm vgchange -an kr
else
    check "LVM2 activates kr (after lvx's daemon served it)" lvm vgchange -ay kr
    for lv in r5 r5b; do
        set -- $(dmraid_status kr-$lv 2>/dev/null) - - - - - -
        want=$(grep "^$lv " /t/data/offsets | cut -d' ' -f2)
        check_eq "kr/$lv: in sync at once, data_offset as the kernel left it ($*)" \
            "$(echo "$2" | tr -d A) ${3%/*} $4 $6" " ${3#*/} idle $want"
        check_eq "kr/$lv: the kernel reads the daemon's bytes" "$(lv_sha /dev/kr/$lv)" "$(sha /t/data/hx_$lv.bin)"
        check "kr/$lv: lvchange --syncaction check" lvm lvchange --syncaction check kr/$lv
        sleep 1
        dmraid_wait_idle kr-$lv
        set -- $(dmraid_status kr-$lv 2>/dev/null) - - - - - -
        check_eq "kr/$lv: the check found no mismatch" "$4 $5" "idle 0"
    done
    record back
    check "deactivate kr" lvm vgchange -an kr
fi
sync
guest_done
