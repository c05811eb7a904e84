#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/cached-reports.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0757-kernel-cached-reports.sh) with 2 virtio disks, lvx at /t/lvx and the
# host's LVM2/dmsetup.  LVM2 makes cached LVs in VG "vgc": corig (a cache pool attached,
# writethrough, default chunk), corig2 (a writeback cache pool, 128k chunks), vorig (a
# cachevol), beside a plain LV; data is written and read through them (non-zero hit and
# miss counters).  Active (LVM2's activation: lvx reads the dm-cache status) and
# inactive, lvx's output equals LVM2's for: lvs -a [--segments] -o all and -o
# all,seg_all (name prefixes),
# lvs -a --reportformat json -o all, lvdisplay -a -m, vgdisplay -v, pvs [--segments] -o
# all, pvs -o all,seg_all, fullreport and pvs aligned (the PV column 10 wide).  lvx refuses to activate a cached LV (exit 5, one line, no device made).
# lvx's lvchange -an of LVM2's active cached LV (cache pool, cachevol, a raid1 origin)
# removes the devices under it too.  A writecache LV made by LVM2, active: lvx's reports
# (layout, roles, origin, cachevol, dm-writecache status fields) equal LVM2's, and lvx's
# lvchange -an takes its origin and cachevol devices down too.
# shellcheck disable=SC2086
. /t/guest-tap.sh

VG=vgc
same() {  # same STATE ARGS...: LVM2 answers (exit 0, output); lvx's exit and output equal
    local st=$1 ra=0 rb=0 oa ob
    shift
    oa=$(lvm "$@" 2>/dev/null) || ra=$?
    ob=$($LVX "$@" 2>/dev/null) || rb=$?
    if [ $ra != 0 ] || [ -z "$oa" ]; then fail "$st: LVM2 answers $*"; return; fi
    check_eq "$st: $*: lvx's exit status and output equal LVM2's" "$rb $ob" "$ra $oa"
}
reports() {
    same "$1" lvs -a --noheadings --nameprefixes -o all $VG
    same "$1" lvs -a --noheadings --nameprefixes -o all,seg_all $VG
    same "$1" lvs -a --reportformat json -o all $VG
    same "$1" lvs -a --segments --noheadings --nameprefixes -o all $VG
    same "$1" lvs -a --noheadings -o lv_name,cache_total_blocks,cache_used_blocks,cache_read_misses,kernel_cache_policy,data_percent,metadata_percent,copy_percent,lv_permissions $VG
    same "$1" lvdisplay -a -m $VG
    same "$1" vgdisplay -v $VG
    same "$1" pvs --noheadings --nameprefixes -o all /dev/vda /dev/vdb
    same "$1" pvs --segments --noheadings --nameprefixes -o all /dev/vda /dev/vdb
    same "$1" pvs --noheadings --nameprefixes -o all,seg_all /dev/vda /dev/vdb
    # aligned: LVM2 pads the PV column to 10 (its field width) for the 8 letters of
    # /dev/vda (lvx padded to 8 before)
    same "$1" fullreport $VG
    same "$1" pvs /dev/vda /dev/vdb
}

check "LVM2: vgc on vda and vdb" sh -c "lvm pvcreate -q /dev/vda /dev/vdb && lvm vgcreate -q $VG /dev/vda /dev/vdb"
check "LVM2: corig with cache pool cpool attached" sh -c \
    "lvm lvcreate -q -L 32m -n corig $VG /dev/vda && lvm lvcreate -q --type cache-pool -L 12m -n cpool $VG /dev/vdb &&
     lvm lvconvert -y -q --type cache --cachepool $VG/cpool $VG/corig"
check "LVM2: corig2 with a writeback cache pool of 128k chunks" sh -c \
    "lvm lvcreate -q -L 16m -n corig2 $VG /dev/vda &&
     lvm lvcreate -q --type cache-pool --cachemode writeback --chunksize 128k -L 8m -n cpool2 $VG /dev/vdb &&
     lvm lvconvert -y -q --type cache --cachepool $VG/cpool2 $VG/corig2"
check "LVM2: vorig with cachevol cvol" sh -c \
    "lvm lvcreate -q -L 32m -n vorig $VG /dev/vda && lvm lvcreate -q -L 12m -n cvol $VG /dev/vdb &&
     lvm lvconvert -y -q --type cache --cachevol $VG/cvol $VG/vorig"
check "LVM2: plain" lvm lvcreate -q -L 4m -n plain $VG
check "writes and reads through the cached LVs" sh -c \
    "for l in corig corig2 vorig; do
         dd if=/dev/urandom of=/dev/$VG/\$l bs=64k count=40 oflag=direct 2>/dev/null &&
         dd if=/dev/$VG/\$l of=/dev/null bs=64k count=80 iflag=direct 2>/dev/null || exit 1
     done"
# the writeback cache cleans its dirty blocks in the background: the counters LVM2 and
# lvx read one after the other must not move in between
for i in $(seq 120); do
    [ "$(dmsetup status | awk '$4 == "cache" && $15 != 0' | wc -l)" = 0 ] && break
    sleep 1
done
note "$(dmsetup status | grep ' cache ')"
reports active
check "LVM2: vgchange -an" lvm vgchange -an -q $VG
reports inactive

for l in corig vorig; do
    rc=0
    out=$($LVX lvchange -ay $VG/$l 2>&1) || rc=$?
    check_eq "lvx lvchange -ay $VG/$l: refused, exit 5, one line" \
        "$rc $(wc -l <<<"$out") $(grep -c 'is not supported by lvx' <<<"$out")" "5 1 1"
    check_eq "no device of $VG made" "$(dmsetup ls | grep -c "^$VG-")" 0
done

for l in corig vorig; do
    check "LVM2: lvchange -ay $VG/$l" lvm lvchange -ay -q $VG/$l
    check "lvx lvchange -an $VG/$l (LVM2's activation)" $LVX lvchange -an $VG/$l
    check_eq "no device of $VG left (the origin, pool or cachevol devices under it too)" \
        "$(dmsetup ls | grep "^$VG-" | cut -f1 | tr '\n' ' ')" ""
    lvm vgchange -an -q $VG >/dev/null 2>&1
done

# a cached RAID LV (review s7 R6: its _corig's rimage/rmeta devices were left, keeping
# the PVs open): LVM2 makes and activates it, lvx deactivates it
check "LVM2: rorig (raid1 -m1) with cache pool rpool attached" sh -c \
    "lvm lvcreate -q -y --type raid1 -m1 -L 8m -n rorig $VG /dev/vda /dev/vdb &&
     lvm lvcreate -q --type cache-pool -L 8m -n rpool $VG /dev/vdb &&
     lvm lvconvert -y -q --type cache --cachepool $VG/rpool $VG/rorig"
check "LVM2: lvchange -ay $VG/rorig" lvm lvchange -ay -q $VG/rorig
check_match "... its origin's raid images are devices" "$(dmsetup ls | cut -f1)" "$VG-rorig_corig_rimage_1"
check "lvx lvchange -an $VG/rorig (LVM2's activation)" $LVX lvchange -an $VG/rorig
check_eq "no device of $VG left (the raid origin's images and metadata too)" \
    "$(dmsetup ls | grep "^$VG-" | cut -f1 | tr '\n' ' ')" ""
lvm vgchange -an -q $VG >/dev/null 2>&1

# a writecache (LVM2 2.03.16 needs the cachevol inactive), active: its reports, its
# dm-writecache status fields, then lvx's deactivation takes its origin and cachevol
# devices down too
if lvm lvcreate -q -L 16m -n worig $VG /dev/vda >/dev/null 2>&1 &&
   lvm lvcreate -q -an -L 8m -n wvol $VG /dev/vdb >/dev/null 2>&1 &&
   lvm lvconvert -y -q --type writecache --cachevol $VG/wvol $VG/worig >/dev/null 2>&1; then
    dd if=/dev/urandom of=/dev/$VG/worig bs=64k count=16 oflag=direct 2>/dev/null
    for f in lv_name,lv_attr,lv_layout,lv_role,origin,pool_lv,segtype,writecache_block_size,lv_modules \
             lv_name,writecache_total_blocks,writecache_free_blocks,writecache_writeback_blocks,writecache_error,data_percent,snap_percent \
             lv_name,lv_active,lv_permissions,devices; do
        check_eq "writecache: lvs -a -o $f: lvx's equals LVM2's" \
            "$($LVX lvs -a --noheadings -o $f $VG 2>&1)" "$(lvm lvs -a --noheadings -o $f $VG 2>&1)"
    done
    check "lvx lvchange -an $VG/worig (LVM2's activation)" $LVX lvchange -an $VG/worig
    check_eq "no device of worig left (its origin and cachevol too)" \
        "$(dmsetup ls | grep "^$VG-w" | cut -f1 | tr '\n' ' ')" ""
else
    fail "LVM2 makes a writecache LV here"
fi
guest_done
