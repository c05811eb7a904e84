# SPDX-License-Identifier: GPL-2.0-or-later
# tests/tools/mirror-fault.sh - helpers of the user-backend tests whose mirror or RAID
# legs fail (t1116, t1117), sourced after uspace-env.sh with VG and LOG (the daemon's
# log) set:
#   restart_daemon [FAULT]     every LV of VG deactivated, the daemon (re)started with
#                              LVX_TEST_DP_FAULT=FAULT (none: healthy), its log emptied
#   fio_w NAME DEV SIZE EXTRA  64 KiB random writes to DEV, crc32c-headed (--randseed
#                              FIO_SEED, default 1116), its report in SCRATCH/NAME.out
restart_daemon() {
    uspace_stop_daemon "$VG"
    : >"$LOG"
    env ${1:+LVX_TEST_DP_FAULT=$1} "$LVX" daemon start >/dev/null 2>&1
}
fio_w() {
    local name=$1 dev=$2 size=$3
    shift 3
    fio --name="$name" --filename="$dev" --direct=1 --ioengine=psync --rw=randwrite --bs=64k \
        --size="$size" --verify=crc32c --randseed="${FIO_SEED:-1116}" "$@" \
        --output="$SCRATCH/$name.out" >/dev/null 2>&1
}
