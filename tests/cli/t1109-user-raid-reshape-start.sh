#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1109-user-raid-reshape-start: lvx's user-space daemon starts the raid4/5/6 reshapes
# lvconvert makes of an LV it serves (docs/reshape-user.md step 5, §3.5, §10): LVM2's
# commits, the second one's starting table sent as the daemon's `raidreshape` (S1, S2
# written on every leg, the walker started), the third an ordinary reload.
#   r  raid5_ls -i3 -I 64k, 24 MiB, --maxrecoveryrate 512k -> --stripes 4 (a leg added,
#      forward): lvs shows `reshape` mid-way, fio (crc32c) writes and verifies 4 MiB
#      during the walk, a second lvconvert is refused (LVM2's "not in-sync"), a SIGKILL
#      of the daemon mid-walk resumes from the record; after: the LV's bytes = the
#      reference, the new 8 MiB zeros, every superblock md's finished state, lvs -a
#      (devices, data_stripes, reshape_len) = LVM2's (activation off) of the metadata;
#   s  raid5_ls -i3 --stripesize 128k (same images, backward), then --type raid5_n
#      (forward: the space now in front), each to its end with the bytes kept;
#   q  raid6_zr -i3 -> --stripes 4 (forward), to its end;
#   refusals (exit 5, the VG's seqno unchanged): --stripes 2 without --force (LVM2's
#      lines; removals are t1114's), a read-only LV, a degraded one; a start interrupted after S1 (the
#      superblocks set back to it): the next activation names the state; S2 written on
#      some legs only: completed at the next start.
# On main (the user backend refused every reshape) 31 of its 73 checks fail.
# shellcheck disable=SC2317  # helpers called through test_ok / uspace_run_ok
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/uspace-env.sh
source "$LVX_ROOT/tests/tools/uspace-env.sh"
: "${PYTHON:=python3}"
need_cmd "$PYTHON"
need_cmd fio
VG=vgrst$$
uspace_test_loops "$VG" 6 64M
source "$LVX_ROOT/tests/tools/raid-pvread.sh"
# shellcheck source=tests/tools/reshape-refused.sh
source "$LVX_ROOT/tests/tools/reshape-refused.sh"
# shellcheck source=tests/tools/raid-reshaped.sh
source "$LVX_ROOT/tests/tools/raid-reshaped.sh"
plan_later
M=1048576
LOG=$LVX_RUN_DIR/lvxd.log

uspace_run_ok "pvcreate, vgcreate" sh -c "$LVX pvcreate -q ${DEVS[*]} && $LVX vgcreate -q $VG ${DEVS[*]}"

# --- r: raid5_ls -i3 -> -i4 ---------------------------------------------------------
make_lv r raid5_ls 24
uspace_run_ok "--maxrecoveryrate 512k" lvx lvchange -q --maxrecoveryrate 512k "$VG/r"
: >"$LOG"
test_ok "lvconvert --stripes 4: exit 0" conv r --stripes 4
test_ok "... 'successfully converted'" grep -q "Logical volume $VG/r successfully converted." "$SCRATCH/conv.out"
test_ok "the daemon's log: reshape started (forward, 4 -> 5 legs, data 8192 -> 0)" \
    grep -q "$VG/r: reshape started (forward, 4 -> 5 legs, layout 2 -> 2, chunk 128 -> 128, data at 8192 -> 0)" "$LOG"
test_ok "lvs mid-way: reshape, 0 < sync_percent < 100" moving r
test_eq "superblocks mid-way: reshape recorded, 5 devices, delta_disks 1, offsets 8192 -> 0" \
    "$(sbs r 5 devices flags delta_disks array_sectors data_offset new_data_offset)" \
    "devices=5 flags=1 delta_disks=1 array_sectors=49152 data_offset=8192 new_data_offset=0 "
want="Using default stripesize 64.00 KiB.|Unable to convert $VG/r while it is not in-sync.|Reshape request failed on LV $VG/r.|"
conv_refused "lvconvert --stripes 5 during the reshape (LVM2's refusal)" r --stripes 5
test_ok "fio writes and verifies 4 MiB at 16 MiB during the reshape" \
    fio_crc f1 "$DM_DEV_DIR/$VG/r" 4m --offset=16m
test_ok "still moving after fio" moving r
# flushed: the bitmap's bits of fio's writes cleared (a reshape is resumed clean only)
uspace_run_ok "r flushed" dd if=/dev/null of="$DM_DEV_DIR/$VG/r" conv=fsync,notrunc status=none
uspace_kill_daemon
test_ok "the daemon is gone (SIGKILL mid-walk)" test -z "$(uspace_daemon_pids)"
report r_rmeta_0
killed=$(printf '%d' "0x$(sb_field r_rmeta_0 reshape)")
: >"$LOG"
uspace_run_ok "lvx daemon start (serves r again)" lvx daemon start
test_ok "the walk resumed from the record ($killed)" \
    grep -q "$VG/r: reshape resumed at sector $killed of 65536 (forward)" "$LOG"
test_ok "the reshape ends (logged: 5 legs, chunk 128, data at 0, 65536 sectors)" done_wait r
grep -q "$VG/r: reshape done after [0-9]* steps: 5 legs, chunk 128, data at 0, 65536 sectors" "$LOG" ||
    echo "# $(grep "$VG/r: reshape done" "$LOG")"
test_eq "r reads the reference below 16 MiB" "$(lv_sum "$DM_DEV_DIR/$VG/r" 0 $((16 * M)))" \
    "$(head -c $((16 * M)) "$SCRATCH/ref" | sha256sum | cut -d' ' -f1)"
test_eq "... and from 20 MiB to 24 MiB" "$(lv_sum "$DM_DEV_DIR/$VG/r" $((20 * M)) $((4 * M)))" \
    "$(tail -c $((4 * M)) "$SCRATCH/ref" | sha256sum | cut -d' ' -f1)"
test_ok "fio verifies its 4 MiB at 16 MiB" fio_crc f1 "$DM_DEV_DIR/$VG/r" 4m --offset=16m --verify_only
test_eq "the new 8 MiB read as zeros" "$(lv_sum "$DM_DEV_DIR/$VG/r" $((24 * M)) $((8 * M)))" \
    "$(head -c $((8 * M)) /dev/zero | sha256sum | cut -d' ' -f1)"
test_eq "lvs after: idle 100%, 32 MiB" \
    "$("$LVX" lvs --noheadings -o raid_sync_action,sync_percent,lv_size --units m "$VG/r" 2>/dev/null | xargs)" \
    "idle 100.00 32.00m"
test_eq "lvs -a (devices, data_stripes, reshape_len): LVM2's of the same metadata" "$(rep_lvx)" "$(rep_lvm)"
layout=$(sb_field r_rmeta_0 layout)
uspace_run_ok "r deactivated" lvx lvchange -an "$VG/r"
test_eq "every superblock: md's finished state (5 devices, no reshape, offsets 0)" \
    "$(sbs r 5 "${FIN[@]}")" \
    "devices=5 level=5 layout=$layout stripe=128 flags=0 reshape=$MAXS delta_disks=0 array_sectors=65536 data_offset=0 new_data_offset=0 sectors=16384 recovery=$MAXS resync=$MAXS dirty=0 "
uspace_run_ok "r activated again" lvx lvchange -ay "$VG/r"
test_eq "... reads the reference below 16 MiB" "$(lv_sum "$DM_DEV_DIR/$VG/r" 0 $((16 * M)))" \
    "$(head -c $((16 * M)) "$SCRATCH/ref" | sha256sum | cut -d' ' -f1)"

uspace_run_ok "r removed" lvx lvremove -q -y "$VG/r"

# --- r again: raid5_ls -i3, --stripesize 128k (backward), then --type raid5_n ---------
make_lv r raid5_ls 12
want="THIS MAY DESTROY (PARTS OF) YOUR DATA!|If that leaves the logical volume larger than 4 extents due to stripe rounding,|you may want to grow the content afterwards (filesystem etc.)|Can't remove stripes without --force option.|Reshape request failed on LV $VG/r.|"
conv_refused "--stripes 2 without --force (a removal: LVM2's refusal; t1114 makes removals)" r --stripes 2 -I 64k
uspace_run_ok "r read-only (lvchange -pr)" lvx lvchange -q -pr "$VG/r"
want="lvx cannot reshape $VG/r while it is active read-only: change it to read-write first.|"
conv_refused "--stripesize 128k of the read-only LV" r --stripesize 128k
uspace_run_ok "r read-write again" lvx lvchange -q -prw "$VG/r"
# the daemon kept at the start (LVX_TEST_RESHAPE_FROZEN): the state S2 leaves
uspace_stop_daemon "$VG"
test_ok "r deactivated, the daemon stopped" test -z "$(uspace_daemon_pids)"
uspace_run_ok "the daemon started with LVX_TEST_RESHAPE_FROZEN=1, r activated" \
    sh -c "LVX_TEST_RESHAPE_FROZEN=1 $LVX daemon start && $LVX lvchange -ay $VG/r"
: >"$LOG"
test_ok "lvconvert --stripesize 128k: exit 0" conv r --stripesize 128k
test_ok "the daemon's log: reshape started (backward, 4 -> 4 legs, chunk 128 -> 256, data at 0 -> 8192)" \
    grep -q "$VG/r: reshape started (backward, 4 -> 4 legs, layout 2 -> 2, chunk 128 -> 256, data at 0 -> 8192)" "$LOG"
test_eq "every superblock: S2 (reshape at the end 24576, backward, new stripe 256, offsets 0 -> 8192)" \
    "$(sbs r 4 devices stripe flags reshape delta_disks array_sectors data_offset new_data_offset)" \
    "devices=4 stripe=128 flags=3 reshape=6000 delta_disks=0 array_sectors=24576 data_offset=0 new_data_offset=8192 "
uspace_stop_daemon "$VG"
test_ok "r deactivated, the daemon stopped" test -z "$(uspace_daemon_pids)"
ev=$(sb_field r_rmeta_2 events)
uspace_run_ok "every superblock set back to S1 (no reshape, offsets 0 -> 8192)" \
    sb_set flags=0 reshape=0xffffffffffffffff new_stripe=128 legs=0,1,2,3
: >"$LOG"
out=$("$LVX" lvchange -ay "$VG/r" 2>&1); rc=$?
out=${out#"${out%%[! ]*}"}
test_eq "activation of the start interrupted after S1: refused (exit 5), the state named" "$rc $out" \
    "5 RAID LV $VG/r: a reshape's start was interrupted: its metadata records the reshape (reshape flags in its metadata (raid5_ls+RESHAPE+RESHAPE_DATA_OFFSET)), the superblock of image 0 none (another stripe size, data_offset 0, new_data_offset 8192): not served."
test_eq "... nothing written (image 2's events)" "$(sbs r 4 events | sort -u | wc -l) $(sb_field r_rmeta_2 events)" "1 $ev"
uspace_run_ok "S2 again on images 0, 1, 3; image 2 left at S1 one event behind" \
    sb_set flags=3 reshape=24576 new_stripe=256 legs=0,1,3
uspace_run_ok "... image 2 one event behind" sb_set events=$((ev - 1)) legs=2
: >"$LOG"
uspace_run_ok "r activated (S2 half-written)" lvx lvchange -ay "$VG/r"
test_ok "the round is completed (image 2 named)" \
    grep -q "$VG/r: image 2 is one superblock round behind (reshape_position 18446744073709551615): the round is completed" "$LOG"
test_ok "the walk starts at the end, backward" grep -q "$VG/r: reshape resumed at sector 24576 of 24576 (backward)" "$LOG"
test_ok "the reshape ends" done_wait r
test_eq "r reads the reference" "$(lv_sum "$DM_DEV_DIR/$VG/r" 0 $((12 * M)))" "$(fsum "$SCRATCH/ref")"
: >"$LOG"
test_ok "lvconvert --type raid5_n: exit 0" conv r --type raid5_n
test_ok "the daemon's log: reshape started (forward, layout 2 -> 5, data at 8192 -> 0)" \
    grep -q "$VG/r: reshape started (forward, 4 -> 4 legs, layout 2 -> 5, chunk 256 -> 256, data at 8192 -> 0)" "$LOG"
test_ok "the reshape ends" done_wait r
test_eq "r reads the reference" "$(lv_sum "$DM_DEV_DIR/$VG/r" 0 $((12 * M)))" "$(fsum "$SCRATCH/ref")"
test_eq "lvs -a: LVM2's of the same metadata" "$(rep_lvx)" "$(rep_lvm)"
uspace_run_ok "r deactivated" lvx lvchange -an "$VG/r"
test_eq "every superblock: md's finished state (raid5_n, stripe 256, offsets 0)" \
    "$(sbs r 4 devices level layout stripe flags reshape delta_disks array_sectors data_offset new_data_offset sectors)" \
    "devices=4 level=5 layout=5 stripe=256 flags=0 reshape=$MAXS delta_disks=0 array_sectors=24576 data_offset=0 new_data_offset=0 sectors=8192 "
uspace_run_ok "r removed" lvx lvremove -q -y "$VG/r"

# --- q: raid6_zr -i3 -> -i4 -----------------------------------------------------------
make_lv q raid6_zr 12
: >"$LOG"
test_ok "lvconvert --stripes 4: exit 0" conv q --stripes 4
test_ok "the daemon's log: reshape started (forward, 5 -> 6 legs, data 8192 -> 0)" \
    grep -q "$VG/q: reshape started (forward, 5 -> 6 legs, layout 8 -> 8, chunk 128 -> 128, data at 8192 -> 0)" "$LOG"
test_ok "the reshape ends" done_wait q
test_eq "q reads the reference, the new 4 MiB zeros" \
    "$(lv_sum "$DM_DEV_DIR/$VG/q" 0 $((12 * M))) $(lv_sum "$DM_DEV_DIR/$VG/q" $((12 * M)) $((4 * M)))" \
    "$(fsum "$SCRATCH/ref") $(head -c $((4 * M)) /dev/zero | sha256sum | cut -d' ' -f1)"
test_eq "lvs -a: LVM2's of the same metadata" "$(rep_lvx)" "$(rep_lvm)"
uspace_run_ok "q deactivated" lvx lvchange -an "$VG/q"
test_eq "every superblock: md's finished state (6 devices, offsets 0)" \
    "$(sbs q 6 devices level stripe flags reshape delta_disks array_sectors data_offset new_data_offset sectors)" \
    "devices=6 level=6 stripe=128 flags=0 reshape=$MAXS delta_disks=0 array_sectors=32768 data_offset=0 new_data_offset=0 sectors=8192 "

lvx daemon stop >/dev/null 2>&1
done_testing
