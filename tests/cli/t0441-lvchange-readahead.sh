#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0441-lvchange-readahead: `lvchange -r` as LVM2 (shell/lvchange-usage forms): a new
# value changes the LV; the value it already has (auto, none/0, a number, a number
# rounded to 4 KiB pages) is LVM2's "Read ahead is already X for VG/LV." and exit 5
# with nothing written.  Each step runs LVM2 on one LV and lvx on its twin in the same
# VG: same exit code and output (LV names aside), and the same read-ahead afterwards.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/side.sh"

VG=vgra$$
side_setup 1
lvm2 pvcreate -q "${D[0]}" >/dev/null 2>&1
lvm2 vgcreate -q "$VG" "${D[0]}" >/dev/null 2>&1
lvm2 lvcreate -q -an -n l -L 8m "$VG" >/dev/null 2>&1
lvm2 lvcreate -q -an -n x -L 8m "$VG" >/dev/null 2>&1
test_eq "LVM2 made the two LVs" "2" "$(lvm2 lvs --noheadings -o lv_name "$VG" 2>/dev/null | wc -l)"

step() {  # step VALUE
    local rl=0 rx=0
    lvm2 lvchange -r "$1" "$VG/l" >"$SCRATCH/l.out" 2>"$SCRATCH/l.err" || rl=$?
    lvx lvchange -r "$1" "$VG/x" >"$SCRATCH/x.out" 2>"$SCRATCH/x.err" || rx=$?
    test_eq "-r $1: exit code" "$rl" "$rx"
    test_eq "-r $1: output" "$(cat "$SCRATCH/l.out" "$SCRATCH/l.err" | side_filter | sed "s|$VG/l|LV|g")" \
        "$(cat "$SCRATCH/x.out" "$SCRATCH/x.err" | side_filter | sed "s|$VG/x|LV|g")"
    test_eq "-r $1: read-ahead afterwards" \
        "$(lvm2 lvs --noheadings -o lv_read_ahead "$VG/l" 2>/dev/null)" \
        "$(lvm2 lvs --noheadings -o lv_read_ahead "$VG/x" 2>/dev/null)"
}
for v in auto 256 256 none none 0 auto auto 300 296 8 1; do step "$v"; done
lvm2 vgremove -q -f "$VG" >/dev/null 2>&1
done_testing
