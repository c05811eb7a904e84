#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0672-snapshot-merge: `lvconvert --merge` of COW snapshots without device-mapper (the
# origin inactive, so the merge waits for its next activation), checked by LVM2:
#   * lvx's lines and exit code; LVM2 reads the merge lvx wrote: lvs -a/lvs equal lvx's
#     (the merging snapshot hidden as [s1], attrs S and O), vgck passes;
#   * the metadata lvx writes for a merging snapshot equals what LVM2 writes for it
#     (merging_store, snapshotN without VISIBLE, the COW LV after the visible LVs),
#     and a VG LVM2 rewrote keeps the merge when lvx reads it;
#   * refused as LVM2 refuses, with LVM2's lines and codes, nothing written: a second
#     snapshot while one merges, a merging snapshot again, a read-only origin, options
#     --merge does not take.
# LVM2 itself does not start a merge without device-mapper ("Missing support in
# kernel?"): the merge as the kernel runs it (snapshot-merge, delayed merges, the end of
# the merge) is compared in t0703 (VM).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_loop
need_cmd lvm
need_lvx
plan_later

D1=$(make_loop 64M) && D2=$(make_loop 64M) || { _tap_result 1 "loop devices"; done_testing; }
DEVS="$D1,$D2"
X() { lvx "$@" --devices "$DEVS"; }
sums() { sha_devs "$D1" "$D2"; }
REP=lv_name,lv_attr,origin,lv_size,lv_merging
# the metadata text without its header, seqno and times
text() { grep -vE '^(#|contents|version|description|creation_host|creation_time)|seqno|^$' "$1"; }

test_ok "lvx makes vg1, a 12m origin and two snapshots" sh -c \
    "'$LVX' pvcreate -q $D1 $D2 --devices $DEVS && '$LVX' vgcreate -q vg1 $D1 $D2 --devices $DEVS &&
     '$LVX' lvcreate -an -L 12m -n orig vg1 --devices $DEVS &&
     '$LVX' lvcreate -s -L 8m -n s1 vg1/orig --devices $DEVS &&
     '$LVX' lvcreate -s -L 4m -n s2 vg1/orig --devices $DEVS" 

bad() {  # bad DESC ARGS...: lvx refuses as LVM2 (lines, code), nothing written
    local desc=$1 before xrc=0 lrc=0 xo lo
    shift
    before=$(sums)
    xo=$(X "$@" 2>&1) || xrc=$?
    test_eq "$desc: nothing written" "$(sums)" "$before"
    lo=$(lvm2 "$@" 2>&1 | grep -v "WARNING: Activation disabled") || true
    lrc=$(lvm2 "$@" >/dev/null 2>&1; echo $?)
    test_eq "$desc: lvx's lines and exit code equal LVM2's" "$xrc $xo" "$lrc $lo"
}
test_ok "origin made read-only" X lvchange -pr vg1/orig
bad "merge into a read-only origin" lvconvert --merge vg1/s1
test_ok "origin writable again" X lvchange -prw vg1/orig
bad "--merge with --type" lvconvert --merge --type raid1 vg1/s1

# (the sandbox's backup warning, checked by t0949, aside)
out=$(X lvconvert --merge vg1/s1 2>&1 | sandbox_noise; exit "${PIPESTATUS[0]}")
test_eq "lvconvert --merge of an inactive origin's snapshot: exit 0, LVM2's line" \
    "$?:$out" "0:  Merging of snapshot vg1/s1 will occur on next activation of vg1/orig."
test_ok "LVM2's vgck accepts the merging snapshot" lvm2 vgck vg1
test_eq "lvs -a: lvx's equals LVM2's ([s1] S, orig O)" \
    "$(X lvs -a -o $REP vg1 2>&1)" "$(lvm2 lvs -a -o $REP vg1 2>/dev/null)"
test_eq "lvs: the merging snapshot is not listed, as LVM2" \
    "$(X lvs -o $REP vg1 2>&1)" "$(lvm2 lvs -o $REP vg1 2>/dev/null)"
test_ok "the attrs say so (Swi, Owi)" sh -c \
    "'$LVX' lvs -a --noheadings -o lv_name,lv_attr vg1 --devices $DEVS | grep -q '\[s1\] *Swi' &&
     '$LVX' lvs -a --noheadings -o lv_name,lv_attr vg1 --devices $DEVS | grep -q 'orig *Owi'"

X vgcfgbackup -f "$SCRATCH/x.vg" vg1 >/dev/null 2>&1
test_eq "lvx's metadata: merging_store, no cow_store for s1, snapshot0 not VISIBLE" \
    "$(grep -c 'merging_store = "s1"' "$SCRATCH/x.vg"):$(grep -c 'cow_store = "s1"' "$SCRATCH/x.vg"):$(sed -n '/snapshot0 {/,/}/p' "$SCRATCH/x.vg" | grep -c VISIBLE)" \
    "1:0:0"
test_ok "LVM2 rewrites the VG (a tag on orig)" lvm2 lvchange --addtag t1 vg1/orig
lvm2 vgcfgbackup -f "$SCRATCH/l.vg" vg1 >/dev/null 2>&1
X vgcfgbackup -f "$SCRATCH/x2.vg" vg1 >/dev/null 2>&1
test_eq "the metadata lvx writes equals LVM2's for the same VG (LV order, keys)" \
    "$(text "$SCRATCH/x2.vg")" "$(text "$SCRATCH/l.vg")"
test_eq "lvx still sees the merge in the VG LVM2 wrote" \
    "$(X lvs -a --noheadings -o lv_name,lv_attr vg1 2>&1 | tr -s ' ')" \
    "$(lvm2 lvs -a --noheadings -o lv_name,lv_attr vg1 2>/dev/null | tr -s ' ')"

bad "a second snapshot while s1 merges" lvconvert --merge vg1/s2
bad "the merging snapshot again" lvconvert --merge vg1/s1

out=$(X lvremove -f vg1/orig 2>&1)
test_ok "lvremove of the merging origin takes both snapshots" grep -qF 'Logical volume "orig" successfully removed.' <<<"$out"
test_eq "LVM2: no LV left" "$(lvm2 vgs --noheadings -o lv_count vg1 2>/dev/null | tr -d ' ')" 0
test_ok "LVM2's vgck at the end" lvm2 vgck vg1
test_ok "vgremove" X vgremove -f vg1
done_testing
