# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# tests/tools/side.sh - sourced by tests (after lib.sh) that run the same command line
# through the real LVM2 (sandboxed: lvm2) and lvx:
#   side ARGS...       run both; results in $SCRATCH/{l,x}.{out,err,rc} (LVM2's / lvx's);
#                      the sandbox's "WARNING: Activation disabled" line (LVM2 prints it
#                      for every command) is taken out, and PIDs of "pvscan[123]"
#   same DESC ARGS...  TAP: ok when exit code, stdout and stderr are equal (diffs shown)
#   side_one l|x TOOL ARGS... / side_same DESC   one tool's turn / the TAP of both turns
#   side_setup N       the usual start of such a test: skip without loop devices, lvx or
#                      LVM2; N loop devices of 64 MiB in D[], LVM2's sandbox seeing only
#                      them, a private run directory $SCRATCH/run (LVX_RUN_DIR)
#   side_fresh_vg      LVM2 makes VG ($VG) anew over all of D[] (removed first)
#   SIDE_IN            when set, the text both tools read on stdin (prompts' answers;
#                      else stdin is left as it is)
#   SIDE_RESET         when set, a command run before each tool's turn (a destructive
#                      command then meets the same state twice)
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

# side_one l|x TOOL ARGS...: one tool's turn, its results in $SCRATCH/{l,x}.{out,err,rc}
side_one() {
    local w=$1 rc=0
    shift
    [[ -n ${SIDE_RESET:-} ]] && eval "$SIDE_RESET"
    if [[ -n ${SIDE_IN+set} ]]; then
        printf '%s' "$SIDE_IN" | "$@" >"$SCRATCH/$w.raw" 2>"$SCRATCH/$w.eraw" || rc=$?
    else
        "$@" >"$SCRATCH/$w.raw" 2>"$SCRATCH/$w.eraw" || rc=$?
    fi
    echo "$rc" >"$SCRATCH/$w.rc"
    side_filter <"$SCRATCH/$w.raw" >"$SCRATCH/$w.out"
    side_filter <"$SCRATCH/$w.eraw" >"$SCRATCH/$w.err"
}

side() {
    side_one l lvm2 "$@"
    side_one x lvx "$@"
}

same() {
    local d=$1
    shift
    side "$@"
    side_same "$d"
}

# side_same DESC: TAP for the results of the last turns of both tools (as same)
side_same() {
    local d=$1
    if cmp -s "$SCRATCH/l.rc" "$SCRATCH/x.rc" && cmp -s "$SCRATCH/l.out" "$SCRATCH/x.out" &&
        cmp -s "$SCRATCH/l.err" "$SCRATCH/x.err"; then
        _tap_result 0 "$d"
    else
        _tap_result 1 "$d"
        diag "exit LVM2 $(cat "$SCRATCH/l.rc") lvx $(cat "$SCRATCH/x.rc")"
        diag "$(diff "$SCRATCH/l.out" "$SCRATCH/x.out")" "$(diff "$SCRATCH/l.err" "$SCRATCH/x.err")"
    fi
}
