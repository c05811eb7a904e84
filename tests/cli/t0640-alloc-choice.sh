#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0640-alloc-choice: which free area of a PV a new LV takes, compared with real LVM2
# on the same VG.  LVM2's choice is not a plain best fit (model/alloc.c,
# run_lvm_fit): with free areas of 19, 8 and 5 extents it takes the 5 for 1-2
# extents, the 8 for 3-8 and the 19 above; with 20 and 35 it takes the 20 only
# below 15 extents.  The same holds under --alloc contiguous and cling and for each
# stripe of a striped LV.  LVM2 makes the holes; for every lvcreate below, LVM2
# creates the LV, its placement is recorded, it is removed, and lvx does the same.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_loop
need_cmd lvm
need_lvx
plan_later

A=$(make_loop 128M) && B=$(make_loop 128M) || { _tap_result 1 "attach two loop devices"; done_testing; }
lvm_sandbox "$A" "$B"
export LVM_SYSTEM_DIR="$SCRATCH/lvm"
run_lvm() { LVM_SUPPRESS_FD_WARNINGS=1 lvm "$@" 2>/dev/null; }
test_ok "LVM2 vgcreate -s 1m" run_lvm vgcreate -q -s 1m vgc "$A" "$B"
# A: used 0-5, free 6-13 (8), used 14-24, free 25-29 (5), used 30-107, free 108-126 (19)
# B: used 0-9, free 10-29 (20), used 30-49, free 50-84 (35), used 85-126
mk() { run_lvm lvcreate -q -an -Zn -l "$2" -n "$1" vgc "$3"; }
ok_layout=1
mk a1 6 "$A:0-5" && mk a2 11 "$A:14-24" && mk a3 78 "$A:30-107" &&
    mk b1 10 "$B:0-9" && mk b2 20 "$B:30-49" && mk b3 42 "$B:85-126" || ok_layout=0
test_eq "LVM2 made the holes" "$ok_layout" 1

placement() {  # placement TOOL: the new LV's PE ranges, one segment per line
    "$@" lvs --noheadings -o seg_pe_ranges vgc/t 2>/dev/null | sed 's/^ *//; s/ *$//'
}
compare() {  # compare ARGS...: lvcreate ARGS on both tools, same placement
    local want got
    run_lvm lvcreate -q -an -Zn -n t "$@" >/dev/null
    want=$(placement run_lvm)
    run_lvm lvremove -q -f vgc/t >/dev/null
    lvx lvcreate -q -an -Zn -n t "$@" >/dev/null 2>"$SCRATCH/err"
    got=$(placement lvx)
    lvx lvremove -q -f vgc/t >/dev/null 2>&1
    if [[ -z $want ]]; then
        _tap_result 1 "lvcreate $*: LVM2 placed it"
        return
    fi
    test_eq "lvcreate $*: where LVM2 puts it (${want//$'\n'/ | })" "$got" "$want"
}

for n in 1 2 3 5 8 9 11 19; do compare -l "$n" vgc "$A"; done
for n in 10 14 15 18 20 30; do compare -l "$n" vgc "$B"; done
for n in 2 4 6; do compare -l "$n" --alloc contiguous vgc "$A"; done
for n in 3 16; do compare -l "$n" --alloc cling vgc "$B"; done
for n in 2 4 6 8 16 28 30 38; do compare -l "$n" -i 2 vgc; done
compare -l 6 -i 2 --alloc contiguous vgc
compare -l 4 -i 2 --alloc cling vgc
compare -l 3 vgc
compare -l 12 vgc
done_testing
