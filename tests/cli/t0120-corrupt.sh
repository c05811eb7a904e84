#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0120-corrupt: damaged LVM2 disk sets (recipes in tests/tools/damage.py, built from the
# fixture images).  For each one, `lvx pvs`, `lvx vgs` and `lvx lvs -a` must not crash
# (exit status < 128, no sanitizer report) and must explain any failure on stderr; then
# the recipe's expectation is checked: the VG still reads when an intact copy is left,
# naming the VG fails with a clear message when nothing usable is left, etc.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_cmd "$PYTHON"
need_lvx
plan_later

DAMAGE="$LVX_ROOT/tests/tools/damage.py"
# A message a person can act on: one of these words.
WORDS='error|invalid|bad|checksum|crc|mismatch|corrupt|damaged|missing|not found|cannot|can.t|couldn.t|failed|unknown|unsupported|too (large|big|small|many)|exceed|overlap|duplicate|beyond|past|outside|truncated|short|no such|warning|not using|ignor|wrong|unexpected|parse|syntax|expected'

explained() {  # explained FILE: stderr holds a recognizable message
    [[ -s $1 ]] && grep -Eqi "$WORDS" "$1"
}

# run_lvx NAME ARGS...: run lvx, leaving $RUN/NAME.{out,err,rc}
run_lvx() {
    local name=$1 rc=0
    shift
    lvx "$@" >"$RUN/$name.out" 2>"$RUN/$name.err" || rc=$?
    echo "$rc" >"$RUN/$name.rc"
}

show_run() {  # show_run NAME: diagnostics of one run
    diag "exit status $(cat "$RUN/$1.rc")"
    _diag_file stdout "$RUN/$1.out"
    _diag_file stderr "$RUN/$1.err"
}

check_no_crash() {  # check_no_crash RECIPE NAME CMD...
    local recipe=$1 name=$2 rc problem=""
    rc=$(cat "$RUN/$name.rc")
    if [[ $rc -ge 128 ]]; then
        problem="killed by a signal or crashed"
    elif sanitizer_report "$RUN/$name.err"; then
        problem="sanitizer report"
    elif [[ $rc -ne 0 ]] && ! explained "$RUN/$name.err"; then
        problem="failed without a clear message on stderr"
    fi
    if [[ -z $problem ]]; then
        _tap_result 0 "$recipe: lvx $name survives"
    else
        _tap_result 1 "$recipe: lvx $name survives"
        diag "$problem"
        show_run "$name"
    fi
}

mapfile -t RECIPES < <("$PYTHON" "$DAMAGE" list)
for line in "${RECIPES[@]}"; do
    read -r recipe _scenario vg expect desc <<<"$line"
    RUN="$SCRATCH/$recipe"
    mkdir -p "$RUN"
    if ! devices=$("$PYTHON" "$DAMAGE" make "$recipe" "$RUN" 2>"$RUN/make.err"); then
        _tap_result 1 "$recipe: build the damaged set ($desc)"
        _diag_file stderr "$RUN/make.err"
        continue
    fi
    diag "$recipe: $desc"
    run_lvx pvs pvs --devices "$devices"
    run_lvx vgs vgs --devices "$devices"
    run_lvx lvs lvs -a --devices "$devices"
    for name in pvs vgs lvs; do check_no_crash "$recipe" "$name"; done

    case $expect in
    reads | reads-warn)
        run_lvx vgs-named vgs "$vg" --devices "$devices"
        run_lvx lvs-named lvs -a "$vg" --devices "$devices"
        if [[ $(cat "$RUN/vgs-named.rc") == 0 && $(cat "$RUN/lvs-named.rc") == 0 ]] &&
            grep -qw "$vg" "$RUN/vgs-named.out" && [[ -s $RUN/lvs-named.out ]]; then
            _tap_result 0 "$recipe: $vg still reads"
        else
            _tap_result 1 "$recipe: $vg still reads"
            show_run vgs-named
            show_run lvs-named
        fi
        if [[ $expect == reads-warn ]]; then
            if explained "$RUN/vgs-named.err"; then
                _tap_result 0 "$recipe: vgs $vg warns"
            else
                _tap_result 1 "$recipe: vgs $vg warns"
                show_run vgs-named
            fi
        fi
        ;;
    refuses)
        run_lvx vgs-named vgs "$vg" --devices "$devices"
        rc=$(cat "$RUN/vgs-named.rc")
        if [[ $rc -ge 1 && $rc -lt 128 ]] && explained "$RUN/vgs-named.err" &&
            ! sanitizer_report "$RUN/vgs-named.err"; then
            _tap_result 0 "$recipe: vgs $vg fails with a clear message"
        else
            _tap_result 1 "$recipe: vgs $vg fails with a clear message"
            show_run vgs-named
        fi
        if [[ $(cat "$RUN/vgs.rc") != 0 ]] || ! grep -qw "$vg" "$RUN/vgs.out"; then
            _tap_result 0 "$recipe: vgs does not list $vg as usable"
        else
            _tap_result 1 "$recipe: vgs does not list $vg as usable"
            show_run vgs
        fi
        ;;
    warns)
        if explained "$RUN/vgs.err"; then
            _tap_result 0 "$recipe: vgs explains the problem on stderr"
        else
            _tap_result 1 "$recipe: vgs explains the problem on stderr"
            show_run vgs
        fi
        ;;
    nocrash) ;;
    *)
        _tap_result 1 "$recipe: unknown expectation '$expect'"
        ;;
    esac
    rm -rf "$RUN"
done

done_testing
