#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1075-user-mirror-resync-activate: `lvchange -a... --resync` of an old-style mirror,
# served by the lvx daemon (user backend) over four loop devices.  LVM2's --resync
# command takes --activate too (lvchange_resync_cmd): the resync first, then
# "WARNING: Combining activation change with other commands is not advised." and the
# activation change as `lvchange -a` alone (LVM2's lvconvert-mirror.sh:265 does
# `lvchange -aey --resync -y` of a --nosync mirror before adding an image to it):
#   - a --nosync mirror refuses -m +1 (LVM2's line); after `lvchange -aey --resync -y`
#     (exit 0, the warning) it is no longer NOTSYNCED, active, and -m +1 works;
#   - `lvconvert VG/LV` alone (LVM2's poll, lvconvert-mirror.sh:331): waits for the
#     sync, nothing written;
#   - an inactive core-log --nosync mirror: `lvchange -ay --resync -y` resyncs and
#     activates it;
#   - --rebuild with -a stays refused (exit 3, nothing changed).
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

VG=vgmra$$
uspace_test_loops "$VG" 4 64M
lvsf() { lvx lvs --noheadings -o "$2" "$VG/$1" 2>/dev/null | tr -d ' '; }
seqno() { lvx vgs --noheadings -o seqno "$VG" 2>/dev/null | tr -d ' '; }

lvx vgcreate "$VG" "${DEVS[@]}" >/dev/null 2>&1
uspace_run_ok "a --nosync mirror made and active" \
    lvx lvcreate -aey --type mirror -m1 -l1 --nosync -n m1 "$VG"
rc=0
lvx lvconvert -m +1 "$VG/m1" >"$SCRATCH/c.out" 2>&1 || rc=$?
test_eq "-m +1 of the --nosync mirror: refused (LVM2's line, exit 5)" \
    "$rc $(cat "$SCRATCH/c.out")" \
    "5   Can't add mirror to out-of-sync mirrored LV: use lvchange --resync first."
rc=0
lvx lvchange -aey --resync -y "$VG/m1" >"$SCRATCH/r.out" 2>&1 || rc=$?
test_eq "lvchange -aey --resync -y: exit 0, LVM2's warning" \
    "$rc $(grep -c '^  WARNING: Combining activation change with other commands is not advised.$' "$SCRATCH/r.out")" \
    "0 1"
test_eq "after it: not NOTSYNCED (attr m), active" \
    "$(lvsf m1 lv_attr | cut -c1,5)" "ma"
uspace_run_ok "-m +1 works now" lvx lvconvert -m +1 "$VG/m1"
test_eq "three images" "$(lvsf m1 devices | tr ',' '\n' | wc -l)" "3"
s0=$(seqno)
rc=0
lvx lvconvert "$VG/m1" >"$SCRATCH/p.out" 2>&1 || rc=$?
test_eq "lvconvert VG/LV alone: waits for the sync (LVM2's poll line), nothing written" \
    "$rc $(cat "$SCRATCH/p.out") $(seqno) $(lvsf m1 copy_percent)" \
    "0   $VG/m1: Converted: 100.00% $s0 100.00"

uspace_run_ok "an inactive core-log --nosync mirror" \
    lvx lvcreate -an --type mirror -m1 --corelog -l1 --nosync -n m2 "$VG"
rc=0
lvx lvchange -ay --resync -y "$VG/m2" >"$SCRATCH/r2.out" 2>&1 || rc=$?
test_eq "lvchange -ay --resync -y of it: exit 0, resynced, active" \
    "$rc $(lvsf m2 lv_attr | cut -c1,5)" "0 ma"

s0=$(seqno)
rc=0
lvx lvchange -ay --rebuild "${DEVS[0]}" "$VG/m2" >"$SCRATCH/b.out" 2>&1 || rc=$?
test_eq "--rebuild with -a: refused (exit 3), nothing written" \
    "$rc $(cat "$SCRATCH/b.out") $(seqno)" \
    "3   --rebuild and --resync cannot be combined with other changes. $s0"
lvx vgremove -ff "$VG" >/dev/null 2>&1
done_testing
