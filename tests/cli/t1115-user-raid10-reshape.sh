#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1115-user-raid10-reshape: lvx's user-space daemon grows a raid10 LV it serves, as md
# raid10 + dm-raid do (docs/reshape-user.md step 6, §1.3, §12): lvconvert --stripes 3 of
# raid10 -i2 -m1 (4 images -> 6), LVM2's commits, the second one's starting table sent
# as the daemon's `raidreshape` (delta_disks 2, the reshape space in front of the data:
# A at 8192, B at 0), the walker copying 64 KiB steps (one copy read in A, both copies
# written in B), then md's finish (the new size; the new space resynced after it).
#   t  16 MiB of random data, --maxrecoveryrate 512k: lvs shows `reshape` mid-way, the
#      superblocks record it (6 devices, delta_disks 2, the old size, offsets 8192 -> 0),
#      fio (crc32c) writes and verifies 4 MiB during the walk, writes past the old size
#      fail until the end, a write into the moved but unrecorded range records the
#      position first, a SIGKILL of the daemon mid-walk resumes from the record; a
#      leg of the new space planted with other bytes on its PV; after the reshape the
#      new space is resynced (lvs `resync`, the superblocks' resync offset the old size,
#      md's raid10_finish_reshape), then: the LV's bytes = the reference, fio's verify,
#      both copies of every chunk equal on the PVs (the planted leg overwritten), every
#      superblock md's finished state, lvs -a (devices, data_stripes, reshape_len) =
#      LVM2's (activation off) of the metadata, the next activation in sync.
#   refusals: raid10 --stripes 1 (LVM2's lines), --stripesize 128k -R 4m (lvx's line: a
#      region size change), a second --stripes 4 during the reshape (LVM2's "not in-sync").
# shellcheck disable=SC2317  # helpers called through test_ok / uspace_run_ok
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/uspace-env.sh
source "$LVX_ROOT/tests/tools/uspace-env.sh"
: "${PYTHON:=python3}"
need_cmd "$PYTHON"
need_cmd fio
VG=vgr10$$
uspace_test_loops "$VG" 6 64M
source "$LVX_ROOT/tests/tools/raid-pvread.sh"
# shellcheck source=tests/tools/reshape-refused.sh
source "$LVX_ROOT/tests/tools/reshape-refused.sh"
# shellcheck source=tests/tools/raid-reshaped.sh
source "$LVX_ROOT/tests/tools/raid-reshaped.sh"
plan_later

# resyncing: lvs shows the new space's resync (resync, 0 <= sync_percent < 100)
resyncing() {
    local a p
    read -r a p <<<"$("$LVX" lvs --noheadings -o raid_sync_action,sync_percent "$VG/t" 2>/dev/null)"
    [[ $a == resync ]] && awk -v p="$p" 'BEGIN { exit !(p >= 0 && p < 100) }'
}
# resync_wait: the resync after the reshape logged as done (60 s at most)
resync_wait() {
    for _ in $(seq 300); do grep -q "$VG/t: resync done" "$LOG" && return 0; sleep 0.2; done
    return 1
}
# pairs_equal: rimages 0/1, 2/3, 4/5 (the two copies of every chunk of raid10 near-2 on 6
# legs: chunk k on legs 2k mod 6 and 2k+1 mod 6, the same row) equal over the data (8 MiB)
pairs_equal() {
    local i
    for i in 0 2 4; do
        report "t_rimage_$i"
        report "t_rimage_$((i + 1))"
        [[ $(pv_sum "t_rimage_$i" 0 $((8 * M))) == $(pv_sum "t_rimage_$((i + 1))" 0 $((8 * M))) ]] ||
            return 1
    done
}
ref_sum() { head -c "$2" "$SCRATCH/ref" | tail -c "$(($2 - $1))" | sha256sum | cut -d' ' -f1; }

uspace_run_ok "pvcreate, vgcreate" sh -c "$LVX pvcreate -q ${DEVS[*]} && $LVX vgcreate -q $VG ${DEVS[*]}"
make_lv t raid10 16 2

want="Can't remove stripes from raid10.|Invalid conversion request on $VG/t.|"
conv_refused "raid10 --stripes 1 (LVM2's refusal)" t --stripes 1
want="lvx cannot reshape $VG/t in the user-space backend: its daemon does not change the region size in a reshape yet (activate it with the dm backend).|"
conv_refused "raid10 --stripesize 128k -R 4m (lvx's line in the user backend; t1119 makes --stripesize)" t --stripesize 128k -R 4m

uspace_run_ok "--maxrecoveryrate 512k" lvx lvchange -q --maxrecoveryrate 512k "$VG/t"
: >"$LOG"
test_ok "lvconvert --stripes 3: exit 0" conv t --stripes 3
test_ok "... 'successfully converted'" grep -q "Logical volume $VG/t successfully converted." "$SCRATCH/conv.out"
test_ok "the daemon's log: reshape started (forward, 4 -> 6 legs, data at 8192 -> 0)" \
    grep -q "$VG/t: reshape started (forward, 4 -> 6 legs, layout 258 -> 258, chunk 128 -> 128, data at 8192 -> 0)" "$LOG"
test_ok "lvs mid-way: reshape, 0 < sync_percent < 100" moving t
test_eq "superblocks mid-way: reshape recorded, 6 devices, delta_disks 2, the old size, offsets 8192 -> 0" \
    "$(sbs t 6 devices level layout flags delta_disks array_sectors data_offset new_data_offset)" \
    "devices=6 level=10 layout=258 flags=1 delta_disks=2 array_sectors=32768 data_offset=8192 new_data_offset=0 "
test_eq "lvs: 24 MiB (the metadata's size), 3 data stripes" \
    "$("$LVX" lvs --noheadings -o lv_size,data_stripes --units m "$VG/t" 2>/dev/null | xargs)" "24.00m 3"
want="Using default stripesize 64.00 KiB.|Unable to convert $VG/t while it is not in-sync.|Reshape request failed on LV $VG/t.|"
conv_refused "lvconvert --stripes 4 during the reshape (LVM2's refusal)" t --stripes 4
test_ok "a write past the old size fails during the reshape (md holds it until the end)" \
    sh -c "! dd if=/dev/urandom of=$DM_DEV_DIR/$VG/t bs=64k count=1 seek=$((16 * 16)) oflag=direct status=none 2>/dev/null"
test_ok "fio writes and verifies 4 MiB at 8 MiB during the reshape" \
    fio_crc f1 "$DM_DEV_DIR/$VG/t" 4m --offset=8m
test_ok "still moving after fio" moving t
# LV sectors [128, 256): moved by the walk, not recorded (the third commit's reload
# recorded 128): a write there records the position first (md's raid10_write_request)
head -c 65536 /dev/urandom >"$SCRATCH/w1"
uspace_run_ok "64 KiB written at 64 KiB (moved, not yet recorded)" \
    dd if="$SCRATCH/w1" of="$DM_DEV_DIR/$VG/t" bs=64k seek=1 oflag=direct conv=fsync status=none
dd if="$SCRATCH/w1" of="$SCRATCH/ref" bs=64k seek=1 conv=notrunc status=none
rec=$(sbs t 6 reshape | xargs)
rec=$((0x${rec#reshape=}))
test_ok "... every superblock records one position past it first ($rec)" \
    test "$(sbs t 6 reshape | wc -l)" -eq 1 -a "$rec" -ge 256 -a "$rec" -lt 32768
# the new space of legs 4 and 5 (chunk 256 on: rows from 10880) is touched by nothing
# before the resync that follows the reshape: leg 5's copy planted with other bytes
report t_rimage_5
head -c $M /dev/urandom >"$SCRATCH/plant"
uspace_run_ok "1 MiB planted in leg 5's new space (rimage sector 12288)" pv_put t_rimage_5 $((6 * M)) "$SCRATCH/plant"
killed_resumed t 32768 forward
ended t "6 legs, chunk 128, data at 0, 49152 sectors"
test_ok "then the new space resyncs (lvs: resync)" resyncing
test_eq "... the superblocks record the resync from the old size (md's raid10_finish_reshape)" \
    "$(sbs t 6 devices flags reshape delta_disks array_sectors data_offset resync)" \
    "devices=6 flags=0 reshape=$MAXS delta_disks=0 array_sectors=49152 data_offset=0 resync=8000 "
test_ok "the resync of the new space ends" resync_wait
test_ok "... 4 regions synced (the new space: 8 MiB of 2 MiB regions)" \
    grep -q "$VG/t: resync done: 4 regions synced in the background" "$LOG"
test_eq "t reads the reference below 8 MiB" "$(lv_sum "$DM_DEV_DIR/$VG/t" 0 $((8 * M)))" "$(ref_sum 0 $((8 * M)))"
test_eq "... and from 12 MiB to 16 MiB" "$(lv_sum "$DM_DEV_DIR/$VG/t" $((12 * M)) $((4 * M)))" \
    "$(ref_sum $((12 * M)) $((16 * M)))"
test_ok "fio verifies its 4 MiB at 8 MiB" fio_crc f1 "$DM_DEV_DIR/$VG/t" 4m --offset=8m --verify_only
test_ok "both copies of every chunk equal on the PVs (leg 5's planted bytes resynced)" pairs_equal
test_eq "lvs after: idle 100%, 24 MiB" \
    "$("$LVX" lvs --noheadings -o raid_sync_action,sync_percent,lv_size --units m "$VG/t" 2>/dev/null | xargs)" \
    "idle 100.00 24.00m"
test_eq "lvs -a (devices, data_stripes, reshape_len): LVM2's of the same metadata" "$(rep_lvx)" "$(rep_lvm)"
uspace_run_ok "a write into the new space" \
    dd if="$SCRATCH/plant" of="$DM_DEV_DIR/$VG/t" bs=1M seek=20 oflag=direct conv=fsync status=none
uspace_run_ok "t deactivated" lvx lvchange -an "$VG/t"
test_eq "every superblock: md's finished state (6 devices, no reshape, offsets 0, in sync)" \
    "$(sbs t 6 devices level layout stripe flags reshape delta_disks array_sectors data_offset new_data_offset sectors recovery resync dirty bm_sync_size)" \
    "devices=6 level=10 layout=258 stripe=128 flags=0 reshape=$MAXS delta_disks=0 array_sectors=49152 data_offset=0 new_data_offset=0 sectors=16384 recovery=$MAXS resync=$MAXS dirty=0 bm_sync_size=49152 "
: >"$LOG"
uspace_run_ok "t activated again" lvx lvchange -ay "$VG/t"
test_ok "... in sync at once (no resync logged)" sh -c "! grep -q 'resync\|rebuilt' $LOG"
test_eq "... reads the reference below 8 MiB and the write at 20 MiB" \
    "$(lv_sum "$DM_DEV_DIR/$VG/t" 0 $((8 * M))) $(lv_sum "$DM_DEV_DIR/$VG/t" $((20 * M)) $M)" \
    "$(ref_sum 0 $((8 * M))) $(fsum "$SCRATCH/plant")"

lvx daemon stop >/dev/null 2>&1
done_testing
