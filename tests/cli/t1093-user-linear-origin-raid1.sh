#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1093-user-linear-origin-raid1: lvconvert -m1 of a linear LV that is the origin of COW
# snapshots, served by the lvx daemon (the `user` backend), as LVM2 allows it (in dm the
# origin's -real layer becomes raid1): the origin's file is reloaded with the raid1
# target inner to its snapshot-origin target (daemon/target_snapshot.c), the snapshot
# stays served and from then on reads the origin through the origin's file.
#   - a linear origin holding B with s1 (A, and a write of its own): lvconvert -y -m1 VG/o
#     PV onto a second PV; writes to that PV slowed in the first daemon
#     (LVX_TEST_DP_FAULT delay) so the copy to the new image is seen running (the
#     daemon makes the new set's first resync, from rimage_0); the daemon SIGKILLed
#     once rmeta_0's bitmap records regions copied and regions left; the next command
#     restarts it, the copy resumes there and ends; rimage_0 is the old linear extents
#     (not moved), both rimages hold the origin's data read from their PVs; s1
#     unchanged, its store parses and, read as the kernel reads it, equals what the
#     daemon serves;
#   - fio --verify=crc32c over the raid1 origin, s1 unchanged; the set deactivated: the
#     rmetas stopped clean, both legs hold the origin; reactivated the same;
#   - SIGKILL during copies for a second snapshot s2 (tests/tools/uspace-origin-snap.sh
#     osnap_kill), lvconvert --merge of s1 into the raid1 origin (both legs hold s1's
#     data, s2 kept); LVM2 reads the VG (lvs, vgck);
#   - -m0 of the raid1 origin with s2 active (linear again, s2 kept, a write copied
#     out), then --type raid1 -m1 of it (raid1 again, the new leg rebuilt); LVM2's lvs,
#     vgck;
#   - -m1 of an inactive linear origin: LVM2's refusal (exit, last line), nothing
#     written.
# The checks shared with t1083/t1089: tests/tools/uspace-origin-snap.sh.
# The daemon is private to the test.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"
source "$LVX_ROOT/tests/tools/uspace-snap.sh"

VG=vgulo$$
need_cmd fio
uspace_test_loops "$VG" 4 96M
DEV=$DM_DEV_DIR/$VG
MIB=1048576
source "$LVX_ROOT/tests/tools/raid-pvread.sh"

source "$LVX_ROOT/tests/tools/uspace-origin-snap.sh"
OSNAP_LEGS=(o_rimage_0 o_rimage_1)
origin_synced() { wait_synced o; }
where() { lvm2 lvs -a --noheadings -o devices "$VG/$1" 2>/dev/null | tr -d ' '; }
seqno() { lvm2 vgs --noheadings -o seqno "$VG" 2>/dev/null | tr -d ' '; }
SLOW="pv=${DEVS[1]},op=write,kind=delay=600"

osnap_patterns

uspace_run_ok "vgcreate" lvx vgcreate "$VG" "${DEVS[@]}"
# the daemon this command starts slows writes to the second PV (the new image's)
uspace_run_ok "lvcreate -L 16m o (linear) on the first PV" \
    env LVX_TEST_DP_FAULT="$SLOW" "$LVX" lvcreate -Zn -L 16m -n o "$VG" "${DEVS[0]}"
uspace_run_ok "pattern A written to o" dd if="$SCRATCH/A" of="$DEV/o" bs=1M oflag=direct status=none
uspace_run_ok "lvcreate -s -L 20m -n s1 of the active linear o" \
    lvx lvcreate -s -L 20m -n s1 "$VG/o" "${DEVS[3]}"
uspace_run_ok "pattern B written over o" dd if="$SCRATCH/B" of="$DEV/o" bs=1M oflag=direct status=none
osnap_s1_write
test_eq "before: o reads B, s1 A with its write" "$(sum_of o) $(sum_of s1)" "$B $S1"
linear_at=$(where o)

# ---------------------------------------------------------------- -m1
before=$(seqno)
lvx lvconvert -y -m1 "$VG/o" "${DEVS[1]}" >"$SCRATCH/conv.out" 2>&1
test_eq "lvconvert -y -m1 of the linear origin o (s1 active): exit 0" "$?" 0
test_ok "it prints LVM2's line" grep -qx "  Logical volume $VG/o successfully converted." "$SCRATCH/conv.out"
pct=$(field o sync_percent)
test_ok "the new image is being copied (sync_percent $pct)" \
    "$PYTHON" -c "import sys; sys.exit(not float('${pct:-100}') < 100)"
# the daemon copies the new image as dm-raid does for LVM2's "rebuild 1" (the linear LV
# is image 0, in sync): a recovery of leg 1, its progress in o_rmeta_1's recovery offset
report o_rmeta_0
report o_rmeta_1
for _ in $(seq 100); do
    rec=$(sb_field o_rmeta_1 recovery)
    [[ $rec != 0 && $rec != ffffffffffffffff ]] && break
    sleep 0.1
done
pids=$(uspace_daemon_pids)
# shellcheck disable=SC2086
kill -9 $pids 2>/dev/null
test_ok "daemon SIGKILLed during the copy to the new image (${pids:-none})" test -n "$pids"
rec=$(sb_field o_rmeta_1 recovery)
test_ok "o_rmeta_1 records the recovery under way at the kill (offset $rec), o_rmeta_0 in sync" \
    test "$rec" != 0 -a "$rec" != ffffffffffffffff -a "$(sb_field o_rmeta_0 resync)" = ffffffffffffffff
test_eq "the conversion committed: raid1 of 2 images, the new one on ${DEVS[1]}, rimage_0 the old extents" \
    "$(lvm2 lvs --noheadings -o segtype,stripes "$VG/o" 2>/dev/null | xargs) $(where o_rimage_1 | sed 's/(.*//') $(where o_rimage_0)" \
    "raid1 2 ${DEVS[1]} $linear_at"
test_ok "the metadata moved on from seqno $before" test "$(seqno)" -gt "$before"
uspace_run_ok "the next lvx command restarts the daemon" lvx lvs "$VG"
for _ in $(seq 50); do test -b "$DEV/s1" && break; sleep 0.2; done
test_ok "o in sync after the restart (rebuild finished)" wait_synced o
test_ok "the restarted daemon resumed the copy where it was (not from sector 0)" \
    grep -q "o: recovery of RAID leg 1 resumed at sector" "$LVX_RUN_DIR/lvxd.log"
test_eq "o reads B, s1 its data" "$(sum_of o) $(sum_of s1)" "$B $S1"
test_eq "o: lv_attr an active origin (o, a), o_rimage_1 an image (i)" \
    "$(field o lv_attr | cut -c1,5) $(lvx lvs -a --noheadings -o lv_attr "$VG/o_rimage_1" 2>/dev/null | tr -d ' ' | cut -c1)" "oa i"
legs_hold "after the rebuild" "$B"
osnap_store o

# ---------------------------------------------------------------- raid1 origin at work
osnap_fio o
R=$(sum_of o)
uspace_run_ok "the set deactivated" lvx lvchange -an "$VG/o"
for i in 0 1; do
    report "o_rmeta_$i"
    test_eq "o_rmeta_$i: stopped clean (no dirty bit, bitmap cleared)" \
        "$(sb_field "o_rmeta_$i" dirty) $(sb_field "o_rmeta_$i" bm_cleared)" "0 $(sb_field "o_rmeta_$i" events)"
done
legs_hold "after the stop" "$R"
uspace_run_ok "the set activated again" lvx lvchange -ay "$VG/o"
test_eq "after reactivation: o the same, s1 the same" "$(sum_of o) $(sum_of s1)" "$R $S1"

osnap_kill o
osnap_merge o
test_eq "LVM2 reads the VG: o (raid1, 2 images), s2 a snapshot of o" \
    "$(lvm2 lvs --noheadings -o lv_name,segtype,stripes,origin "$VG/o" "$VG/s2" 2>/dev/null | xargs)" \
    "o raid1 2 s2 linear 1 o"
uspace_run_ok "LVM2's vgck" lvm2 vgck "$VG"

# ---------------------------------------------------------------- -m0, --type raid1 -m1
uspace_run_ok "the set activated again" lvx lvchange -ay "$VG/o"
S2=$(sum_of s2)
uspace_run_ok "lvconvert -y -m0 of the raid1 origin o (s2 active)" lvx lvconvert -y -m0 "$VG/o"
test_eq "o is linear again on rimage_0's extents, no sub-LV left" \
    "$(lvm2 lvs --noheadings -o segtype "$VG/o" 2>/dev/null | xargs) $(where o) $(lvm2 lvs -a --noheadings -o lv_name "$VG" 2>/dev/null | grep -c _r)" \
    "linear $linear_at 0"
test_eq "after -m0: o reads s1's merged data, s2 its own" "$(sum_of o) $(sum_of s2)" "$S1 $S2"
uspace_run_ok "pattern A written over o (copied out for s2)" \
    dd if="$SCRATCH/A" of="$DEV/o" bs=1M oflag=direct status=none
test_eq "o reads A, s2 unchanged" "$(sum_of o) $(sum_of s2)" "$A $S2"
uspace_run_ok "lvconvert -y --type raid1 -m1 of the linear origin o onto ${DEVS[2]} (s2 active)" \
    lvx lvconvert -y --type raid1 -m1 "$VG/o" "${DEVS[2]}"
test_ok "o in sync" wait_synced o
test_eq "o reads A, s2 unchanged" "$(sum_of o) $(sum_of s2)" "$A $S2"
uspace_run_ok "the set deactivated" lvx lvchange -an "$VG/o"
legs_hold "after --type raid1 -m1" "$A"
test_eq "LVM2 reads the VG: o raid1 of 2 images, the new one on ${DEVS[2]}, s2 a snapshot of o" \
    "$(lvm2 lvs --noheadings -o lv_name,segtype,stripes,origin "$VG/o" "$VG/s2" 2>/dev/null | xargs) $(where o_rimage_1 | sed 's/(.*//')" \
    "o raid1 2 s2 linear 1 o ${DEVS[2]}"
uspace_run_ok "LVM2's vgck" lvm2 vgck "$VG"

# ---------------------------------------------------------------- inactive
uspace_run_ok "a linear l with a snapshot ls, deactivated" sh -c \
    "$LVX lvcreate -Zn -L 4m -n l $VG ${DEVS[2]} && $LVX lvcreate -s -L 4m -n ls $VG/l && $LVX lvchange -an $VG/l"
before=$(seqno)
both lvconvert -y -m1 "$VG/l"
test_eq "lvconvert -m1 of the inactive linear origin l: LVM2's exit and last line" \
    "$(cat "$SCRATCH/x.rc") $(tail -n1 "$SCRATCH/x.err")" "$(cat "$SCRATCH/l.rc") $(tail -n1 "$SCRATCH/l.err")"
test_eq "nothing written (seqno $before), l still linear" "$(seqno) $(lvm2 lvs --noheadings -o segtype "$VG/l" 2>/dev/null | xargs)" "$before linear"

uspace_run_ok "vgremove -f" lvx vgremove -f "$VG"
test_eq "no loop device over the daemon's files" \
    "$(losetup -a 2>/dev/null | grep -cF "$LVX_RUN_DIR/vol/")" 0
done_testing
