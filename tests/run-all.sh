#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/run-all.sh - run every test through prove (TAP), from the repository root:
#   * the sanitized unit tests build-asan/tests/test_*
#   * the shell tests tests/cli/t*.sh with LVX=build-asan/lvx (ASan+UBSan) and
#     LVX_PLAIN=build/lvx (valgrind pass t9000; fuzz smoke t9100)
# Expects `make all unit` and `make SAN=1 all unit` to have run (make check does both).
# Prints prove's summary (TAP::Harness, tests/tools/harness.pl); exits non-zero when any test failed.
#   PROVE_JOBS=N   parallel test files (default 3: the guest lane and two lanes of the rest;
#                  at 2, CI's test run left a quarter of the CPU idle: many host files wait
#                  on sanlock leases and daemons); the sanlock files (t085N-shared-vg*)
#                  run in one more lane of their own (tests/tools/harness.pl)
#   bash tests/run-all.sh tests/cli/t0100-fixture-reports.sh   runs only the files named
set -euo pipefail
cd "$(dirname "$0")/.."

export LVX="${LVX:-build-asan/lvx}"
export LVX_PLAIN="${LVX_PLAIN:-build/lvx}"

for f in "$LVX" "$LVX_PLAIN"; do
    if [[ ! -x $f ]]; then
        echo "run-all.sh: $f is missing: run 'make all unit' and 'make SAN=1 all unit' first" >&2
        exit 1
    fi
done

if [[ $# -gt 0 ]]; then
    tests=("$@")
else
    tests=()
    # slow files first, so that they overlap with the rest
    for t in tests/cli/t0500-*.sh tests/cli/t0680-*.sh tests/cli/t0681-*.sh tests/cli/t0685-*.sh \
             tests/cli/t0671-*.sh tests/cli/t0850-*.sh tests/cli/t0851-*.sh tests/cli/t0852-*.sh tests/cli/t0946-*.sh \
             tests/cli/t0800-*.sh tests/cli/t0937-*.sh tests/cli/t0853-*.sh tests/cli/t1045-*.sh tests/cli/t1000-*.sh \
             tests/cli/t0710-*.sh tests/cli/t0700-*.sh tests/cli/t0701-*.sh \
             tests/cli/t0702-*.sh tests/cli/t0712-*.sh tests/cli/t0713-*.sh tests/cli/t0714-*.sh \
             tests/cli/t0703-*.sh tests/cli/t0706-*.sh tests/cli/t0718-*.sh \
             tests/cli/t0719-*.sh tests/cli/t0707-*.sh tests/cli/t0715-*.sh tests/cli/t0724-*.sh \
             tests/cli/t0722-*.sh tests/cli/t0720-*.sh tests/cli/t0688-*.sh \
             tests/cli/t0711-*.sh tests/cli/t1510-*.sh tests/cli/t1520-*.sh tests/cli/t1500-*.sh \
             tests/cli/t9100-*.sh tests/cli/t0611-*.sh tests/cli/t0614-*.sh tests/cli/t0670-*.sh tests/cli/t0941-*.sh \
             tests/cli/t0940-*.sh tests/cli/t0840-*.sh tests/cli/t0110-*.sh tests/cli/t9000-*.sh; do
        [[ -f $t ]] && tests+=("$t")
    done
    for t in build-asan/tests/test_* tests/cli/t*.sh; do
        [[ -f $t ]] || continue
        case " ${tests[*]} " in *" $t "*) continue ;; esac
        tests+=("$t")
    done
fi
if [[ ${#tests[@]} -eq 0 ]]; then
    echo "run-all.sh: no tests found" >&2
    exit 1
fi

# prove's engine through tests/tools/harness.pl: the QEMU-guest tests one after another
# (each takes both cores), beside the rest.  prove's summary names only the numbers of
# failed checks: the TAP of each file is kept, and for a failed file its failed checks
# and diagnostics are printed after the summary.
LVX_TAP_LOG_DIR=$(mktemp -d /tmp/lvx-tap.XXXXXX)
export LVX_TAP_LOG_DIR
rc=0
perl tests/tools/harness.pl "${PROVE_JOBS:-3}" "${tests[@]}" || rc=$?
# the guest lane is CI's longest chain: how long each file held the guest (lib_kernel.sh's
# "held it Ns" diagnostics), the sum and the 20 largest (before the failures: those come last)
{ grep -oE 'held it [0-9]+s' "$LVX_TAP_LOG_DIR"/*.tap 2>/dev/null || true; } |
    awk -F'[: ]' '{ f = $1; sub(/.*\//, "", f); sub(/\.tap$/, "", f); t[f] += $4; all += $4 }
         END { if (!all) exit
               printf "=== guest lock held: %d s in all; the largest:\n", all
               cmd = "sort -rn | head -n 20"
               for (f in t) printf "%6d s  %s\n", t[f], f | cmd
               close(cmd) }'
if [[ $rc != 0 ]]; then
    # Only real failures: a "not ok ... # TODO" is an expected difference, printed by
    # its file's own table.  The list of failed files comes last, so the tail of a CI
    # log names them whatever was cut above it.
    failed=()
    for log in "$LVX_TAP_LOG_DIR"/*.tap; do
        [[ -f $log ]] || continue
        name=$(basename "$log" .tap)
        if grep -E '^not ok' "$log" | grep -qvE '# (TODO|SKIP)'; then
            echo "=== $name: failed checks and the diagnostics after them"
            awk '/^not ok/ { show = ($0 !~ /# (TODO|SKIP)/) }
                 /^ok / { show = 0 }
                 show && /^(not ok|#)/ { print NR ": " $0 }' "$log" | head -n 120
            failed+=("$name")
        elif ! grep -q '^1\.\.[0-9]' "$log"; then
            echo "=== $name: no plan; its last lines:"
            tail -n 30 "$log"
            failed+=("$name (no plan)")
        fi
    done
    # a file whose checks all passed can still fail (exit status, plan count): its TAP
    # tail is printed here (tap-exec.sh appends "# tap-exec: exit N" to the log)
    for log in "$LVX_TAP_LOG_DIR"/*.tap; do
        [[ -f $log ]] || continue
        name=$(basename "$log" .tap)
        case " ${failed[*]} " in *" $name "*) continue ;; esac
        plan=$(grep -m1 -oE '^1\.\.[0-9]+' "$log" | cut -d. -f3)
        ran=$(grep -cE '^(not )?ok ' "$log")
        st=$(sed -n 's/^# tap-exec: exit \([0-9]*\)$/\1/p' "$log" | tail -n1)
        if [[ -n $plan && $plan != "$ran" ]] || [[ -n $st && $st != 0 ]]; then
            echo "=== $name: planned ${plan:-?} checks, ran $ran, exit ${st:-?}; its last lines:"
            tail -n 20 "$log"
            failed+=("$name (plan ${plan:-?}, ran $ran, exit ${st:-?})")
        fi
    done
    echo "=== run-all.sh: failed files: ${failed[*]:-(none with a failed check: see the summary of prove above)}"
fi
rm -rf "$LVX_TAP_LOG_DIR"
exit "$rc"
