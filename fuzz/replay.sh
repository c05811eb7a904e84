#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# fuzz/replay.sh [HARNESS...] - regression inputs: every file of fuzz/regress/<harness>/
# (an input a fuzzer once found crashing, leaking or tripping UBSan, kept after the fix)
# is run once through the harness (build-fuzz/<harness>, built by fuzz/run.sh 0 when
# missing or stale).  Prints "<harness>: N inputs clean" per harness; exit status 1 when
# any input gives a sanitizer report or an invariant failure (the log is printed).
# Default: every harness with a fuzz/regress/ directory.  tests/cli/t9100 runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${FUZZ_BUILD:-build-fuzz}

if [[ $# -gt 0 ]]; then
    harnesses=("$@")
else
    harnesses=()
    for d in fuzz/regress/fuzz_*/; do
        [[ -d $d ]] && harnesses+=("$(basename "$d")")
    done
fi
[[ ${#harnesses[@]} -gt 0 ]] || { echo "fuzz/replay.sh: no fuzz/regress/<harness>/" >&2; exit 0; }
bash fuzz/run.sh 0 "${harnesses[@]}"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
for h in "${harnesses[@]}"; do
    mapfile -t inputs < <(find "fuzz/regress/$h" -maxdepth 1 -type f | sort)
    if [[ ${#inputs[@]} -eq 0 ]]; then
        echo "$h: no inputs"
        continue
    fi
    log="$tmp/$h.log"
    rc=0
    TMPDIR="$tmp" "$OUT/$h" -runs=1 "${inputs[@]}" >"$log" 2>&1 || rc=$?
    ran=$(grep -c '^Executed ' "$log" || true)
    if [[ $rc != 0 || $ran != "${#inputs[@]}" ]] ||
            grep -qE '^==[0-9]+==ERROR|runtime error:|^SUMMARY: |invariant broken' "$log"; then
        echo "$h: FAILED (exit $rc, $ran of ${#inputs[@]} inputs ran)" >&2
        tail -n 40 "$log" >&2
        status=1
    else
        echo "$h: ${#inputs[@]} inputs clean"
    fi
done
exit $status
