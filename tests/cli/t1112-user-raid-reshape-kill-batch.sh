#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1112-user-raid-reshape-kill-batch: the daemon's worker killed INSIDE one superblock
# round of a reshape (docs/reshape-user.md §3.4, §9), by the I/O seam's fault rule
# kind=kill (LVX_TEST_DP_FAULT: the worker SIGKILLs itself at image 2's superblock write,
# after images 0 and 1 got theirs in the same batch).  The supervisor starts a new
# worker, which takes the LV back from the mixed superblocks.  t1107's state (raid5_ls -i4
# r of 16 MiB, 64k chunks at 8192 -> 128k at 0, forward, recorded at LV sector 8192,
# --maxrecoveryrate 256k); image 2's superblock writes during a walk: 1 the activation's,
# 2 the 10 s checkpoint, 3 F1, 4 F2.  Killed at:
#   2. the checkpoint: images 0-1 record position P > 8192, images 2-4 still 8192;
#   3. F1: images 0-1 at F1 (the reshape at its end), 2-4 in progress at P;
#   4. F2: images 0-1 finished (md's state), 2-4 at F1.
# Each time: the kill happened where asked (the dpfault line of the I/O log), the new
# worker completes the round (logged, naming image 2) and ends the reshape; the LV's
# bytes are the reference (with a write made before the kill), every superblock md's
# finished state.  The kill rule and the counts shared with
# the restarted worker are new: on the code before them the rule is refused (no kill) and
# 14 of the 43 checks fail.
# Then image 2's superblock write fails for good (kind=eio from the Nth write on: the
# leg's rmeta dies inside the round) at 3 (F1) and 4 (F2): the daemon marks leg 2 failed,
# writes the round on the others and ends the reshape degraded (lvs: refresh needed),
# r reads the reference; the live legs hold md's finished state with leg 2 failed, leg
# 2's own superblock stays one or two rounds behind; with the fault gone the next
# activation rebuilds leg 2 in the new layout (rows and parity on the PVs as md's).
# shellcheck disable=SC2317  # the helpers below are called through test_ok / uspace_run_ok
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/uspace-env.sh
source "$LVX_ROOT/tests/tools/uspace-env.sh"
: "${PYTHON:=python3}"
need_cmd "$PYTHON"
VG=vgrsk$$
uspace_test_loops "$VG" 5 64M
source "$LVX_ROOT/tests/tools/raid-pvread.sh"
# shellcheck source=tests/tools/raid-reshaped.sh
source "$LVX_ROOT/tests/tools/raid-reshaped.sh"
plan_later
M=1048576
LOG=$LVX_RUN_DIR/lvxd.log
IOLOG=$SCRATCH/io.log
R=$DM_DEV_DIR/$VG/r

uspace_run_ok "raid5 -i4 -I 64k -L 32m r: in sync, deactivated, --maxrecoveryrate 256k" new_r5_paced
test_ok "metadata: raid5+RESHAPE+RESHAPE_DATA_OFFSET, stripe size 128k" reshaped_meta 256
read -r SB_DEV SB_SEC <<<"$(pv_at r_rmeta_2)"
uspace_run_ok "lvx daemon stop" lvx daemon stop

finished() {
    local i f
    for i in 0 1 2 3 4; do
        for f in devices stripe flags reshape delta_disks data_offset new_data_offset sectors dirty; do
            printf '%s ' "$f=$(sb_field r_rmeta_$i $f)"
        done
        echo
    done | sort -u
}
put() {  # 1 MiB of random bytes at MiB $1 of r, and into the reference
    head -c "$M" /dev/urandom >"$SCRATCH/w.bin" &&
        dd if="$SCRATCH/w.bin" of="$R" bs=64k seek=$(($1 * 16)) oflag=direct conv=fsync status=none &&
        dd if="$SCRATCH/w.bin" of="$SCRATCH/ref" bs=64k seek=$(($1 * 16)) conv=notrunc status=none
}
plant_sb() { sb_set stripe=128 && reshaping_sb 8192; }
# kill_at N WHAT [finished]: the state planted again, the daemon started with the kill at
# image 2's Nth superblock write, r activated; waits for the new worker's end of the
# reshape (finished: for its start, the reshape being over on images 0-1)
# start_faulted WHAT FAULT DESC: t1107's state planted again (reference: d16), the daemon
# started with FAULT (kind and counts) on image 2's superblock writes, r activated, 1 MiB
# written on the moved side
start_faulted() {
    local what=$1
    test_ok "$what: A's and B's rows planted at 8192" reshaping_rows 8192
    test_ok "$what: superblocks: reshape at 8192 (stripe 128 -> 256)" plant_sb
    cp "$SCRATCH/d16" "$SCRATCH/ref"
    : >"$LOG"
    : >"$IOLOG"
    uspace_run_ok "$what: lvx daemon start ($3)" env LVX_TEST_IO_LOG="$IOLOG" \
        LVX_TEST_DP_FAULT="pv=$SB_DEV,op=write,off=$((SB_SEC * 512)),$2" "$LVX" daemon start
    uspace_run_ok "$what: r activated (the walk starts)" lvx lvchange -ay "$VG/r"
    uspace_run_ok "$what: 1 MiB written at 1 MiB (moved side)" put 1
}
kill_at() {
    local n=$1 what=$2
    start_faulted "$what" "kind=kill,after=$((n - 1)),count=1" "kill at image 2's superblock write $n"
    local until="$VG/r: reshape done"
    [[ ${3:-} == finished ]] && until="$VG/r: image 2 is one superblock round behind"
    for _ in $(seq 300); do grep -q "$until" "$LOG" && break; sleep 0.2; done
    test_eq "$what: the I/O log: one kill, at image 2's superblock" \
        "$(grep -c '^dpfault kill' "$IOLOG") $(grep '^dpfault kill' "$IOLOG" | awk '{print $4, $NF}')" \
        "1 $((SB_SEC * 512)) $SB_DEV"
    test_ok "$what: the worker died by SIGKILL and a new one started" \
        grep -q "worker [0-9]* killed by signal 9: starting a new one" "$LOG"
}
after_kill() {
    local what=$1
    if [[ ${2:-} == finished ]]; then
        test_eq "$what: the new worker serves r finished (no walk resumed after the kill)" \
            "$(grep -c "$VG/r: reshape resumed" "$LOG") $(grep -c "$VG/r: reshape done" "$LOG")" "1 0"
    else
        test_ok "$what: the new worker ends the reshape" \
            grep -q "$VG/r: reshape done after [0-9]* steps: 5 legs, chunk 256, data at 0, 32768 sectors" "$LOG"
    fi
    test_eq "$what: r reads the reference" "$(lv_sum "$R" 0 $((16 * M)))" "$(fsum "$SCRATCH/ref")"
    uspace_run_ok "$what: deactivated" lvx lvchange -an "$VG/r"
    test_eq "$what: every superblock md's finished state" "$(finished)" \
        "devices=5 stripe=256 flags=0 reshape=ffffffffffffffff delta_disks=0 data_offset=0 new_data_offset=0 sectors=8192 dirty=0 "
    uspace_run_ok "$what: lvx daemon stop" lvx daemon stop
    for _ in $(seq 50); do [[ -z $(uspace_daemon_pids) ]] && break; sleep 0.1; done
}

# 2: the checkpoint's round cut after images 0 and 1
kill_at 2 "checkpoint"
ck=$(grep -o "image 2 is one superblock round behind (reshape_position [0-9]*)" "$LOG" | head -1)
test_ok "checkpoint: the new worker completes the round (image 2 named: ${ck:-nothing})" test -n "$ck"
pos=$(sed -n "s|.*$VG/r: reshape resumed at sector \([0-9]*\) of 32768.*|\1|p" "$LOG" | sed -n 2p)
test_ok "checkpoint: it resumes past 8192 (${pos:-none}), from images 0-1's record" \
    test "${pos:-0}" -gt 8192
after_kill "checkpoint"

# 3: F1's round cut: images 0-1 record the end, 2-4 the last checkpoint
kill_at 3 "F1"
test_ok "F1: the round is completed (image 2 named)" \
    grep -q "$VG/r: image 2 is one superblock round behind" "$LOG"
after_kill "F1"

# 4: F2's round cut: images 0-1 finished, 2-4 at F1
kill_at 4 "F2" finished
test_ok "F2: the leg left at F1 is taken as one round behind (image 2 named)" \
    grep -q "$VG/r: image 2 is one superblock round behind" "$LOG"
after_kill "F2" finished

# image 2's superblock write fails (EIO) from its Nth write on, inside round F1 or F2
ROWS=$LVX_ROOT/tests/tools/reshape_rows.py
FIN="devices=5 level=5 stripe=256 flags=0 reshape=ffffffffffffffff delta_disks=0 data_offset=0 new_data_offset=0 sectors=8192 recovery=ffffffffffffffff resync=ffffffffffffffff "
fail_at() {
    local n=$1 what=$2 behind=$3
    start_faulted "$what" "kind=eio,after=$((n - 1))" "image 2's superblock writes fail from the ${n}th on"
    for _ in $(seq 300); do grep -q "$VG/r: reshape done" "$LOG" && break; sleep 0.2; done
    test_ok "$what: the reshape ends (logged)" grep -q "$VG/r: reshape done after [0-9]* steps: 5 legs, chunk 256" "$LOG"
    test_ok "$what: the I/O log: image 2's superblock write failed" \
        grep -q "^dpfault eio [^ ]* $((SB_SEC * 512)) [^ ]* $SB_DEV\$" "$IOLOG"
    test_ok "$what: leg 2 failed (logged)" grep -q "$VG/r: RAID leg 2 failed" "$LOG"
    test_eq "$what: lvs: health refresh needed" \
        "$("$LVX" lvs --noheadings -o lv_health_status "$VG/r" | xargs)" "refresh needed"
    test_eq "$what: r reads the reference (degraded)" "$(lv_sum "$R" 0 $((16 * M)))" "$(fsum "$SCRATCH/ref")"
    uspace_run_ok "$what: deactivated; lvx daemon stop" sh -c "$LVX lvchange -an $VG/r && $LVX daemon stop"
    for _ in $(seq 50); do [[ -z $(uspace_daemon_pids) ]] && break; sleep 0.1; done
    test_eq "$what: the live legs' superblocks: md's finished state, leg 2 failed (bit 2)" \
        "$(sb_fin_fields 0 1 3 4) $(sb_field r_rmeta_0 failed)" "$FIN 4"
    # behind: "checkpoint" (F1 failed: the last checkpoint's position, past 8192) or
    # "F1" (F2 failed: the reshape recorded at its end, 32768)
    local p2
    p2=$(pos_of 2)
    test_eq "$what: leg 2's own superblock stays behind: reshape recorded at $p2" \
        "$(sb_field r_rmeta_2 flags) $([[ $behind == F1 ]] && echo "$p2" ||
            { ((p2 > 8192 && p2 < 32768)) && echo between; })" \
        "1 $([[ $behind == F1 ]] && echo 32768 || echo between)"
    : >"$LOG"
    uspace_run_ok "$what: the fault gone: lvx daemon start, r activated" \
        sh -c "$LVX daemon start >/dev/null && $LVX lvchange -ay $VG/r"
    test_ok "$what: leg 2 rebuilt (logged)" logged "$VG/r: RAID leg 2 is rebuilt from the others"
    test_ok "$what: in sync (polled)" wait_synced r
    test_eq "$what: r reads the reference" "$(lv_sum "$R" 0 $((16 * M)))" "$(fsum "$SCRATCH/ref")"
    uspace_run_ok "$what: deactivated" lvx lvchange -an "$VG/r"
    test_eq "$what: every superblock md's finished state, no leg failed" \
        "$(sb_fin_fields 0 1 2 3 4) $(sb_field r_rmeta_0 failed)" "$FIN 0"
    local i
    for i in 0 1 2 3 4; do pv_get "r_rimage_$i" 0 $((8 * M)) "$SCRATCH/img$i"; done
    test_ok "$what: on the PVs every row and parity in B (128k chunks at 0), leg 2's too" \
        "$PYTHON" "$ROWS" verify "$SCRATCH/ref" 32768 128 8192 256 0 "${IMGS[@]}"
    uspace_run_ok "$what: lvx daemon stop" lvx daemon stop
    for _ in $(seq 50); do [[ -z $(uspace_daemon_pids) ]] && break; sleep 0.1; done
}
fail_at 3 "EIO at F1" checkpoint
fail_at 4 "EIO at F2" F1
done_testing
