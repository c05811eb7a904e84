#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0906-fuse-uring: the daemon's FUSE transport (issue 20).  With the kernel's
# fuse.enable_uring module parameter set (this test sets it as root and puts the old
# value back at the end; the daemon never changes it) the daemon serves its requests
# through io_uring ring entries (FUSE_OVER_IO_URING): its log names the transport and,
# when it stops, how many requests went through each; data written and read through a
# striped LV is checked (fio --verify=crc32c, sha256 of a file written through the LV);
# a killed worker's successor adopts the ring entries, which the supervisor keeps (the
# kernel does not resend what a dead worker's ring entry held; t0994 checks the data).  With the
# parameter off (the kernel does not offer io_uring) or LVX_FUSE_URING=0 the daemon reads
# /dev/fuse, and the same data reads back.  Skips the io_uring part when the kernel has
# no FUSE over io_uring (no writable parameter).
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"
unset LVX_FUSE_URING    # this test's daemons take io_uring when the kernel offers it

need_loop
need_lvx
need_cmd fio lvm sha256sum
[[ -c /dev/fuse ]] || skip_all "no /dev/fuse"
PARAM=/sys/module/fuse/parameters/enable_uring
OLD_PARAM=
# the parameter is machine-wide: the tests that change it (t0906, t0933) take turns
exec {PARAM_LOCK}>/tmp/lvx-fuse-enable-uring.lock
flock "$PARAM_LOCK"
[[ -w $PARAM ]] && OLD_PARAM=$(cat "$PARAM")

VG=vgur$$
D=()
for i in 0 1; do D+=("$(make_loop 160M)"); done
uspace_test_env "$VG" "${D[@]}"
t0906_exit() {
    [[ -n $OLD_PARAM ]] && echo "$OLD_PARAM" >"$PARAM" 2>/dev/null
    _uspace_test_exit
}
trap t0906_exit EXIT
LOG=$LVX_RUN_DIR/lvxd.log
export LVX_DAEMON_THREADS=5     # worker 0 on /dev/fuse, 4 ring entries
LV=$DM_DEV_DIR/$VG/lv

set_param() { [[ -n $OLD_PARAM ]] && echo "$1" >"$PARAM"; }
stop_daemon() {  # deactivate, stop the daemon and wait until it is gone
    "$LVX" vgchange -an "$VG" >/dev/null 2>&1
    "$LVX" daemon stop >/dev/null 2>&1
    for _ in $(seq 100); do [[ -z $(uspace_daemon_pids) ]] && break; sleep 0.1; done
}
# the last "FUSE transport:" and "FUSE requests served:" lines of the log
transport() { grep -o 'FUSE transport: .*' "$LOG" | tail -1; }
served() { grep -o 'FUSE requests served: .*' "$LOG" | tail -1; }
ring_count() { served | sed -n 's/.*served: \([0-9]*\) through io_uring.*/\1/p'; }
fio_run() {  # fio_run NAME extra-args...: crc32c-verified I/O over the whole LV
    local name=$1
    shift
    fio --name="$name" --filename="$LV" --ioengine=libaio --direct=1 --iodepth=8 \
        --bs=64k --size=64m --verify=crc32c --verify_fatal=1 --do_verify=1 \
        --randrepeat=1 "$@" >"$SCRATCH/fio.$name" 2>&1
}

"$LVX" pvcreate -q "${D[@]}" >/dev/null 2>&1
"$LVX" vgcreate -q "$VG" "${D[@]}" >/dev/null 2>&1

if [[ -n $OLD_PARAM ]]; then
    set_param Y
    : >"$LOG"
    uspace_run_ok "lvcreate -i 2 (daemon starts with fuse.enable_uring=Y)" \
        "$LVX" lvcreate -q -n lv -i 2 -I 64k -L 128m "$VG"
    test_eq "the daemon serves FUSE through io_uring" \
        "FUSE transport: io_uring ($(cut -d- -f2 /sys/devices/system/cpu/possible | \
            awk '{print $1 + 1}') queues, 4 entries, kept by the supervisor)" "$(transport)"
    uspace_run_ok "fio write + crc32c verify through the ring (random 64k, depth 8)" \
        fio_run ringw --rw=randwrite
    head -c 32M /dev/urandom >"$SCRATCH/blob"
    dd if="$SCRATCH/blob" of="$LV" bs=1M seek=64 oflag=direct conv=fsync status=none
    echo 3 >/proc/sys/vm/drop_caches
    test_eq "a 32 MiB file written through the ring reads back (sha256, buffered)" \
        "$(sha256sum <"$SCRATCH/blob" | cut -d' ' -f1)" \
        "$(dd if="$LV" bs=1M skip=64 count=32 status=none | sha256sum | cut -d' ' -f1)"
    # a killed worker: the supervisor's new one adopts the ring entries
    read -r _ worker <<<"$(uspace_daemon_pids)"
    kill -9 "$worker"
    for _ in $(seq 100); do
        read -r _ w2 <<<"$(uspace_daemon_pids)"
        [[ -n $w2 && $w2 != "$worker" ]] && break
        sleep 0.1
    done
    for _ in $(seq 50); do [[ $(grep -c 'FUSE transport: io_uring' "$LOG") -ge 2 ]] && break; sleep 0.1; done
    test_eq "a restarted worker serves the ring entries again" \
        2 "$(grep -c 'FUSE transport: io_uring' "$LOG")"
    uspace_run_ok "fio verify-only after the worker restart" \
        fio_run ringw --rw=randwrite --verify_only
    stop_daemon
    n=$(ring_count)
test_ok "requests went through the ring ($(served))" test "${n:-0}" -gt 100

    set_param N
    : >"$LOG"
    uspace_run_ok "vgchange -ay (fuse.enable_uring=N)" "$LVX" vgchange -ay "$VG"
    test_eq "the kernel does not offer io_uring: /dev/fuse reads" \
        "FUSE transport: /dev/fuse reads (the kernel does not offer io_uring)" "$(transport)"
    uspace_run_ok "the data written through the ring verifies through /dev/fuse reads" \
        fio_run ringw --rw=randwrite --verify_only
    echo 3 >/proc/sys/vm/drop_caches
    test_eq "... and the file (sha256)" "$(sha256sum <"$SCRATCH/blob" | cut -d' ' -f1)" \
        "$(dd if="$LV" bs=1M skip=64 count=32 status=none | sha256sum | cut -d' ' -f1)"
    stop_daemon
    test_eq "no request went through a ring" 0 "$(ring_count)"

    set_param Y
    : >"$LOG"
    LVX_FUSE_URING=0 uspace_run_ok "vgchange -ay with LVX_FUSE_URING=0 (parameter Y)" \
        "$LVX" vgchange -ay "$VG"
    test_eq "LVX_FUSE_URING=0: /dev/fuse reads" \
        "FUSE transport: /dev/fuse reads (LVX_FUSE_URING=0)" "$(transport)"
    uspace_run_ok "fio write + verify through /dev/fuse reads" fio_run devw --rw=randwrite
    stop_daemon
    test_eq "... no request through a ring" 0 "$(ring_count)"
else
    test_skip "the kernel has no FUSE over io_uring ($PARAM)"
    uspace_run_ok "lvcreate -i 2" "$LVX" lvcreate -q -n lv -i 2 -I 64k -L 128m "$VG"
    test_eq "/dev/fuse reads" "FUSE transport: /dev/fuse reads (the kernel does not offer io_uring)" \
        "$(transport)"
    uspace_run_ok "fio write + verify through /dev/fuse reads" fio_run devw --rw=randwrite
    stop_daemon
fi
test_eq "nothing left behind" "" "$(uspace_leftovers)"
done_testing
