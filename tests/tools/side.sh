# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# tests/tools/side.sh - sourced by tests (after lib.sh) that run the same command line
# through the real LVM2 (sandboxed: lvm2) and lvx:
#   side ARGS...       run both; results in $SCRATCH/{l,x}.{out,err,rc} (LVM2's / lvx's);
#                      the sandbox's "WARNING: Activation disabled" line (LVM2 prints it
#                      for every command) is taken out, and PIDs of "pvscan[123]"
#   same DESC ARGS...  TAP: ok when exit code, stdout and stderr are equal (diffs shown)
#   side_setup N       the usual start of such a test: skip without loop devices, lvx or
#                      LVM2; N loop devices of 64 MiB in D[], LVM2's sandbox seeing only
#                      them, a private run directory $SCRATCH/run (LVX_RUN_DIR)
#   side_fresh_vg      LVM2 makes VG ($VG) anew over all of D[] (removed first)
#   SIDE_NOISE         a regexp of stderr lines left out on both sides: LVM2's read
#                      errors on loop devices other tests attach while it scans every
#                      device of the machine (with the devices file it ignores the
#                      global_filter)

side_filter() { grep -v 'WARNING: Activation disabled' | sed -E 's/pvscan\[[0-9]+\]/pvscan[PID]/'; }
SIDE_NOISE='^  Error reading device /dev/loop[0-9]+ at [0-9]+ length [0-9]+\.$'

side_setup() {
    local i
    need_loop
    need_lvx
    need_cmd lvm
    D=()
    for ((i = 0; i < $1; i++)); do D+=("$(make_loop 64M)"); done
    lvm_sandbox "${D[@]}"
    mkdir -p -m 0700 "$SCRATCH/run"
    export LVX_RUN_DIR=$SCRATCH/run
}

side_fresh_vg() {
    lvm2 vgremove -ff "$VG" >/dev/null 2>&1
    lvm2 pvcreate -ff -y -q "${D[@]}" >/dev/null 2>&1
    lvm2 vgcreate -q "$VG" "${D[@]}" >/dev/null 2>&1
}

side() {
    local rc=0
    lvm2 "$@" >"$SCRATCH/l.raw" 2>"$SCRATCH/l.eraw" || rc=$?
    echo "$rc" >"$SCRATCH/l.rc"
    side_filter <"$SCRATCH/l.raw" >"$SCRATCH/l.out"
    side_filter <"$SCRATCH/l.eraw" >"$SCRATCH/l.err"
    rc=0
    lvx "$@" >"$SCRATCH/x.raw" 2>"$SCRATCH/x.eraw" || rc=$?
    echo "$rc" >"$SCRATCH/x.rc"
    side_filter <"$SCRATCH/x.raw" >"$SCRATCH/x.out"
    side_filter <"$SCRATCH/x.eraw" >"$SCRATCH/x.err"
}

same() {
    local d=$1
    shift
    side "$@"
    if cmp -s "$SCRATCH/l.rc" "$SCRATCH/x.rc" && cmp -s "$SCRATCH/l.out" "$SCRATCH/x.out" &&
        cmp -s "$SCRATCH/l.err" "$SCRATCH/x.err"; then
        _tap_result 0 "$d"
    else
        _tap_result 1 "$d"
        diag "exit LVM2 $(cat "$SCRATCH/l.rc") lvx $(cat "$SCRATCH/x.rc")"
        diag "$(diff "$SCRATCH/l.out" "$SCRATCH/x.out")" "$(diff "$SCRATCH/l.err" "$SCRATCH/x.err")"
    fi
}
