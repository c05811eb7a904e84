#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t9110-fuzz-findings: command-line behaviour fuzz/fuzz_cmdline found wrong, checked
# against LVM2 on loop devices: an LV command (lvremove, lvchange) with one argument that
# is no LV path ("a/b/c") refuses the whole command line with LVM2's message and exit
# code and changes nothing, not even the LVs named correctly next to it; `lvx config
# --type <unknown>` fails cleanly; lvremove of a VG without LVs succeeds.
# (fuzz/regress/fuzz_cmdline/ replays the inputs themselves, t9100.)
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_root
need_loop
need_lvx
need_cmd lvm
plan_later

d1=$(make_loop 16M) || skip_all "no loop device"
d2=$(make_loop 16M) || skip_all "no loop device"
lvm_sandbox "$d1"
vg=fzfind$$
lx() { local c=$1; shift; lvx "$c" --devices "$d2" "$@"; }   # lvx on its own loop device
lvm2 pvcreate -q "$d1" >/dev/null 2>&1
lvm2 vgcreate -q "$vg" "$d1" >/dev/null 2>&1
lvm2 lvcreate -q -an -l1 -n l1 "$vg" >/dev/null 2>&1
lx pvcreate -q "$d2" >/dev/null 2>&1
lx vgcreate -q "$vg" "$d2" >/dev/null 2>&1
lx lvcreate -q -an -l1 -n l1 "$vg" >/dev/null 2>&1
test_eq "setup: both have $vg/l1" \
    "$(lvm2 lvs --noheadings -o lv_name "$vg" 2>/dev/null | tr -d ' ')/$(lx lvs --noheadings -o lv_name "$vg" | tr -d ' ')" \
    "l1/l1"

# one run of each tool: "exit|stderr without LVM2's activation warning"
both() {
    local rc=0 out
    out=$(lvm2 "$@" 2>&1 >/dev/null) || rc=$?
    lvm_says="$rc|$(grep -v 'WARNING: Activation disabled' <<<"$out")"
    rc=0
    out=$(lx "$@" 2>&1 >/dev/null) || rc=$?
    lvx_says="$rc|$out"
}

for cmd in "lvremove -f" "lvchange -p r"; do
    # shellcheck disable=SC2086
    both $cmd bad/na/me "$vg/l1"
    test_eq "$cmd bad/na/me $vg/l1: LVM2's exit code and message" "$lvx_says" "$lvm_says"
    test_eq "$cmd: exit 5 as LVM2" "${lvx_says%%|*}" 5
    # name and the first attr letters (LVM2 without activation prints X for the state)
    test_eq "$cmd: the valid LV is left as it was" \
        "$(lx lvs --noheadings -o lv_name,lv_attr "$vg" | awk '{ print $1, substr($2, 1, 4) }')" \
        "$(lvm2 lvs --noheadings -o lv_name,lv_attr "$vg" 2>/dev/null | awk '{ print $1, substr($2, 1, 4) }')"
done
test_eq "l1 is still writable (lvchange -p r did nothing)" \
    "$(lx lvs --noheadings -o lv_attr "$vg/l1" | tr -d ' ' | cut -c2)" w

test_fail "config --type unknown fails without a crash" lvx config --type nosuchtype
lx lvremove -f "$vg/l1" >/dev/null 2>&1
test_ok "lvremove of a VG without LVs" lx lvremove -f "$vg"

lx vgremove -f "$vg" >/dev/null 2>&1
lvm2 vgremove -f "$vg" >/dev/null 2>&1
done_testing
