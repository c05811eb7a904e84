#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# fuzz/deep.sh [MINUTES [HARNESS...]] - fuzzing at depth: build the libFuzzer harnesses
# (fuzz/run.sh 0), run each for MINUTES (default 10) of libFuzzer time, FUZZ_JOBS at
# a time (default 2, at most nproc), merge what they found into the repository corpus
# fuzz/corpus/<name>/ (libFuzzer -merge=1: hand-named seeds are kept, the rest of the
# corpus is rebuilt as the minimal set of inputs covering everything seen; at most
# FUZZ_CORPUS_KIB, default 256, KiB per harness: the largest generated inputs are dropped
# first), and print one table: harness, seconds, executions, exec/s, coverage (cov: and
# ft: of libFuzzer's last status line), corpus files and KiB after the merge, crashes.  The table is also
# written to fuzz/results/deep.txt (FUZZ_RESULTS overrides; latest row per harness) and
# appended to fuzz/results/deep-history.txt (every run).
#
# A finding (crash, leak, UBSan report, timeout, OOM) stops libFuzzer: the input is
# kept under build-fuzz/deep/<harness>/ and the harness is started again on its corpus
# for the rest of its time (at most 20 restarts), so one bug does not end the run.
# Findings belong in fuzz/regress/<name>/ once fixed (tests/cli/t9100 replays them).
# Work files: build-fuzz/deep/<harness>/ (corpus, logs, findings, TMPDIR).
# A dictionary fuzz/<harness without fuzz_>.dict is passed when it exists.
# FUZZ_DEEP_SECONDS=N runs N seconds instead of MINUTES (a trial of the script).
# Exit status: 0 when no harness found anything, 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."

MINUTES=${1:-10}
shift || true
OUT=${FUZZ_BUILD:-build-fuzz}
JOBS=${FUZZ_JOBS:-2}
(( JOBS > $(nproc) )) && JOBS=$(nproc)
(( JOBS < 1 )) && JOBS=1
RESULTS=${FUZZ_RESULTS:-fuzz/results/deep.txt}
MAX_RESTARTS=20
CORPUS_KIB=${FUZZ_CORPUS_KIB:-256}

if [[ $# -gt 0 ]]; then
    harnesses=("$@")
else
    harnesses=()
    for f in fuzz/fuzz_*.c; do harnesses+=("$(basename "$f" .c)"); done
fi
bash fuzz/run.sh 0 "${harnesses[@]}"

seed_dir() {        # fuzz/corpus/<harness> or fuzz/corpus/<harness without fuzz_>
    local h=$1
    if [[ -d fuzz/corpus/$h ]]; then echo "fuzz/corpus/$h"; else echo "fuzz/corpus/${h#fuzz_}"; fi
}

# One harness for SECS seconds (restarting after findings); writes $dir/summary:
# "seconds executions cov ft crashes".
fuzz_one() {
    local h=$1 secs=$2 dir="$OUT/deep/$1"
    local seeds; seeds=$(seed_dir "$h")
    rm -rf "$dir" && mkdir -p "$dir/corpus" "$dir/tmp" "$dir/findings"
    local start=$SECONDS left=$secs execs=0 cov=0 ft=0 n=0 dict=()
    [[ -f fuzz/${h#fuzz_}.dict ]] && dict=(-dict="fuzz/${h#fuzz_}.dict")
    while (( left > 0 && n <= MAX_RESTARTS )); do
        local log="$dir/run-$n.log"
        # shellcheck disable=SC2086
        TMPDIR="$PWD/$dir/tmp" "$OUT/$h" -max_total_time="$left" -timeout=10 -rss_limit_mb=2048 \
            -print_final_stats=1 -artifact_prefix="$dir/findings/" "${dict[@]}" \
            "$dir/corpus" "$seeds" >"$log" 2>&1 || true
        local e
        e=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
        execs=$(( execs + ${e:-0} ))
        local last
        last=$(grep -E '^#[0-9]+.*cov: [0-9]+ ft: [0-9]+' "$log" | tail -n1 || true)
        if [[ -n $last ]]; then
            cov=$(sed -E 's/.*cov: ([0-9]+).*/\1/' <<<"$last")
            ft=$(sed -E 's/.*ft: ([0-9]+).*/\1/' <<<"$last")
        fi
        if grep -qE '^==[0-9]+==ERROR|runtime error:|^SUMMARY: |Test unit written|ALARM: working on the last Unit' "$log"; then
            echo "fuzz/deep.sh: $h: finding (log: $log)" >&2
            grep -E 'ERROR|runtime error|SUMMARY|Test unit written|invariant' "$log" | head -n 8 >&2 || true
        elif [[ -z $e ]]; then
            echo "fuzz/deep.sh: $h: libFuzzer stopped without stats (log: $log)" >&2
            tail -n 5 "$log" >&2
            break
        fi
        n=$(( n + 1 ))
        left=$(( secs - (SECONDS - start) ))
    done
    local crashes
    crashes=$(find "$dir/findings" -type f | wc -l)
    echo "$(( SECONDS - start )) $execs $cov $ft $crashes" >"$dir/summary"
    rm -rf "$dir/tmp"
}

# Merge the run's corpus into the repository corpus: hand-named seeds (not 40 hex
# digits, libFuzzer's names) are kept, the rest is rebuilt minimally.
merge_one() {
    local h=$1 dir="$OUT/deep/$1"
    local seeds; seeds=$(seed_dir "$h")
    local keep="$dir/merged" old="$dir/old-hashed"
    rm -rf "$keep" "$old" && mkdir -p "$keep" "$old" "$dir/tmp" "$seeds"
    find "$seeds" -maxdepth 1 -type f | while read -r f; do
        if [[ $(basename "$f") =~ ^[0-9a-f]{40}$ ]]; then cp "$f" "$old/"; else cp "$f" "$keep/"; fi
    done
    TMPDIR="$PWD/$dir/tmp" "$OUT/$h" -merge=1 -timeout=10 -rss_limit_mb=2048 "$keep" "$old" \
        "$dir/corpus" >"$dir/merge.log" 2>&1 || {
        echo "fuzz/deep.sh: $h: merge failed (log: $dir/merge.log), corpus unchanged" >&2
        return 0
    }
    # at most CORPUS_KIB per harness: the largest of the generated inputs go first
    local total
    total=$(du -sb "$keep" | cut -f1)
    while (( total > CORPUS_KIB * 1024 )); do
        local big
        big=$(find "$keep" -maxdepth 1 -type f -regextype posix-extended -regex '.*/[0-9a-f]{40}' \
                  -printf '%s %p\n' | sort -n | tail -n1)
        [[ -n $big ]] || break
        rm -f "${big#* }"
        total=$(( total - ${big%% *} ))
    done
    find "$seeds" -maxdepth 1 -type f -delete
    cp "$keep"/* "$seeds/"
    rm -rf "$keep" "$old" "$dir/tmp"
}

# the run: when it started and what it fuzzed ("+" = with uncommitted changes)
stamp="$(date -u '+%Y-%m-%d %H:%M') $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
git diff --quiet HEAD -- src include 'fuzz/*.c' 2>/dev/null || stamp+="+"
secs=${FUZZ_DEEP_SECONDS:-$(( MINUTES * 60 ))}     # FUZZ_DEEP_SECONDS: a short trial
echo "fuzz/deep.sh: ${#harnesses[@]} harnesses, ${MINUTES} min each, $JOBS at a time" >&2
running=0
for h in "${harnesses[@]}"; do
    if (( running >= JOBS )); then
        wait -n || true
        running=$(( running - 1 ))
    fi
    echo "fuzz/deep.sh: $(date -u +%H:%M:%S) start $h" >&2
    fuzz_one "$h" "$secs" &
    running=$(( running + 1 ))
done
wait || true

status=0
rows=$(mktemp)
for h in "${harnesses[@]}"; do
    dir="$OUT/deep/$h"
    read -r s e cov ft crashes <"$dir/summary"
    merge_one "$h"
    seeds=$(seed_dir "$h")
    files=$(find "$seeds" -maxdepth 1 -type f | wc -l)
    kib=$(find "$seeds" -maxdepth 1 -type f -printf '%s\n' | awk '{ t += $1 } END { print int((t + 1023) / 1024) }')
    printf '%-14s %8s %12s %8s %6s %7s %8s %8s %8s  %s\n' "$h" "$s" "$e" "$(( s ? e / s : 0 ))" \
        "$cov" "$ft" "$files" "$kib" "$crashes" "$stamp" >>"$rows"
    (( crashes == 0 )) || status=1
done
# the results file keeps the rows of harnesses this run did not touch
if [[ -f $RESULTS ]]; then
    grep -E '^fuzz_' "$RESULTS" | while read -r line; do
        grep -q "^${line%% *} " "$rows" || echo "$line"
    done >>"$rows"
fi
{
    echo "# fuzz/deep.sh: libFuzzer time per harness, executions, coverage (cov: edges, ft: features"
    echo "# of the last status line), repository corpus after the merge, findings (crash/leak/UBSan/"
    echo "# timeout/OOM inputs); JOBS=$JOBS on $(nproc) CPUs; run = UTC date and commit fuzzed"
    printf '%-14s %8s %12s %8s %6s %7s %8s %8s %8s  %s\n' harness seconds executions exec/s cov ft \
        corpus KiB crashes run
    sort -k1,1 "$rows"
} >"$rows.table"
cat "$rows.table"
mkdir -p "$(dirname "$RESULTS")"
cp "$rows.table" "$RESULTS"
# every run's rows, oldest first (the table above keeps only the latest per harness)
grep -F " $stamp" "$rows.table" >>"${RESULTS%.txt}-history.txt" || true
rm -f "$rows" "$rows.table"
exit $status
