# SPDX-License-Identifier: GPL-2.0-or-later
# tests/tools/mirror-fault.sh - helpers of the user-backend tests whose mirror or RAID
# legs fail (t1116, t1117, t1121), sourced after uspace-env.sh with VG and LOG (the
# daemon's log) set:
#   restart_daemon [FAULT]     every LV of VG deactivated, the daemon (re)started with
#                              LVX_TEST_DP_FAULT=FAULT (none: healthy), its log emptied
#   fio_w NAME DEV SIZE EXTRA  64 KiB random writes to DEV, crc32c-headed (--randseed
#                              FIO_SEED, default 1116), its report in SCRATCH/NAME.out
#   lvsf LV FIELD              one lvs field of lvx's, blanks removed
#   subs LV                    LV's hidden sub-LVs ("[LV_mimage_0] ..."), sorted
#   devs LV                    the PVs of LV (a sub-LV too), extents left out
#   logged PATTERN [TRIES]     PATTERN (grep's) polled in LOG, 0.2 s apart (150 tries)
#   wait_in_sync LV            polls until LV's copy_percent is 100.00 (600 tries)
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
lvsf() { "$LVX" lvs --noheadings -o "$2" "$VG/$1" 2>/dev/null | tr -d ' '; }
subs() { "$LVX" lvs -a --noheadings -o lv_name "$VG" 2>/dev/null | tr -d ' ' | grep "^\[$1_" | sort | paste -sd' '; }
devs() { "$LVX" lvs -a --noheadings -o devices "$VG/$1" 2>/dev/null | tr -d ' ' | sed 's/([0-9]*)//g'; }
logged() {
    for _ in $(seq "${2:-150}"); do grep -q -- "$1" "$LOG" && return 0; sleep 0.2; done
    return 1
}
wait_in_sync() {
    for _ in $(seq 600); do [[ $(lvsf "$1" copy_percent) == 100.00 ]] && return 0; sleep 0.2; done
    return 1
}
