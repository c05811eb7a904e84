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
kill_at() {
    local n=$1 what=$2
    test_ok "$what: A's and B's rows planted at 8192" reshaping_rows 8192
    test_ok "$what: superblocks: reshape at 8192 (stripe 128 -> 256)" plant_sb
    cp "$SCRATCH/d16" "$SCRATCH/ref"
    : >"$LOG"
    : >"$IOLOG"
    uspace_run_ok "$what: lvx daemon start (kill at image 2's superblock write $n)" \
        env LVX_TEST_IO_LOG="$IOLOG" \
        LVX_TEST_DP_FAULT="pv=$SB_DEV,op=write,off=$((SB_SEC * 512)),kind=kill,after=$((n - 1)),count=1" \
        "$LVX" daemon start
    uspace_run_ok "$what: r activated (the walk starts)" lvx lvchange -ay "$VG/r"
    uspace_run_ok "$what: 1 MiB written at 1 MiB (moved side)" put 1
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
done_testing
