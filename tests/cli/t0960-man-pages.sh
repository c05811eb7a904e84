#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0960-man-pages: the man pages generated from the command and option tables
# (tools/docgen.c, `make man`, next to $LVX in man/), checked against what the lvx
# binary itself says (`lvx help`, `lvx help CMD`), not against the generator:
#   - exactly one page lvx-CMD.8 per command of `lvx help`, and lvx.8 naming them all;
#   - every page: groff -man -ww emits no warning, mandoc -T lint none of level warning
#     or above (when mandoc is installed); man -l renders lvx.8 and one command's page;
#   - NAME is "lvx-CMD - <the summary of lvx help>", sections SYNOPSIS, DESCRIPTION
#     (a paragraph of its own), COMMON OPTIONS, EXIT STATUS, SEE ALSO;
#   - the options of the SYNOPSIS are exactly those `lvx help CMD` lists, and each is
#     documented (its "-s, --long VALUE" line) in OPTIONS or COMMON OPTIONS;
#   - EXIT STATUS lists 0 2 3 4 5, and lvx exits 2 / 3 where the pages say;
#   - the pages are the generator's current output (nothing stale in the build).
# Costs about 10 s on a quiet machine (groff and mandoc over 30-odd pages); no devices.
source "$(dirname "$0")/../lib.sh"

need_lvx
need_cmd groff man col
MAN=$(dirname "$LVX")/man
DOCGEN=$(dirname "$LVX")/lvx-docgen
[[ -f $MAN/.stamp && -x $DOCGEN ]] || skip_all "$MAN not generated (make man)"

# render PAGE -> plain text, wide lines (one option line per line); groff's warnings
# (-ww: all of them) in $SCRATCH/render.err
render() { groff -man -Tutf8 -ww -rLL=250n "$1" 2>"$SCRATCH/render.err" | col -b; }
# section NAME <text: the lines of that section (up to the next heading)
section() { awk -v s="$1" '/^[A-Z][A-Z ]*$/ { on = ($0 == s); next } on'; }

# the commands and their summaries, from lvx itself (LVM2 prints the list on stderr)
mapfile -t cmdlines < <(lvx help 2>&1 | awk '/^  [a-z][a-z0-9]* +[^ ]/ && !/^  Use / && !/^  Available/')
cmds=()
declare -A summary
for l in "${cmdlines[@]}"; do
    read -r name rest <<<"$l"
    cmds+=("$name")
    summary[$name]=$rest
done
test_ok "lvx help lists commands (${#cmds[@]})" test "${#cmds[@]}" -ge 20

pages=()
for f in "$MAN"/lvx-*.8; do p=${f##*/lvx-}; pages+=("${p%.8}"); done
test_eq "one page per command, no other" "$(printf '%s\n' "${pages[@]}" | sort | tr '\n' ' ')" \
    "$(printf '%s\n' "${cmds[@]}" | sort | tr '\n' ' ')"

have_mandoc=0
command -v mandoc >/dev/null 2>&1 && have_mandoc=1

# lint PAGE: groff's warnings of the last render, and mandoc's (none expected)
lint() {
    local out
    out=$(cat "$SCRATCH/render.err")
    if ((have_mandoc)); then
        out+=$(mandoc -T lint -W warning "$1" 2>&1)
    fi
    [[ -z $out ]] || { printf '%s\n' "$out" >&2; return 1; }
}

# load_sections FILE: SEC[HEADING] = the lines of each section of a rendered page
declare -A SEC
load_sections() {
    local l cur=
    SEC=()
    while IFS= read -r l; do
        if [[ $l =~ ^[A-Z][A-Z\ ]*$ ]]; then
            cur=$l
            SEC[$cur]=
        elif [[ -n $cur ]]; then
            SEC[$cur]+=$l$'\n'
        fi
    done <"$1"
}
# opts_in TEXT: the sorted "-s|--long" / "--long" words of bracketed usage items
# ("[ -s|--long ...", "[    --long ...", "[-s|--long ...") of TEXT, one per line
opts_in() {
    local rest=$1 re='\[ *((-[A-Za-z]\|)?--[a-z][a-z0-9-]*)' out=()
    while [[ $rest =~ $re ]]; do
        out+=("${BASH_REMATCH[1]}")
        rest=${rest#*"${BASH_REMATCH[0]}"}
    done
    printf '%s\n' "${out[@]}" | sort -u
}

for c in "${cmds[@]}"; do
    page=$MAN/lvx-$c.8
    if [[ ! -f $page ]]; then
        _tap_result 1 "$c: page lvx-$c.8 exists"
        continue
    fi
    render "$page" >"$SCRATCH/$c.txt"
    test_ok "$c: groff -ww and mandoc lint are silent" lint "$page"
    load_sections "$SCRATCH/$c.txt"

    # NAME and sections
    name_line=${SEC[NAME]%%$'\n'*}
    name_line=${name_line#"${name_line%%[! ]*}"}
    ok=0
    [[ $name_line == "lvx-$c - ${summary[$c]}" ]] || ok=1
    for s in SYNOPSIS DESCRIPTION "COMMON OPTIONS" "EXIT STATUS" "SEE ALSO"; do
        [[ -n ${SEC[$s]+x} ]] || { ok=1; diag "$c: no section $s"; }
    done
    # the DESCRIPTION paragraph is the command's own (before the line about lvm names)
    desc=${SEC[DESCRIPTION]%%The same command runs as*}
    desc=${desc//[[:space:]]/}
    ((${#desc} > 50)) || { ok=1; diag "$c: DESCRIPTION too short: ${SEC[DESCRIPTION]}"; }
    _tap_result "$ok" "$c: NAME line '$name_line' and all sections"

    # options: the synopsis has exactly the command's options, each is documented
    want=$(opts_in "$(lvx help "$c" 2>&1)")
    test_eq "$c: SYNOPSIS options = lvx help $c options" "$(opts_in "${SEC[SYNOPSIS]}")" "$want"
    # the option lines of OPTIONS and COMMON OPTIONS: "-s, --long VALUE" or "--long VALUE"
    declare -A documented=()
    while IFS= read -r l; do
        if [[ $l =~ ^\ +(-[A-Za-z]),\ (--[a-z][a-z0-9-]*)(\ |$) ]]; then
            documented["${BASH_REMATCH[1]}|${BASH_REMATCH[2]}"]=1
        elif [[ $l =~ ^\ +(--[a-z][a-z0-9-]*)(\ |$) ]]; then
            documented["${BASH_REMATCH[1]}"]=1
        fi
    done <<<"${SEC[OPTIONS]}${SEC[COMMON OPTIONS]}"
    missing=() n=0
    while read -r o; do
        [[ -n $o ]] || continue
        n=$((n + 1))
        [[ -z ${documented[$o]+x} ]] && missing+=("$o")
    done <<<"$want"
    unset documented
    test_eq "$c: every option of lvx help $c documented ($n options)" "${missing[*]}" ""

    codes=
    while read -r l; do
        [[ $l =~ ^([0-9]+)(\ |$) ]] && codes+="${BASH_REMATCH[1]} "
    done <<<"${SEC[EXIT STATUS]}"
    test_eq "$c: EXIT STATUS lists LVM2's codes" "$codes" "0 2 3 4 5 "
done

# lvx.8
render "$MAN/lvx.8" >"$SCRATCH/lvx.txt"
test_ok "lvx.8: groff -ww and mandoc lint are silent" lint "$MAN/lvx.8"

# man itself (man-db: preprocessors, its own groff call) renders them
for p in lvx.8 lvx-lvcreate.8; do
    txt=$(MANWIDTH=100 man -l "$MAN/$p" 2>"$SCRATCH/man.err" | col -b)
    test_ok "man -l $p renders, without a message" \
        test -z "$(cat "$SCRATCH/man.err")" -a "$(grep -c '^EXIT STATUS$' <<<"$txt")" = 1
done
missing=()
for c in "${cmds[@]}"; do
    section COMMANDS <"$SCRATCH/lvx.txt" | grep -qE "^ +lvx-$c\(8\)\$" || missing+=("$c")
done
test_eq "lvx.8 COMMANDS names every command" "${missing[*]}" ""
section "SEE ALSO" <"$SCRATCH/lvx.txt" | tr -s ' \n' ' ' >"$SCRATCH/see.txt"
missing=()
for c in "${cmds[@]}"; do grep -q "lvx-$c(8)" "$SCRATCH/see.txt" || missing+=("$c"); done
test_eq "lvx.8 SEE ALSO names every command" "${missing[*]}" ""

# the exit codes the pages document are lvx's
rc=0; lvx no-such-command >/dev/null 2>&1 || rc=$?
test_eq "exit 2 for an unknown command (EXIT STATUS 2)" "$rc" 2
rc=0; lvx lvcreate --no-such-option vg >/dev/null 2>&1 || rc=$?
test_eq "exit 3 for an unknown option (EXIT STATUS 3)" "$rc" 3
rc=0; lvx lvcreate --size 4x vg >/dev/null 2>&1 || rc=$?
test_eq "exit 3 for a bad size value (EXIT STATUS 3)" "$rc" 3

# the build's pages are the generator's current output
mkdir -p "$SCRATCH/regen"
date=$(sed -n 's/^\.TH [^ ]* 8 "\([^"]*\)".*/\1/p' "$MAN/lvx.8")
test_ok "lvx-docgen man runs" "$DOCGEN" man "$SCRATCH/regen" "$date"
test_ok "the pages in $(basename "$(dirname "$MAN")")/man are the current ones" \
    diff -r -x .stamp "$MAN" "$SCRATCH/regen"

done_testing
