# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# tests/tools/reshape-start.sh - sourced by the tests of reshapes the user-space daemon
# starts (t1109, t1115) after raid-pvread.sh: VG, SCRATCH, LVX set, LOG the daemon's log.
#   moving LV            lvs shows the reshape under way (reshape, 0 < sync_percent < 100)
#   done_wait LV         the walker's end logged (60 s at most)
#   sbs LV N FIELDS...   the fields of LV's N superblocks, the distinct lines
#   rep_lvx / rep_lvm    lvs -a of the VG (metadata fields: devices, data_stripes,
#                        reshape_len ...) through lvx / LVM2 (activation off), sorted
#   conv LV ARGS...      lvx lvconvert -y ARGS VG/LV, its output in SCRATCH/conv.out
# shellcheck disable=SC2317  # helpers called through test_ok / uspace_run_ok
moving() {
    local a p
    read -r a p <<<"$("$LVX" lvs --noheadings -o raid_sync_action,sync_percent "$VG/$1" 2>/dev/null)"
    [[ $a == reshape ]] && awk -v p="$p" 'BEGIN { exit !(p > 0 && p < 100) }'
}
done_wait() {
    for _ in $(seq 300); do grep -q "$VG/$1: reshape done" "$LOG" && return 0; sleep 0.2; done
    return 1
}
sbs() {
    local lv=$1 n=$2 i f
    shift 2
    for ((i = 0; i < n; i++)); do report "${lv}_rmeta_$i"; done
    for ((i = 0; i < n; i++)); do
        for f in "$@"; do printf '%s ' "$f=$(sb_field "${lv}_rmeta_$i" "$f")"; done
        echo
    done | sort -u
}
REPF=lv_name,segtype,stripes,data_stripes,stripesize,reshape_len_le,lv_size,devices
rep_lvx() { "$LVX" lvs -a --noheadings --separator ' ' -o $REPF "$VG" 2>/dev/null | sed 's/^ *//' | sort; }
rep_lvm() { lvm2 lvs -a --noheadings --separator ' ' -o $REPF "$VG" 2>/dev/null | sed 's/^ *//' | sort; }
conv() {
    local lv=$1
    shift
    "$LVX" lvconvert -y "$@" "$VG/$lv" >"$SCRATCH/conv.out" 2>&1 </dev/null
}
