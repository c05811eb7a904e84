#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0933-fuse-uring-worker-death: the daemon's FUSE transport over io_uring with
# rings of the worker's own (LVX_FUSE_URING=worker) and the death of its worker.
# The kernel never resends the requests held by a dead process's ring entries
# (FUSE_NOTIFY_RESEND covers /dev/fuse reads only), so the supervisor aborts that
# connection and serves the LVs on a new one (the default, rings kept by the
# supervisor, carries on instead: t0994):
#   - the daemon is started with the fuse module's enable_uring on (its old value is
#     put back as soon as INIT is answered: the connection keeps io_uring) and must
#     log "FUSE transport: io_uring"; a kernel without it skips the whole test;
#   - fio (direct random writes, iodepth 16) runs on the LV; the worker gets SIGSTOP
#     (so that its ring entries hold requests), then SIGKILL;
#     fio must end (success or an error) within a bound enforced by `timeout`, a hang
#     detector: when it does not, the connection is aborted through fusectl by the
#     test so nothing stays stuck, and the check fails;
#   - the supervisor logged the abort and runs a new worker, on a new mount;
#   - the LV works after re-activation: a pattern written through it reads back;
#   - at the end no loop device on the daemon's files, no mount, no daemon.
# The daemon is private to the test ($SCRATCH/us/run).
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"
source "$LVX_ROOT/tests/tools/fuse-conn.sh"
export LVX_FUSE_URING=worker    # io_uring when the kernel offers it, rings of the worker

need_root
need_loop
need_lvx
need_cmd fio lvm timeout
[[ -c /dev/fuse ]] || skip_all "no /dev/fuse"
PARAM=/sys/module/fuse/parameters/enable_uring
[[ -e $PARAM ]] || skip_all "the fuse module has no enable_uring parameter (kernel without FUSE over io_uring)"
[[ -w $PARAM ]] || skip_all "$PARAM is not writable"

VG=vgur$$
[[ -e /dev/$VG ]] && skip_all "/dev/$VG exists"
PARAM_OLD=
FUSECTL_MOUNTED=
CONN=
t0933_exit() {
    [[ -n $PARAM_OLD ]] && echo "$PARAM_OLD" >"$PARAM" 2>/dev/null
    # a hang left behind (the check failed): free it before the daemon is stopped
    [[ -n ${HUNG:-} ]] && abort_conn
    [[ -n $FUSECTL_MOUNTED ]] && umount /sys/fs/fuse/connections 2>/dev/null
    _uspace_test_exit
}

DEVS=()
for i in 0 1; do DEVS+=("$(make_loop 128M)"); done
uspace_test_env "$VG" "${DEVS[@]}"
trap t0933_exit EXIT
LOG=$LVX_RUN_DIR/lvxd.log
LV=$DM_DEV_DIR/$VG/lv

# ------------------------------------------------------------ the daemon on io_uring
# the parameter is machine-wide: the tests that change it (t0906, t0933) take turns
exec {PARAM_LOCK}>/tmp/lvx-fuse-enable-uring.lock
flock "$PARAM_LOCK"
lvx pvcreate -q "${DEVS[@]}" >/dev/null 2>&1 && lvx vgcreate -q "$VG" "${DEVS[@]}" >/dev/null 2>&1 ||
    skip_all "cannot make the VG"
PARAM_OLD=$(cat "$PARAM")
echo Y >"$PARAM" || skip_all "cannot set $PARAM"
lvx daemon start >"$SCRATCH/start.out" 2>&1
wait_log "FUSE transport:" 20
echo "$PARAM_OLD" >"$PARAM"
PARAM_OLD=
transport=$(grep -m1 "FUSE transport:" "$LOG" | sed 's/.*FUSE transport: //')
[[ $transport == io_uring* ]] || skip_all "the daemon's transport is not io_uring here: ${transport:-none logged}"
CONN=$(conn_of_mount)
diag "transport: $transport; FUSE connection $CONN"

uspace_run_ok "lvcreate -n lv -L 64m (active, served through io_uring)" lvx lvcreate -Zn -n lv -L 64m "$VG"
test_ok "/dev/$VG/lv is a block device" test -b "$LV"
loop=$(realpath "$LV")
uspace_run_ok "direct write through the rings before the kill" \
    dd if=/dev/urandom of="$LV" bs=1M count=8 oflag=direct

# ------------------------------------------------------------ SIGKILL of the worker
read -r sup worker <<<"$(uspace_daemon_pids)"
test_ok "the daemon runs (supervisor $sup, worker $worker)" test -n "$worker"
timeout -k 5 40 fio --name=w --filename="$LV" --rw=randwrite --bsrange=4k-256k --direct=1 \
    --ioengine=libaio --iodepth=16 --time_based --runtime=20 >"$SCRATCH/fio.out" 2>&1 &
fpid=$!
sleep 2
# stopped first: its ring entries then surely hold requests when it dies
kill -STOP "$worker"
sleep 0.5
kill -9 "$worker"
ended=1
for ((i = 0; i < 600; i++)); do     # 60 s: above timeout's 40 + 5
    kill -0 "$fpid" 2>/dev/null || { ended=0; break; }
    sleep 0.1
done
diag "fio ended $((i / 10)).$((i % 10)) s after the kill (reported, not asserted)"
if ((ended == 0)); then
    wait "$fpid"
    frc=$?
else
    HUNG=1
    frc=hung
fi
test_eq "fio ended after the worker's SIGKILL (success or an error, no hang)" "$ended" "0"
test_ok "fio was not stopped by timeout (exit $frc)" test "$frc" != hung -a "$frc" != 124 -a "$frc" != 137
diag "fio exit status: $frc; $(grep -m1 -o 'err=[ 0-9]*[^)]*' "$SCRATCH/fio.out" || echo 'no error reported')"
if [[ -n ${HUNG:-} ]]; then
    abort_conn
    HUNG=
    wait "$fpid" 2>/dev/null
fi

test_ok "the supervisor logged the abort of the io_uring connection" \
    wait_log "while serving through io_uring: .* aborting the connection" 10
test_ok "a new worker serves the LV on the new mount (not a restart)" wait_log "worker serving .* with [0-9]* threads, 1 LV(s) restored" 20
read -r sup2 worker2 <<<"$(uspace_daemon_pids)"
test_ok "the same supervisor ($sup), a new worker ($worker2)" \
    test "$sup2" = "$sup" -a -n "$worker2" -a "$worker2" != "$worker"
test_ok "the mount is a new FUSE connection" test -n "$(conn_of_mount)" -a "$(conn_of_mount)" != "$CONN"

# ------------------------------------------------------------ the LV again
uspace_run_ok "lvchange -an $VG/lv" lvx lvchange -an "$VG/lv"
test_ok "the loop device fio used is released" \
    bash -c "for i in \$(seq 50); do grep -qF '$LVX_RUN_DIR' /sys/block/${loop#/dev/}/loop/backing_file 2>/dev/null || exit 0; sleep 0.1; done; exit 1"
uspace_run_ok "lvchange -ay $VG/lv" lvx lvchange -ay "$VG/lv"
head -c 4M /dev/urandom >"$SCRATCH/pat"
uspace_run_ok "a 4 MiB pattern written through the re-activated LV" \
    dd if="$SCRATCH/pat" of="$LV" bs=1M oflag=direct conv=fsync
test_eq "it reads back" "$(dd if="$LV" bs=1M count=4 iflag=direct 2>/dev/null | cksum)" \
    "$(cksum <"$SCRATCH/pat")"

# ------------------------------------------------------------ nothing left
uspace_run_ok "vgremove -f" lvx vgremove -f "$VG"
uspace_run_ok "lvx daemon stop" lvx daemon stop
for ((i = 0; i < 50; i++)); do [[ -z $(uspace_leftovers) ]] && break; sleep 0.1; done
test_eq "no loop device, mount or daemon left" "$(uspace_leftovers)" ""
diag "the daemon's log:" "$(grep -E 'FUSE|worker|abort|resend|attached|bound' "$LOG" | cut -c1-200)"
done_testing
