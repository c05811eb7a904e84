#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/thin_meta.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0675-thin-meta-kernel.sh) with 2 virtio disks and the driver of
# tests/unit/test_thin_meta.c at /t/tmt.  Pool metadata written by lvx's library
# (map/thin_meta.c) and by the kernel's dm-thin, each read and changed by the other:
#
#   vda  the pool's metadata, vdb its data (64 KiB blocks; data block d holds the word
#        d+1 where lvx wrote it, so a read through a thin device names its data block)
#
# Checks: the kernel loads a pool lvx formatted and filled (thin, snapshot sharing its
# tree, rewritten and new blocks; transaction id 3) and reads through its thin devices
# exactly the blocks lvx mapped; the kernel then changes it (create_thin, create_snap of
# lvx's device, writes breaking sharing, discards, delete, set_transaction_id);
# thin_check passes, lvx reads the same devices and mappings as thin_dump and finds the
# data space map counting as it does; lvx changes the kernel's metadata (new mappings,
# delete of the kernel's snapshot) and the kernel loads it again and reads lvx's blocks.
. /t/guest-tap.sh

M=/dev/vda
D=/dev/vdb
P=lvxtm-pool
T=/t/tmt
THIN_SECTORS=$((2000 * 128))

flush() { blockdev --flushbufs $M $D; }
pool_up() {
    dmsetup create $P --table "0 $(blockdev --getsz $D) thin-pool $M $D 128 0 0"
}
thin_up() { dmsetup create lvxtm-thin$1 --table "0 $THIN_SECTORS thin /dev/mapper/$P $1"; }
trans_id() { dmsetup status $P | awk '{print $4}'; }
# load_pool WHAT TRANS ID...: the pool and thin devices ID... up, the metadata re-read
load_pool() {
    local id
    check "the kernel loads the pool ($1)" pool_up
    check_eq "the kernel's transaction id is $2" "$(trans_id)" "$2"
    shift 2
    for id in "$@"; do check "thin device $id activated" thin_up "$id"; done
    flush
}
all_down() {
    local d
    for d in $(dmsetup ls | awk '/^lvxtm-thin/ {print $1}'); do dmsetup remove "$d"; done
    dmsetup remove $P
}

check "lvx formats the metadata and fills it (thins 1, 5; snapshot 2 of 1)" $T format-fill $M $D
check "thin_check accepts lvx's metadata" thin_check -q $M
load_pool "lvx's" 3 1 2 5
check "the kernel reads lvx's mappings of thin 1" $T verify $M /dev/mapper/lvxtm-thin1 1 0 320
check "the kernel reads lvx's snapshot 2 (shared and rewritten blocks)" $T verify $M /dev/mapper/lvxtm-thin2 2 0 420
check "the kernel reads lvx's thin 5" $T verify $M /dev/mapper/lvxtm-thin5 5 0 200

# the kernel changes lvx's metadata
check "kernel: create_thin 3" dmsetup message $P 0 'create_thin 3'
check "thin device 3 activated" thin_up 3
check "kernel: 40 blocks written to thin 3" \
    dd if=/dev/urandom of=/dev/mapper/lvxtm-thin3 bs=64K count=40 oflag=direct status=none
check "kernel: create_snap 4 1 (a snapshot of lvx's tree)" bash -c \
    "dmsetup suspend lvxtm-thin1 && dmsetup message $P 0 'create_snap 4 1' && dmsetup resume lvxtm-thin1"
check "thin device 4 activated" thin_up 4
check "kernel: writes to snapshot 4 break sharing with lvx's blocks" \
    dd if=/dev/urandom of=/dev/mapper/lvxtm-thin4 bs=64K count=20 seek=50 oflag=direct status=none
if command -v blkdiscard >/dev/null; then
    check "kernel: discard of thin 1's first 10 blocks" blkdiscard -o 0 -l $((10 * 65536)) /dev/mapper/lvxtm-thin1
fi
check "kernel: delete 2, set_transaction_id 3 4" bash -c \
    "dmsetup remove lvxtm-thin2 && dmsetup message $P 0 'delete 2' && dmsetup message $P 0 'set_transaction_id 3 4'"
check "the pool and its thin devices removed (the kernel commits)" all_down
flush
check "thin_check accepts the kernel's changes" thin_check -q $M
# for a failure's post-mortem: the kernel's metadata as thin_dump shows it, and its image
if [ -d /out ]; then thin_dump $M >/out/kernel-dump.xml 2>&1; dd if=$M of=/out/kernel.meta bs=1M count=8 2>/dev/null; fi
check "lvx reads the kernel's metadata as thin_dump does" $T check $M
check "the kernel's data space map counts one per leaf holding a block, as lvx" $T counts $M

# lvx changes the kernel's metadata
check "lvx maps 100 new blocks into thin 3, deletes snapshot 4, transaction 5" $T modify $M $D 3 4
check "thin_check accepts lvx's changes" thin_check -q $M
check "lvx's changes read back as thin_dump shows them" $T check $M
check "lvx's data space map counts after its changes (counts read from the kernel kept)" $T counts $M
load_pool "again, as lvx changed it" 5 1 3 5
check "thin 1 through the kernel: lvx's blocks, the discarded ones unmapped" $T verify $M /dev/mapper/lvxtm-thin1 1 0 320
check "thin 3 through the kernel: the blocks lvx mapped" $T verify $M /dev/mapper/lvxtm-thin3 3 1000 1100
check "thin 5 unchanged" $T verify $M /dev/mapper/lvxtm-thin5 5 0 200
check_fail "thin 4 (deleted by lvx) is gone for the kernel" "" dmsetup create lvxtm-thin4 --table "0 $THIN_SECTORS thin /dev/mapper/$P 4"
check "the pool removed" all_down
flush
check "thin_check after the kernel's second load" thin_check -q $M
guest_done
