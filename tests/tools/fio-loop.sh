# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# tests/tools/fio-loop.sh - sourced by tests (after lib.sh) that keep a filesystem busy
# while they change the LV under it:
#   fio_loop_start DIR SIZE   fio writes 4 files of SIZE/4 (64 KiB random, direct,
#                             --verify=crc32c read back after each run) in DIR, in a
#                             loop in the background until fio_loop_stop; a failed run
#                             is appended to $SCRATCH/fio.fail, the run count is in
#                             $SCRATCH/fio.runs
#   fio_loop_stop             ends the loop after its current run
#   fio_verify_only DIR SIZE  verifies the files the last run left (exit status)

fio_loop_start() {
    local dir=$1 size=$2
    : >"$SCRATCH/fio.fail"
    rm -f "$SCRATCH/fio.stop"
    (
        n=0
        while [[ ! -e $SCRATCH/fio.stop ]]; do
            n=$((n + 1))
            if ! fio --verify_state_save=0 --name=v --directory="$dir" --nrfiles=4 --size="$size" --bs=64k \
                --rw=randwrite --ioengine=libaio --iodepth=8 --direct=1 --verify=crc32c \
                --do_verify=1 --verify_fatal=1 --fsync_on_close=1 >"$SCRATCH/fio.$n" 2>&1; then
                echo "run $n" >>"$SCRATCH/fio.fail"
                cat "$SCRATCH/fio.$n" >>"$SCRATCH/fio.fail"
            fi
            echo "$n" >"$SCRATCH/fio.runs"
        done
    ) &
    FIO_LOOP_PID=$!
}

fio_loop_stop() {
    touch "$SCRATCH/fio.stop"
    wait "$FIO_LOOP_PID"
}

fio_verify_only() {
    fio --verify_state_save=0 --name=v --directory="$1" --nrfiles=4 --size="$2" --bs=64k --rw=randwrite \
        --ioengine=libaio --direct=1 --verify=crc32c --verify_only=1 --verify_fatal=1
}
