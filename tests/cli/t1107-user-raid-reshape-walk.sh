#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1107-user-raid-reshape-walk: lvx's user-space daemon continues a raid5 reshape in
# progress to its end, as md would (docs/reshape-user.md step 4, §9).  The state is
# built on the PVs as md leaves it (t1105's way, tests/tools/reshape_rows.py): raid5_ls
# -i4 r of 16 MiB (images of 2 extents, one of them reshape space), stripe size 64k (A:
# data at 8192 in each image) -> 128k (B: data at 0, forward), recorded at LV sector
# 8192; --maxrecoveryrate 256k paces the walk (about 12 s).  The daemon activates it
# read-write and walks: lvs shows `reshape` between 0 and 100%, writes during the walk
# (moved side, unmoved side, the moved but unrecorded range) land; a deactivation
# mid-way records the position and the next activation resumes there (one image's
# superblock left a round behind, as a crash inside a round leaves it: the round is
# completed); a SIGKILL of the daemon mid-walk resumes from the last record.  At the end: the LV's bytes are the
# reference, every superblock is md's finished state (§2.1 "after the end"), the rows
# and parity on the PVs are B's (md's placement), the status idle.
# On the code before step 4 (frozen serving) 16 of its checks failed (32 then; 30 since
# t1112 shares its setup, one check where there were three).
# shellcheck disable=SC2317  # the helpers below are called through test_ok / uspace_run_ok
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/uspace-env.sh
source "$LVX_ROOT/tests/tools/uspace-env.sh"
: "${PYTHON:=python3}"
need_cmd "$PYTHON"
VG=vgrsw$$
uspace_test_loops "$VG" 5 64M
source "$LVX_ROOT/tests/tools/raid-pvread.sh"
# shellcheck source=tests/tools/raid-reshaped.sh
source "$LVX_ROOT/tests/tools/raid-reshaped.sh"
plan_later
M=1048576
ROWS=$LVX_ROOT/tests/tools/reshape_rows.py
LOG=$LVX_RUN_DIR/lvxd.log
R=$DM_DEV_DIR/$VG/r

uspace_run_ok "raid5 -i4 -I 64k -L 32m r: in sync, deactivated, --maxrecoveryrate 256k" new_r5_paced
layout=$(sb_field r_rmeta_0 layout)
test_ok "metadata: raid5+RESHAPE+RESHAPE_DATA_OFFSET, reshape_count 1, stripe size 128k" reshaped_meta 256
test_ok "A's rows (64k chunks at 8192) and B's below 8192 (128k chunks at 0) built" \
    reshaping_rows 8192
test_ok "superblocks: RESHAPE_ACTIVE at 8192, new stripe 256, data 8192 -> 0" reshaping_sb 8192
IMGS=("$SCRATCH"/img{0,1,2,3,4})
cp "$SCRATCH/d16" "$SCRATCH/ref"
# put FILE-OFFSET-MiB LENGTH-KiB: random bytes written through r and into the reference
put() {
    head -c $(($2 * 1024)) /dev/urandom >"$SCRATCH/w.bin" &&
        dd if="$SCRATCH/w.bin" of="$R" bs=64k seek=$(($1 * 16)) oflag=direct conv=fsync \
            status=none &&
        dd if="$SCRATCH/w.bin" of="$SCRATCH/ref" bs=64k seek=$(($1 * 16)) conv=notrunc status=none
}

: >"$LOG"
uspace_run_ok "the daemon activates r read-write" lvx lvchange -ay "$VG/r"
test_ok "its log: the reshape resumed at 8192 of 32768, forward, paced" \
    grep -q "$VG/r: reshape resumed at sector 8192 of 32768 (forward), paced at 256 KiB/s per device" "$LOG"
sleep 1
test_ok "lvs mid-way: raid_sync_action reshape, 0 < sync_percent < 100" moving
uspace_run_ok "512 KiB written at 4 MiB (LV sector 8192: moved, not yet recorded)" put 4 512
put_two() { put 1 1024 && put 14 1024; }
uspace_run_ok "1 MiB written at 1 MiB (moved side) and at 14 MiB (not moved yet)" put_two
test_eq "r reads the reference mid-walk" "$(lv_sum "$R" 0 $((16 * M)))" "$(fsum "$SCRATCH/ref")"
test_ok "still moving before the deactivation" moving
uspace_run_ok "deactivated mid-walk" lvx lvchange -an "$VG/r"
stopped=$(sed -n "s|.*$VG/r: reshape stopped at sector \([0-9]*\) (recorded)|\1|p" "$LOG" | tail -1)
test_ok "the log names the position recorded at the stop: 8192 < ${stopped:-none} < 32768" \
    test "${stopped:-0}" -gt 8192 -a "${stopped:-0}" -lt 32768
test_eq "every superblock records it" "$(for i in 0 1 2 3 4; do pos_of $i; echo; done | sort -u)" "${stopped:-none}"
ev=$(sb_field r_rmeta_3 events)
test_ok "image 3's superblock one round behind (events $((ev - 1)), reshape_position 8192)" \
    sb_set events=$((ev - 1)) reshape=8192 legs=3
: >"$LOG"
uspace_run_ok "reactivated" lvx lvchange -ay "$VG/r"
test_ok "the half-written round is completed (image 3 named), not refused" \
    grep -q "$VG/r: image 3 is one superblock round behind (reshape_position 8192): the round is completed" "$LOG"
test_ok "the walk resumed from the freshest record" \
    grep -q "$VG/r: reshape resumed at sector ${stopped:-none} of 32768" "$LOG"
sleep 2
uspace_kill_daemon
test_ok "the daemon is gone (SIGKILL mid-walk)" test -z "$(uspace_daemon_pids)"
killed=$(pos_of 0)
: >"$LOG"
uspace_run_ok "lvx daemon start (serves r again)" lvx daemon start
test_ok "the walk resumed from the last record ($killed)" \
    grep -q "$VG/r: reshape resumed at sector $killed of 32768" "$LOG"
for _ in $(seq 150); do grep -q "$VG/r: reshape done" "$LOG" && break; sleep 0.2; done
test_ok "the reshape ends (logged)" grep -q "$VG/r: reshape done after [0-9]* steps: 5 legs, chunk 256, data at 0, 32768 sectors" "$LOG"
test_eq "lvs after: idle 100%, data_offset 0" \
    "$("$LVX" lvs --noheadings -o raid_sync_action,sync_percent,data_offset "$VG/r" 2>/dev/null | xargs)" "idle 100.00 0"
test_eq "r reads the reference after the end" "$(lv_sum "$R" 0 $((16 * M)))" "$(fsum "$SCRATCH/ref")"
uspace_run_ok "deactivated" lvx lvchange -an "$VG/r"
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
test_eq "every superblock: md's finished state (B's stripe, no reshape, both offsets 0)" "$(fields)" \
    "devices=5 level=5 layout=$layout stripe=256 flags=0 reshape=ffffffffffffffff delta_disks=0 array_sectors=32768 data_offset=0 new_data_offset=0 sectors=8192 recovery=ffffffffffffffff resync=ffffffffffffffff dirty=0 "
for i in 0 1 2 3 4; do pv_get "r_rimage_$i" 0 $((8 * M)) "$SCRATCH/img$i"; done
test_ok "on the PVs: every row and parity in B (128k chunks at 0, md's placement)" \
    "$PYTHON" "$ROWS" verify "$SCRATCH/ref" 32768 128 8192 256 0 "${IMGS[@]}"
: >"$LOG"
uspace_run_ok "activated again" lvx lvchange -ay "$VG/r"
test_eq "served as an ordinary raid5 (no reshape logged), the reference" \
    "$(grep -c "reshape in progress\\|reshape resumed" "$LOG") $(lv_sum "$R" 0 $((16 * M)))" "0 $(fsum "$SCRATCH/ref")"
uspace_run_ok "deactivated" lvx lvchange -an "$VG/r"
lvx daemon stop >/dev/null 2>&1
done_testing
