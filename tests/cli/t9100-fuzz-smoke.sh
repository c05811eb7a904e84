#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t9100-fuzz-smoke: build the libFuzzer harnesses (fuzz/run.sh, as `make fuzz`), run each
# for a short time (FUZZ_SMOKE_SECONDS, default 5) on its seed corpus, replay every
# regression input of fuzz/regress/<harness>/ (fuzz/replay.sh: no sanitizer report, no
# broken invariant), and check that fuzz_cmdline's confinement holds: a command line
# asking for a file outside the harness's temporary directory gets no file, and the one
# it may write inside is gone after the input.  One TAP line per harness and check;
# skipped when clang/libFuzzer is not available.  The long runs are fuzz/deep.sh.
# Built without optimisation and with line tables only (FUZZ_OPT, default here
# "-O0 -gline-tables-only") in build-fuzz-smoke/ (FUZZ_BUILD): the same sanitizers and
# coverage, a quarter of the compile time of fuzz/run.sh's default -O1 -g (the build was
# most of this file's CPU time); fuzz/run.sh and fuzz/deep.sh keep -O1 for speed.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_cmd clang
HARNESSES=(fuzz_headers fuzz_text fuzz_config fuzz_cmdline fuzz_restore)
SECS=${FUZZ_SMOKE_SECONDS:-5}

# libFuzzer usable?  (clang without libclang-rt-*-dev links nothing with -fsanitize=fuzzer)
cat >"$SCRATCH/probe.c" <<'C'
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }
C
clang -fsanitize=fuzzer,address,undefined "$SCRATCH/probe.c" -o "$SCRATCH/probe" >/dev/null 2>&1 ||
    skip_all "clang cannot link libFuzzer (install libclang-rt-14-dev)"
plan_later

cd "$LVX_ROOT" || exit 1
export FUZZ_OPT=${FUZZ_OPT:--O0 -gline-tables-only}
export FUZZ_BUILD=${FUZZ_BUILD:-build-fuzz-smoke}
OUT=$FUZZ_BUILD
test_ok "harnesses build" bash fuzz/run.sh 0 "${HARNESSES[@]}"

for h in "${HARNESSES[@]}"; do
    test_ok "$h: runs ${SECS}s clean" bash fuzz/run.sh "$SECS" "$h"
done

for d in fuzz/regress/fuzz_*/; do
    h=$(basename "$d")
    n=$(find "$d" -maxdepth 1 -type f | wc -l)
    test_ok "$h: $n regression inputs replay clean" bash fuzz/replay.sh "$h"
done

# fuzz_cmdline stays inside its directory (Landlock + the I/O seam) and resets it
mkdir -p "$SCRATCH/tmp" "$SCRATCH/outside"
printf 'vgcfgbackup -f %s/outside/escaped fz\nvgcfgbackup -f @inside fz\npvcreate -ff -y %s/outside/dev\n' \
    "$SCRATCH" "$SCRATCH" >"$SCRATCH/escape.in"
: >"$SCRATCH/outside/dev"
truncate -s 4M "$SCRATCH/outside/dev"
before=$(cksum <"$SCRATCH/outside/dev")
rc=0
TMPDIR="$SCRATCH/tmp" LVX_FUZZ_VERBOSE=1 "$OUT/fuzz_cmdline" -runs=1 "$SCRATCH/escape.in" \
    >"$SCRATCH/escape.out" 2>&1 || rc=$?
test_eq "fuzz_cmdline: an input writing outside runs clean" "$rc" 0
test_eq "fuzz_cmdline: vgcfgbackup -f outside the directory is refused" \
    "$(grep -c 'rc 5, 0 writes: vgcfgbackup -f .*/outside/escaped' "$SCRATCH/escape.out")" 1
test_eq "fuzz_cmdline: no file appears outside" "$(ls "$SCRATCH/outside")" "dev"
test_eq "fuzz_cmdline: a device outside is neither opened nor written" \
    "$(cksum <"$SCRATCH/outside/dev")" "$before"
test_eq "fuzz_cmdline: vgcfgbackup -f inside worked" \
    "$(grep -c 'rc 0, 0 writes: vgcfgbackup -f .*/inside fz' "$SCRATCH/escape.out")" 1
test_eq "fuzz_cmdline: its directory is removed at exit" "$(ls "$SCRATCH/tmp")" ""

done_testing
