#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/tools/damage-oracle.sh [RECIPE...] - show what the real LVM2 does with each damaged
# disk set of tests/tools/damage.py (attached to loop devices, LVM2 sandboxed).  A
# developer tool for choosing the EXPECT column of damage.py; not run by `make check`.
# Needs root and loop devices.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
need_loop
need_cmd lvm

DAMAGE="$LVX_ROOT/tests/tools/damage.py"
mapfile -t lines < <("$PYTHON" "$DAMAGE" list)
for line in "${lines[@]}"; do
    read -r name _ vg expect _ <<<"$line"
    if [[ $# -gt 0 && " $* " != *" $name "* ]]; then continue; fi
    dir="$SCRATCH/$name"
    IFS=, read -r -a files <<<"$("$PYTHON" "$DAMAGE" make "$name" "$dir")"
    loops=()
    for f in "${files[@]}"; do
        if [[ -s $f ]]; then loops+=("$(attach_loop "$f")"); fi
    done
    lvm_sandbox "${loops[@]}"
    rc=0
    lvm2 vgs "$vg" >"$dir/out" 2>"$dir/err" || rc=$?
    printf '%-28s expect=%-10s lvm vgs %s: rc=%d %s\n' "$name" "$expect" "$vg" "$rc" \
        "$(grep -v 'Activation disabled' "$dir/err" | tr '\n' '|' | cut -c1-300)"
    for l in "${loops[@]}"; do detach_loop "$l"; done
    rm -rf "$dir"
done
