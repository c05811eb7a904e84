#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1108-user-raid-reshape-walk-geo: the daemon's reshape walker (docs/reshape-user.md
# step 4, §9) beyond t1107's raid5_ls forward case, on md's half-done state built on
# the PVs (tests/tools/reshape_geo.py: md's placement and P/Q, any raid4/5/6 layout),
# --maxrecoveryrate 256k pacing the walks (about 12 s each):
#   1. raid6_zr -i3 r of 12 MiB, stripe size 64k (A: data at 8192) -> 128k (B: at 0),
#      forward, recorded at LV sector 7680.  A SIGKILL of the daemon just after the
#      activation (before any checkpoint: the walk resumes from 7680), writes to the
#      moved, unmoved and moved-but-unrecorded sides (the last one checkpoints first),
#      a SIGKILL after that checkpoint (resumes there); then every flush of PV 0 held
#      1.5 s (LVX_TEST_DP_FAULT) and a SIGKILL once F1 is on the PVs (a kill between
#      F1 and F2: every leg at F1, the restart ends the reshape in 0 steps).
#   2. raid5_ls -i4 r of 16 MiB, 128k (A: at 0) -> 64k (B: at 8192), backward (md goes
#      from the end down when the new data offset is above the old), recorded at 24576;
#      the same writes and a SIGKILL after a checkpoint, the walk to its end.
#   3. a kill inside the finish, on 2's LV: one leg's superblock left at F1 (one round
#      behind the others' F2: completed, logged), then every leg at F1 (backward:
#      position 0): each activation ends the reshape.
#   4. raid5_ls 3 -> 4 stripes (4 -> 5 legs; LVM2's metadata holds the fifth image),
#      64k, forward, recorded at 6144, the new 4 MiB zeros: writes, a deactivation
#      mid-walk (the position recorded, resumed there), a SIGKILL, the end, a write
#      into the new space.
# Each end: the LV's bytes are the reference, every superblock md's finished state, the
# rows and P/Q on the PVs in B (md's placement), lvs idle.
# On the code before this test (the F2 round completed silently) 1 of its 98 checks fails.
# shellcheck disable=SC2317  # the helpers below are called through test_ok / uspace_run_ok
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/uspace-env.sh
source "$LVX_ROOT/tests/tools/uspace-env.sh"
: "${PYTHON:=python3}"
need_cmd "$PYTHON"
VG=vgrsx$$
uspace_test_loops "$VG" 5 64M
source "$LVX_ROOT/tests/tools/raid-pvread.sh"
# shellcheck source=tests/tools/raid-reshaped.sh
source "$LVX_ROOT/tests/tools/raid-reshaped.sh"
plan_later
M=1048576
GEO=$LVX_ROOT/tests/tools/reshape_geo.py
LOG=$LVX_RUN_DIR/lvxd.log
R=$DM_DEV_DIR/$VG/r
IMGS=("$SCRATCH"/img{0,1,2,3,4})

# new_lv TYPE STRIPES STRIPESIZE SIZE: r created, in sync, deactivated, paced, reported;
# LEVEL and LAYOUT_NO its superblock's
new_lv() {
    "$LVX" lvcreate -q -y -Zn --type "$1" -i "$2" -I "$3" -L "$4" -n r "$VG" >/dev/null 2>&1 &&
        in_sync && "$LVX" lvchange -an "$VG/r" >/dev/null 2>&1 &&
        "$LVX" lvchange --maxrecoveryrate 256k "$VG/r" >/dev/null 2>&1 || return 1
    for i in 0 1 2 3 4; do report "r_rimage_$i"; report "r_rmeta_$i"; done
    LEVEL=$(sb_field r_rmeta_0 level) LAYOUT_NO=$(sb_field r_rmeta_0 layout)
}
# rows LEN LAYOUT CA OA CB OB BLO BHI: SCRATCH/data (LEN sectors, random) laid out in A
# everywhere and in B over [BLO, BHI), checked, written on the PVs; SCRATCH/ref its copy
rows() {
    local i
    head -c $(($1 * 512)) /dev/urandom >"$SCRATCH/data" || return 1
    cp "$SCRATCH/data" "$SCRATCH/ref"
    for i in "${IMGS[@]}"; do : >"$i"; truncate -s $((8 * M)) "$i"; done
    "$PYTHON" "$GEO" plant "$SCRATCH/data" 0 "$1" "$2" "$3" "$4" "${IMGS[@]}" &&
        "$PYTHON" "$GEO" plant "$SCRATCH/data" "$7" "$8" "$2" "$5" "$6" "${IMGS[@]}" &&
        "$PYTHON" "$GEO" verify "$SCRATCH/data" "$7" "$8" "$2" "$5" "$6" "${IMGS[@]}" || return 1
    for i in 0 1 2 3 4; do pv_put "r_rimage_$i" 0 "$SCRATCH/img$i"; done
}
# put SECTOR KIB: random bytes written through r and into the reference
put() {
    head -c $(($2 * 1024)) /dev/urandom >"$SCRATCH/w.bin" &&
        dd if="$SCRATCH/w.bin" of="$R" bs=512 seek="$1" oflag=direct conv=fsync status=none &&
        dd if="$SCRATCH/w.bin" of="$SCRATCH/ref" bs=512 seek="$1" conv=notrunc status=none
}
put_two() { put "$1" 512 && put "$2" 512; }
# mid_walk UNREC MOVED UNMOVED MIB LO HI: 2 s into the walk, status reshape; 256 KiB
# written at UNREC (moved, not recorded), 512 KiB at MOVED and UNMOVED; the first MIB
# MiB read back; the write's checkpoint on every leg, LO <= position <= HI
mid_walk() {
    sleep 2
    test_ok "lvs mid-way: reshape, 0 < sync_percent < 100" moving
    uspace_run_ok "256 KiB at $1 (moved, not recorded: a checkpoint first)" put "$1" 256
    uspace_run_ok "512 KiB at $2 (moved side) and at $3 (not moved yet)" \
        put_two "$2" "$3"
    test_eq "r reads the reference mid-walk (its first $4 MiB)" "$(lv_sum "$R" 0 $(($4 * M)))" \
        "$(head -c $(($4 * M)) "$SCRATCH/ref" | sha256sum | cut -d' ' -f1)"
    ck=$(all_pos)
    test_ok "the write's checkpoint: every superblock at one position $5 <= ${ck:-none} <= $6" \
        test "$(wc -w <<<"$ck")" = 1 -a "${ck:-0}" -ge "$5" -a "${ck:-0}" -le "$6"
    test_ok "still moving" moving
}
# kill_resume END DIR [FAULT]: a SIGKILL of the daemon; `lvx daemon start` (with
# LVX_TEST_DP_FAULT=FAULT) resumes the walk from the position on the PVs
kill_resume() {
    uspace_kill_daemon
    test_ok "SIGKILL: the daemon is gone" test -z "$(uspace_daemon_pids)"
    killed=$(all_pos)
    : >"$LOG"
    uspace_run_ok "lvx daemon start${3:+ (LVX_TEST_DP_FAULT=$3)}" \
        env ${3:+LVX_TEST_DP_FAULT=$3} "$LVX" daemon start
    test_ok "the walk resumed from the last record (${killed:-none})" \
        grep -q "$VG/r: reshape resumed at sector ${killed:-none} of $1 ($2)" "$LOG"
}
all_pos() { for i in 0 1 2 3 4; do pos_of "$i"; echo; done | sort -u | xargs; }
wait_done() {  # [LINE]: the end logged (then LINE the end's line)
    for _ in $(seq 200); do grep -q "$VG/r: reshape done" "$LOG" && break; sleep 0.2; done
    grep -q "${1:-$VG/r: reshape done}" "$LOG"
}
fields() {
    local i f
    for i in 0 1 2 3 4; do
        for f in devices level layout stripe flags reshape delta_disks array_sectors data_offset \
            new_data_offset sectors recovery resync dirty; do
            printf '%s ' "$f=$(sb_field r_rmeta_$i $f)"
        done
        echo
    done | sort -u
}
# ends LAYOUT CHUNK OFF SECTORS STRIPE-FIELD: the end's checks (r active, walk done)
ends() {
    test_eq "lvs after: idle 100%, data_offset $3" \
        "$("$LVX" lvs --noheadings -o raid_sync_action,sync_percent,data_offset "$VG/r" 2>/dev/null | xargs)" "idle 100.00 $3"
    test_eq "r reads the reference after the end" "$(lv_sum "$R" 0 $(($4 * 512)))" "$(fsum "$SCRATCH/ref")"
    uspace_run_ok "deactivated" lvx lvchange -an "$VG/r"
    test_eq "every superblock: md's finished state (B's stripe, no reshape, both offsets $3)" \
        "$(fields)" "devices=5 level=$LEVEL layout=$LAYOUT_NO stripe=$2 flags=0 reshape=ffffffffffffffff delta_disks=0 array_sectors=$4 data_offset=$3 new_data_offset=$3 sectors=8192 recovery=ffffffffffffffff resync=ffffffffffffffff dirty=0 "
    for i in 0 1 2 3 4; do pv_get "r_rimage_$i" 0 $((8 * M)) "$SCRATCH/img$i"; done
    test_ok "on the PVs: every row and P/Q in B ($1, chunk $2 at $3, md's placement)" \
        "$PYTHON" "$GEO" verify "$SCRATCH/ref" 0 "$4" "$1" "$2" "$3" "${IMGS[@]}"
}

uspace_run_ok "PVs, VG" sh -c "$LVX pvcreate -q ${DEVS[*]} && $LVX vgcreate -q $VG ${DEVS[*]}"

# ---- 1. raid6_zr -i3, 64k -> 128k, forward, recorded at 7680
test_ok "raid6 -i3 -I 64k -L 24m r: in sync, deactivated, paced" new_lv raid6 3 64k 24m
test_eq "superblock: level 6, layout 8 (md's rotating zero restart: raid6_zr)" "$LEVEL $LAYOUT_NO" "6 8"
test_ok "metadata: RESHAPE flags, reshape_count 1, stripe size 128k" reshaped_meta 256
test_ok "A's rows and P/Q (64k chunks at 8192), B's below 7680 (128k at 0) built" \
    rows 24576 raid6_zr 128 8192 256 0 0 7680
test_ok "superblocks: RESHAPE_ACTIVE at 7680, new stripe 256, data 8192 -> 0" \
    sb_set flags=1 reshape=7680 new_stripe=256 delta_disks=0 array_sectors=24576 \
    data_offset=8192 new_data_offset=0 sectors=16384 bm_sync_size=8192
: >"$LOG"
uspace_run_ok "the daemon activates r read-write" lvx lvchange -ay "$VG/r"
uspace_kill_daemon
test_ok "SIGKILL at once: the daemon is gone" test -z "$(uspace_daemon_pids)"
test_ok "its log: the reshape resumed at 7680 of 24576, forward" \
    grep -q "$VG/r: reshape resumed at sector 7680 of 24576 (forward), paced at 256 KiB/s per device" "$LOG"
test_eq "no checkpoint yet: every superblock at 7680" "$(all_pos)" 7680
: >"$LOG"
uspace_run_ok "lvx daemon start (serves r again)" lvx daemon start
test_ok "the walk resumed from 7680" grep -q "$VG/r: reshape resumed at sector 7680 of 24576" "$LOG"
mid_walk 7680 2048 20480 12 8192 24575
# every flush of PV 0 held 1.5 s: the finish (flush, F1, flush, F2, flush) is slow
# enough for a SIGKILL to land between F1 and F2
kill_resume 24576 forward pv=0,op=flush,kind=delay=1500
at_f1() {  # rmeta 0 records the reshape at its end (F1)
    for _ in $(seq 300); do [[ $(pos_of 0) == 24576 ]] && return 0; sleep 0.1; done
    return 1
}
test_ok "F1 recorded (reshape_position 24576 in image 0's superblock)" at_f1
uspace_kill_daemon
test_ok "SIGKILL between F1 and F2: the daemon is gone, no end logged" \
    test -z "$(uspace_daemon_pids)" -a "$(grep -c "reshape done" "$LOG")" = 0
f1() {
    local i f
    for i in 0 1 2 3 4; do
        for f in stripe flags reshape delta_disks array_sectors data_offset new_data_offset sectors; do
            printf '%s ' "$f=$(sb_field r_rmeta_$i $f)"
        done
        echo
    done | sort -u
}
test_eq "every superblock at F1: A's stripe, the reshape at its end, both offsets B's" "$(f1)" \
    "stripe=128 flags=1 reshape=6000 delta_disks=0 array_sectors=24576 data_offset=0 new_data_offset=0 sectors=8192 "
: >"$LOG"
uspace_run_ok "lvx daemon start" lvx daemon start
test_ok "the reshape ends at once (logged: 0 steps, B's geometry)" \
    wait_done "$VG/r: reshape done after 0 steps: 5 legs, chunk 256, data at 0, 24576 sectors"
ends raid6_zr 256 0 24576
uspace_run_ok "r removed" lvx lvremove -q -y "$VG/r"

# ---- 2. raid5_ls -i4, 128k -> 64k, backward, recorded at 24576
test_ok "raid5 -i4 -I 128k -L 32m r: in sync, deactivated, paced" new_lv raid5 4 128k 32m
test_ok "metadata: RESHAPE flags, reshape_count 1, stripe size 64k" reshaped_meta 128
test_ok "A's rows (128k chunks at 0), B's from 24576 up (64k at 8192) built" \
    rows 32768 raid5_ls 256 0 128 8192 24576 32768
test_ok "superblocks: RESHAPE_ACTIVE|BACKWARDS at 24576, new stripe 128, data 0 -> 8192" \
    sb_set flags=3 reshape=24576 new_stripe=128 delta_disks=0 array_sectors=32768 \
    data_offset=0 new_data_offset=8192 sectors=16384 bm_sync_size=8192
: >"$LOG"
uspace_run_ok "the daemon activates r read-write" lvx lvchange -ay "$VG/r"
test_ok "its log: the reshape resumed at 24576, backward" \
    grep -q "$VG/r: reshape resumed at sector 24576 of 32768 (backward), paced at 256 KiB/s per device" "$LOG"
mid_walk 24064 28672 2048 16 1 24064
kill_resume 32768 backward
test_ok "the reshape ends (logged)" wait_done
test_ok "... B's geometry logged" \
    grep -q "$VG/r: reshape done after [0-9]* steps: 5 legs, chunk 128, data at 8192, 32768 sectors" "$LOG"
ends raid5_ls 128 8192 32768

# ---- 3. a kill inside the finish (2's LV, deactivated, in md's finished state)
F1=(flags=3 reshape=0 stripe=256 new_stripe=128 data_offset=8192 new_data_offset=8192)
ev=$(sb_field r_rmeta_4 events)
test_ok "image 4's superblock left at F1 (one round behind the others' F2)" \
    sb_set "${F1[@]}" events=$((ev - 1)) legs=4
: >"$LOG"
uspace_run_ok "activated" lvx lvchange -ay "$VG/r"
test_ok "the round is completed (image 4 named), not refused" \
    grep -q "$VG/r: image 4 is one superblock round behind (reshape_position 0): the round is completed" "$LOG"
ends raid5_ls 128 8192 32768
test_ok "every superblock at F1 (a kill between F1 and F2)" sb_set "${F1[@]}"
: >"$LOG"
uspace_run_ok "activated" lvx lvchange -ay "$VG/r"
test_ok "the reshape ends at once (logged: 0 steps)" \
    wait_done "$VG/r: reshape done after 0 steps: 5 legs, chunk 128, data at 8192, 32768 sectors"
ends raid5_ls 128 8192 32768
uspace_run_ok "r removed" lvx lvremove -q -y "$VG/r"

# ---- 4. raid5_ls 3 -> 4 stripes (4 -> 5 legs, LVM2's metadata with the fifth image),
# 64k, forward, recorded at 6144; the new space (LV sectors from 24576) zeros (md)
test_ok "raid5 -i4 -I 64k -L 32m r: in sync, deactivated, paced" new_lv raid5 4 64k 32m
test_ok "metadata: RESHAPE flags, reshape_count 1, stripe size 64k, 16 MiB" reshaped_meta
grow_rows() {
    local i
    head -c $((12 * M)) /dev/urandom >"$SCRATCH/data" || return 1
    head -c $((4 * M)) /dev/zero >>"$SCRATCH/data"
    cp "$SCRATCH/data" "$SCRATCH/ref"
    for i in "${IMGS[@]}"; do : >"$i"; truncate -s $((8 * M)) "$i"; done
    "$PYTHON" "$GEO" plant "$SCRATCH/data" 0 24576 raid5_ls 128 8192 "${IMGS[@]:0:4}" &&
        "$PYTHON" "$GEO" plant "$SCRATCH/data" 0 6144 raid5_ls 128 0 "${IMGS[@]}" &&
        "$PYTHON" "$GEO" verify "$SCRATCH/data" 6144 24576 raid5_ls 128 8192 "${IMGS[@]:0:4}" || return 1
    for i in 0 1 2 3 4; do pv_put "r_rimage_$i" 0 "$SCRATCH/img$i"; done
}
test_ok "A's rows on 4 legs (64k at 8192, 12 MiB), B's on 5 below 6144 (64k at 0) built" grow_rows
test_ok "superblocks: RESHAPE_ACTIVE at 6144, delta_disks 1, 24576 sectors, data 8192 -> 0" \
    sb_set flags=1 reshape=6144 new_stripe=128 delta_disks=1 array_sectors=24576 \
    data_offset=8192 new_data_offset=0 sectors=16384 bm_sync_size=8192
: >"$LOG"
uspace_run_ok "the daemon activates r read-write" lvx lvchange -ay "$VG/r"
test_ok "its log: the reshape resumed at 6144 of 32768, forward" \
    grep -q "$VG/r: reshape resumed at sector 6144 of 32768 (forward), paced at 256 KiB/s per device" "$LOG"
mid_walk 6144 1024 20480 12 6656 32767
uspace_run_ok "deactivated mid-walk" lvx lvchange -an "$VG/r"
stopped=$(sed -n "s|.*$VG/r: reshape stopped at sector \([0-9]*\) (recorded)|\1|p" "$LOG" | tail -1)
# (seen once under a loaded machine: no stop line; the daemon's reshape lines then shown)
[[ -n $stopped ]] || diag "no stop logged; the daemon's log: $(grep "$VG/r: \|RAID" "$LOG" | tail -n 8)"
test_eq "the stop's position (logged, ${stopped:-none}) in every superblock, past the checkpoint" \
    "$(all_pos) $(test "${stopped:-0}" -ge "${ck:-0}" -a "${stopped:-0}" -lt 32768 && echo in)" "${stopped:-none} in"
: >"$LOG"
uspace_run_ok "reactivated" lvx lvchange -ay "$VG/r"
test_ok "the walk resumed there" \
    grep -q "$VG/r: reshape resumed at sector ${stopped:-none} of 32768 (forward)" "$LOG"
sleep 1
kill_resume 32768 forward
test_ok "the reshape ends (logged)" wait_done
test_ok "... B's geometry logged" \
    grep -q "$VG/r: reshape done after [0-9]* steps: 5 legs, chunk 128, data at 0, 32768 sectors" "$LOG"
uspace_run_ok "1 MiB written in the new space (at 14 MiB)" put 28672 1024
ends raid5_ls 128 0 32768
lvx daemon stop >/dev/null 2>&1
done_testing
