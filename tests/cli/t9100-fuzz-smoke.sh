#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t9100-fuzz-smoke: build the libFuzzer harnesses (fuzz/run.sh, as `make fuzz`) and run
# each for a short time (FUZZ_SMOKE_SECONDS, default 20) on its seed corpus.  One TAP
# line per harness; skipped when clang/libFuzzer is not available or a harness does not
# exist yet.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_cmd clang
HARNESSES=(fuzz_headers fuzz_text)
SECS=${FUZZ_SMOKE_SECONDS:-20}

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
for h in "${HARNESSES[@]}"; do
    if [[ ! -f fuzz/$h.c ]]; then
        test_skip "$h: builds and runs ${SECS}s clean" "fuzz/$h.c does not exist yet"
        continue
    fi
    test_ok "$h: builds and runs ${SECS}s clean" bash fuzz/run.sh "$SECS" "$h"
done

done_testing
