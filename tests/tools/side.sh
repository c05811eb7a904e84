# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# tests/tools/side.sh - sourced by tests (after lib.sh) that run the same command line
# through the real LVM2 (sandboxed: lvm2) and lvx:
#   side ARGS...       run both; results in $SCRATCH/{l,x}.{out,err,rc} (LVM2's / lvx's);
#                      the sandbox's "WARNING: Activation disabled" line (LVM2 prints it
#                      for every command) is taken out, and PIDs of "pvscan[123]"
#   same DESC ARGS...  TAP: ok when exit code, stdout and stderr are equal (diffs shown)

side_filter() { grep -v 'WARNING: Activation disabled' | sed -E 's/pvscan\[[0-9]+\]/pvscan[PID]/'; }

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
