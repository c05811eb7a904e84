# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# tests/tools/uspace-snap.sh - helpers of the tests of COW snapshots the daemon serves
# (sourced after tests/lib.sh and uspace-env.sh):
#   uspace_snap_env VG   skips unless loop devices, lvx, lvm, fio and /dev/fuse are
#                        there; two 96 MiB loop devices D[0], D[1], the test's daemon
#                        and LVM2 sandbox on them (uspace_test_env); DEV=$DM_DEV_DIR/VG
#   fsum FILE            sha256 of a file
#   lv_get LV OUT        the whole LV read through its device (direct I/O) into OUT
#   lv_sum LV            sha256 of the LV read so
#   cow_bytes LV OUT     the COW LV's bytes read from the PVs where LVM2's report puts
#                        them (tests/tools/lv_pvread.py)
#   field LV FIELD       lvx's report of one field
#   kill_during_copies SNAP PAUSE CMD...
#                        CMD (origin writes) in the background; once SNAP's snap_percent
#                        moved and PAUSE s later, SIGKILL of the daemon (a check), CMD
#                        waited for, the daemon restarted by an lvx command (a check),
#                        SNAP's device waited for
PVREAD=$LVX_ROOT/tests/tools/lv_pvread.py
export COWCHECK=$LVX_ROOT/tests/tools/cow_check.py

uspace_snap_env() {
    need_loop
    need_lvx
    need_cmd lvm fio
    [[ -c /dev/fuse ]] || skip_all "no /dev/fuse"
    D=()
    for _ in 0 1; do D+=("$(make_loop 96M)") || skip_all "cannot make loop devices"; done
    uspace_test_env "$1" "${D[@]}"
    DEV=$DM_DEV_DIR/$1
}

fsum() { sha256sum <"$1" | cut -d' ' -f1; }
lv_get() { dd if="$DEV/$1" of="$2" bs=1M iflag=direct status=none; }
lv_sum() { dd if="$DEV/$1" bs=1M iflag=direct status=none | sha256sum | cut -d' ' -f1; }
cow_bytes() {
    lvm2 lvs --segments -o lv_name,seg_start,seg_size,stripes,stripe_size,seg_pe_ranges \
        --units s --nosuffix --reportformat json "$VG/$1" >"$SCRATCH/segs.json" 2>/dev/null
    lvm2 pvs -o pv_name,pe_start --units s --nosuffix --reportformat json >"$SCRATCH/pvs.json" 2>/dev/null
    lvm2 vgs -o vg_extent_size --units s --nosuffix --reportformat json "$VG" >"$SCRATCH/vgs.json" 2>/dev/null
    local size
    size=$(lvm2 lvs --noheadings --units b --nosuffix -o lv_size "$VG/$1" 2>/dev/null | tr -d ' ')
    "$PYTHON" "$PVREAD" "$SCRATCH/segs.json" "$SCRATCH/pvs.json" "$SCRATCH/vgs.json" 0 \
        "$size" "$2" >/dev/null 2>&1
}
field() { lvx lvs --noheadings -o "$2" "$VG/$1" 2>/dev/null | tr -d ' '; }
kill_during_copies() {
    local snap=$1 pause=$2 cmd pids
    shift 2
    "$@" >/dev/null 2>&1 &
    cmd=$!
    for _ in $(seq 100); do [[ $(field "$snap" snap_percent) != 0.00 ]] && break; sleep 0.1; done
    sleep "$pause"
    pids=$(uspace_daemon_pids)
    # shellcheck disable=SC2086
    kill -9 $pids 2>/dev/null
    test_ok "daemon killed during origin writes (${pids:-none})" test -n "$pids"
    wait "$cmd" 2>/dev/null
    uspace_run_ok "the next lvx command restarts the daemon" lvx lvs "$VG"
    for _ in $(seq 50); do test -b "$DEV/$snap" && break; sleep 0.2; done
}
