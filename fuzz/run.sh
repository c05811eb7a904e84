#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# fuzz/run.sh [SECONDS [HARNESS...]] - build the libFuzzer harnesses fuzz/fuzz_*.c with
# clang (-fsanitize=fuzzer,address,undefined) into build-fuzz/ and run each for SECONDS
# (default 60) on its seed corpus fuzz/corpus/<harness> or fuzz/corpus/<harness without
# fuzz_> (read only; new inputs go to build-fuzz/corpus-<harness>).  `make fuzz` calls it;
# FUZZ_SECONDS sets the time there.  Crash inputs go to build-fuzz/artifacts/.
# A dictionary fuzz/<harness without fuzz_>.dict is passed when it exists.
# SECONDS 0 only builds (fuzz/deep.sh and the regression replay in t9100 use that).
# FUZZ_OPT sets the optimisation and debug flags (default "-O1 -g"; t9100's smoke run uses
# "-O0 -gline-tables-only" in its own build-fuzz-smoke/: a quarter of the compile time,
# sanitizer reports still name file and line).  The flags are kept in OUT/flags; other
# flags rebuild everything.
# Exit status: 0 when every harness ran clean, 1 on a finding or a build failure.
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_EACH=${1:-60}
shift || true
OUT=${FUZZ_BUILD:-build-fuzz}
CC_FUZZ=${CC_FUZZ:-clang}
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
OPT=${FUZZ_OPT:--O1 -g}
CFLAGS_FUZZ="-std=c11 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 $OPT -Werror=implicit-function-declaration -Isrc -Iinclude $SAN"
LIBS="-luring -lblkid -lz -lpthread"

if [[ $# -gt 0 ]]; then
    harnesses=("$@")
else
    harnesses=()
    for f in fuzz/fuzz_*.c; do
        [[ -e $f ]] && harnesses+=("$(basename "$f" .c)")
    done
fi
if [[ ${#harnesses[@]} -eq 0 ]]; then
    echo "fuzz/run.sh: no harness (fuzz/fuzz_*.c)" >&2
    exit 0
fi

# 1. the library, instrumented for coverage (fuzzer-no-link) and sanitizers; rebuilt
#    whole when any file under src/ or include/ is newer than the archive or the flags
#    changed (then the harnesses are linked again too: the archive is newer).
LIB="$OUT/liblvx-fuzz.a"
mkdir -p "$OUT/obj" "$OUT/artifacts"
if [[ ! -e $LIB || "$(cat "$OUT/flags" 2>/dev/null)" != "$CC_FUZZ $CFLAGS_FUZZ" ||
        -n $(find src include -newer "$LIB" -type f 2>/dev/null | head -n1) ]]; then
    mapfile -t srcs < <(find src -name '*.c' ! -path src/lvx.c | sort)
    rm -rf "$OUT/obj" && mkdir -p "$OUT/obj"
    # one compiler per CPU; the source path is the last argument ($3) of the inline script
    # shellcheck disable=SC2016
    printf '%s\n' "${srcs[@]}" | xargs -P "$(nproc)" -n 1 sh -c '
        obj="$0/obj/$(echo "${3%.c}" | tr / _).o"
        exec $1 $2 -fsanitize=fuzzer-no-link -c "$3" -o "$obj"' "$OUT" "$CC_FUZZ" "$CFLAGS_FUZZ"
    rm -f "$LIB"
    ar rcs "$LIB" "$OUT"/obj/*.o
    echo "$CC_FUZZ $CFLAGS_FUZZ" >"$OUT/flags"
fi

# 2. each harness: build, run
status=0
for h in "${harnesses[@]}"; do
    if [[ ! -f fuzz/$h.c ]]; then
        echo "fuzz/run.sh: fuzz/$h.c does not exist" >&2
        status=1
        continue
    fi
    # linked again only when the harness or the library changed
    # shellcheck disable=SC2086
    if [[ ! -x $OUT/$h || fuzz/$h.c -nt $OUT/$h || $LIB -nt $OUT/$h ]] &&
            ! $CC_FUZZ $CFLAGS_FUZZ -fsanitize=fuzzer "fuzz/$h.c" "$LIB" $LIBS -o "$OUT/$h"; then
        echo "fuzz/run.sh: $h: build failed" >&2
        status=1
        continue
    fi
    [[ $SECONDS_EACH == 0 ]] && continue
    work="$OUT/corpus-$h"
    mkdir -p "$work"
    seeds=()
    for d in "fuzz/corpus/$h" "fuzz/corpus/${h#fuzz_}"; do
        if [[ -d $d ]]; then seeds=("$d"); break; fi
    done
    dict=()
    [[ -f fuzz/${h#fuzz_}.dict ]] && dict=(-dict="fuzz/${h#fuzz_}.dict")
    echo "fuzz/run.sh: running $h for ${SECONDS_EACH}s" >&2
    if ! "$OUT/$h" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 "${dict[@]}" \
            -print_final_stats=1 -artifact_prefix="$OUT/artifacts/$h-" \
            "$work" "${seeds[@]}" >"$OUT/$h.log" 2>&1; then
        echo "fuzz/run.sh: $h: finding (log: $OUT/$h.log, inputs: $OUT/artifacts/)" >&2
        grep -E 'ERROR|runtime error|SUMMARY|Test unit written' "$OUT/$h.log" | head -n 20 >&2 || true
        status=1
        continue
    fi
    grep -E '^stat::number_of_executed_units|^Done [0-9]+ runs' "$OUT/$h.log" | sed "s/^/fuzz\/run.sh: $h: /" >&2 || true
done
exit $status
