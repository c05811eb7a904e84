#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0100-fixture-reports: the golden test.  For every LVM2 fixture scenario, rebuild the
# disk images (regular files) and check that lvx reports them exactly as LVM2 did:
# pvs, vgs, lvs -a, lvs -a --segments and pvs --segments with LVM2's field lists
# (--reportformat json --units b --nosuffix), compared row by row with manifest.json by
# tests/tools/compare_report.py.  One TAP line per scenario and report.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_cmd "$PYTHON"
need_lvx
plan_later

REPORTS=(pvs vgs lvs segs pvsegs)
CMP="$LVX_ROOT/tests/tools/compare_report.py"
declare -A ARGS   # report -> lvx arguments, one per line
for report in "${REPORTS[@]}"; do
    ARGS[$report]=$("$PYTHON" "$CMP" args "$report")
done

check_report() {  # check_report SCENARIO REPORT IMGDIR DEVICES
    local scenario=$1 report=$2 dir=$3 devices=$4 rc=0 args
    mapfile -t args <<<"${ARGS[$report]}"
    lvx "${args[@]}" --devices "$devices" >"$dir/$report.json" 2>"$dir/$report.err" || rc=$?
    if [[ $rc -ne 0 ]] || sanitizer_report "$dir/$report.err"; then
        _tap_result 1 "$scenario: $report matches LVM2"
        diag "lvx ${args[*]} --devices $devices: exit status $rc"
        _diag_file stderr "$dir/$report.err"
        return
    fi
    if "$PYTHON" "$CMP" compare "$scenario" "$report" "$dir/$report.json" "$dir" >"$dir/$report.diff"; then
        _tap_result 0 "$scenario: $report matches LVM2"
    else
        _tap_result 1 "$scenario: $report matches LVM2"
        sed 's/^/#   /' "$dir/$report.diff"
        _diag_file "lvx stderr" "$dir/$report.err"
    fi
}

for scenario in $(fixture_scenarios); do
    dir="$SCRATCH/$scenario"
    mapfile -t images < <(fixture_images "$scenario" "$dir")
    if [[ ${#images[@]} -eq 0 ]]; then
        for report in "${REPORTS[@]}"; do
            _tap_result 1 "$scenario: $report matches LVM2 (fixture images could not be rebuilt)"
        done
        continue
    fi
    devices=$(IFS=,; echo "${images[*]}")
    for report in "${REPORTS[@]}"; do
        check_report "$scenario" "$report" "$dir" "$devices"
    done
    rm -rf "$dir"
done

done_testing
