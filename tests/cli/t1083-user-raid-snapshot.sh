#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1083-user-raid-snapshot: COW snapshots of RAID LVs served by the lvx daemon (the
# `user` backend): the origin's file serves the array with its RAID target under the
# snapshot-origin target (daemon/target_snapshot.c), the snapshot's file reads the
# origin through it.
#   - lvcreate -s of an active raid1 (taken live), origin rewritten: the origin reads
#     the new data, every rimage holds it (read from the PVs), the snapshot reads the
#     old data; its store parses (tests/tools/cow_check.py) and, read as the kernel
#     reads it, equals what the daemon serves; the origin's lvs shows its RAID state;
#   - fio --verify=crc32c over the origin; a write to the snapshot; deactivation and
#     reactivation of the set serve the same bytes; the dm-raid superblocks stopped
#     clean;
#   - SIGKILL of the daemon during origin writes: the restarted daemon serves a second
#     snapshot unchanged and its store's records hold the old chunks;
#   - lvconvert --merge of the first snapshot: the origin (every leg) reads as the
#     snapshot did, the other snapshot keeps its contents; LVM2 reads the VG;
#   - a raid5 origin (3 legs) with a snapshot: origin writes copied, the snapshot reads
#     the old data.
# The sections shared with t1089 (mirror origins): tests/tools/uspace-origin-snap.sh.
# The daemon is private to the test.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"
source "$LVX_ROOT/tests/tools/uspace-snap.sh"

VG=vgurs$$
need_cmd fio
uspace_test_loops "$VG" 3 96M
DEV=$DM_DEV_DIR/$VG
MIB=1048576
source "$LVX_ROOT/tests/tools/raid-pvread.sh"

source "$LVX_ROOT/tests/tools/uspace-origin-snap.sh"
OSNAP_LEGS=(r1_rimage_0 r1_rimage_1)
origin_synced() { wait_synced r1; }

osnap_patterns

uspace_run_ok "vgcreate" lvx vgcreate "$VG" "${DEVS[@]}"
uspace_run_ok "lvcreate --type raid1 -m1 -L 16m r1" \
    lvx lvcreate -Zn --type raid1 -m1 -L 16m -n r1 "$VG" "${DEVS[0]}" "${DEVS[1]}"
test_ok "r1 in sync" wait_synced r1
uspace_run_ok "pattern A written to r1" dd if="$SCRATCH/A" of="$DEV/r1" bs=1M oflag=direct status=none

# ---------------------------------------------------------------- a live snapshot
osnap_live r1 raid1 sync_percent
R=$(sum_of r1)
uspace_run_ok "the set deactivated" lvx lvchange -an "$VG/r1"
test_fail "s1 is not served any more" test -b "$DEV/s1"
for i in 0 1; do
    report r1_rmeta_$i
    test_eq "r1_rmeta_$i: stopped clean (no dirty bit, bitmap cleared)" \
        "$(sb_field r1_rmeta_$i dirty) $(sb_field r1_rmeta_$i bm_cleared)" "0 $(sb_field r1_rmeta_$i events)"
done
legs_hold "after the stop" "$R"
uspace_run_ok "the set activated again" lvx lvchange -ay "$VG/r1"
test_eq "after reactivation: s1 the same" "$(sum_of s1)" "$S1"
test_eq "after reactivation: r1 the same" "$(sum_of r1)" "$R"

# ---------------------------------------------------------------- SIGKILL
osnap_kill r1
R=$(sum_of r1)
report r1_rimage_0
report r1_rimage_1
test_eq "after the crash's resync: both legs hold the same bytes" \
    "$(pv_sum r1_rimage_1 0 $((16 * MIB)))" "$(pv_sum r1_rimage_0 0 $((16 * MIB)))"

# ---------------------------------------------------------------- merge
osnap_merge r1
test_eq "LVM2 reads the VG: r1 (raid1), s2 a snapshot of r1" \
    "$(lvm2 lvs --noheadings -o lv_name,segtype,origin "$VG/r1" "$VG/s2" 2>/dev/null | xargs)" \
    "r1 raid1 s2 linear r1"
test_eq "LVM2: s2's lv_attr is a snapshot's" \
    "$(lvm2 lvs --noheadings -o lv_attr "$VG/s2" 2>/dev/null | tr -d ' ' | cut -c1)" "s"
uspace_run_ok "LVM2's vgck" lvm2 vgck "$VG"
uspace_run_ok "lvremove s2" lvx lvremove -f "$VG/s2"

# ---------------------------------------------------------------- raid5
uspace_run_ok "lvcreate --type raid5 -i2 -L 16m r5" lvx lvcreate -Zn --type raid5 -i2 -L 16m -n r5 "$VG"
test_ok "r5 in sync" wait_synced r5
uspace_run_ok "pattern A written to r5" dd if="$SCRATCH/A" of="$DEV/r5" bs=1M oflag=direct status=none
uspace_run_ok "lvcreate -s -L 20m -n s5 of the active raid5" lvx lvcreate -s -L 20m -n s5 "$VG/r5"
uspace_run_ok "pattern B written over r5" dd if="$SCRATCH/B" of="$DEV/r5" bs=1M oflag=direct status=none
test_eq "r5 reads B" "$(sum_of r5)" "$B"
test_eq "s5 reads A" "$(sum_of s5)" "$A"
uspace_run_ok "the set deactivated and activated again" \
    sh -c "'$LVX' lvchange -an '$VG/r5' && '$LVX' lvchange -ay '$VG/r5'"
test_eq "after reactivation: r5 reads B" "$(sum_of r5)" "$B"
test_eq "after reactivation: s5 reads A" "$(sum_of s5)" "$A"

uspace_run_ok "vgremove -f" lvx vgremove -f "$VG"
test_eq "no loop device over the daemon's files" \
    "$(losetup -a 2>/dev/null | grep -cF "$LVX_RUN_DIR/vol/")" 0
done_testing
