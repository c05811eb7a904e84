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

sum_of() { dd if="$DEV/$1" bs=1M iflag=direct status=none | sha256sum | cut -d' ' -f1; }
legs_hold() {  # legs_hold DESC SUM: both rimages of r1 hold 16 MiB with that sum
    report r1_rimage_0
    report r1_rimage_1
    test_eq "$1: r1_rimage_0 (read from its PV)" "$(pv_sum r1_rimage_0 0 $((16 * MIB)))" "$2"
    test_eq "$1: r1_rimage_1 (read from its PV)" "$(pv_sum r1_rimage_1 0 $((16 * MIB)))" "$2"
}
cow_get() {  # cow_get LV OUT: the COW LV's bytes from the PVs
    report "$1"
    local size
    size=$(lvm2 lvs --noheadings --units b --nosuffix -o lv_size "$VG/$1" 2>/dev/null | tr -d ' ')
    pv_get "$1" 0 "$size" "$2"
}

head -c $((16 * MIB)) /dev/urandom >"$SCRATCH/A"
head -c $((16 * MIB)) /dev/urandom >"$SCRATCH/B"
head -c $MIB /dev/urandom >"$SCRATCH/C"
A=$(fsum "$SCRATCH/A")
B=$(fsum "$SCRATCH/B")

uspace_run_ok "vgcreate" lvx vgcreate "$VG" "${DEVS[@]}"
uspace_run_ok "lvcreate --type raid1 -m1 -L 16m r1" \
    lvx lvcreate -Zn --type raid1 -m1 -L 16m -n r1 "$VG" "${DEVS[0]}" "${DEVS[1]}"
test_ok "r1 in sync" wait_synced r1
uspace_run_ok "pattern A written to r1" dd if="$SCRATCH/A" of="$DEV/r1" bs=1M oflag=direct status=none

# ---------------------------------------------------------------- a live snapshot
uspace_run_ok "lvcreate -s -L 20m -n s1 of the active raid1 r1" lvx lvcreate -s -L 20m -n s1 "$VG/r1"
test_ok "s1 is served" test -b "$DEV/s1"
test_eq "s1 reads pattern A" "$(sum_of s1)" "$A"
uspace_run_ok "pattern B written over r1" dd if="$SCRATCH/B" of="$DEV/r1" bs=1M oflag=direct status=none
test_eq "r1 reads pattern B" "$(sum_of r1)" "$B"
test_eq "s1 still reads pattern A" "$(sum_of s1)" "$A"
legs_hold "origin writes go to every leg" "$B"
pct=$(field s1 snap_percent)
test_ok "s1: snap_percent grew ($pct)" "$PYTHON" -c "import sys; sys.exit(not 60 < float('$pct') < 100)"
test_eq "r1: sync_percent through the snapshot-origin (its RAID state)" "$(field r1 sync_percent)" "100.00"
test_eq "r1: lv_attr origin of a raid1 (o), active" "$(field r1 lv_attr | cut -c1,5)" "oa"

cp "$SCRATCH/A" "$SCRATCH/S1"
uspace_run_ok "1 MiB of C written to s1 at 5 MiB" \
    dd if="$SCRATCH/C" of="$DEV/s1" bs=1M seek=5 oflag=direct status=none
dd if="$SCRATCH/C" of="$SCRATCH/S1" bs=1M seek=5 conv=notrunc status=none
S1=$(fsum "$SCRATCH/S1")
test_eq "s1 reads A with that write" "$(sum_of s1)" "$S1"
test_eq "r1 still reads B" "$(sum_of r1)" "$B"
lv_get r1 "$SCRATCH/r1.now"
lv_get s1 "$SCRATCH/s1.now"
cow_get s1 "$SCRATCH/cow.bin"
uspace_run_ok "s1's store parses; read as the kernel does it equals what the daemon serves" \
    "$PYTHON" "$COWCHECK" "$SCRATCH/cow.bin" - "$SCRATCH/r1.now" "$SCRATCH/s1.now"

uspace_run_ok "fio --verify=crc32c of random 4k writes over r1" \
    fio --name=v --filename="$DEV/r1" --rw=randwrite --bs=4k --size=16m --direct=1 \
    --ioengine=psync --verify=crc32c --verify_fatal=1 --randrepeat=0 --output="$SCRATCH/fio.out"
test_eq "s1 unchanged by fio" "$(sum_of s1)" "$S1"
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
uspace_run_ok "lvcreate -s -L 20m -n s2 (live)" lvx lvcreate -s -L 20m -n s2 "$VG/r1"
lv_get r1 "$SCRATCH/before2"
kill_during_copies s2 1 fio --name=k --filename="$DEV/r1" --rw=randwrite --bs=64k --size=16m \
    --direct=1 --ioengine=libaio --iodepth=8 --time_based --runtime=30
test_eq "after SIGKILL: s2 reads r1 as it was when s2 was taken" "$(sum_of s2)" "$(fsum "$SCRATCH/before2")"
test_eq "after SIGKILL: s1 unchanged" "$(sum_of s1)" "$S1"
cow_get s2 "$SCRATCH/cow2.bin"
uspace_run_ok "after SIGKILL: s2's store parses, every record holds the old origin chunk" \
    "$PYTHON" "$COWCHECK" "$SCRATCH/cow2.bin" "$SCRATCH/before2"
test_ok "r1 in sync again after the crash (dirty regions resynced)" wait_synced r1
R=$(sum_of r1)
report r1_rimage_0
report r1_rimage_1
test_eq "after the crash's resync: both legs hold the same bytes" \
    "$(pv_sum r1_rimage_1 0 $((16 * MIB)))" "$(pv_sum r1_rimage_0 0 $((16 * MIB)))"

# ---------------------------------------------------------------- merge
uspace_run_ok "lvconvert --merge of s1 (origin active, not open)" lvx lvconvert --merge -i 1 "$VG/s1"
test_eq "s1 is gone after the merge" "$(lvx lvs --noheadings -o lv_name "$VG" 2>/dev/null | xargs)" "r1 s2"
test_eq "r1 reads as s1 did" "$(sum_of r1)" "$S1"
test_eq "s2 keeps its contents through the merge" "$(sum_of s2)" "$(fsum "$SCRATCH/before2")"
uspace_run_ok "the set deactivated" lvx lvchange -an "$VG/r1"
legs_hold "merged into every leg" "$S1"
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
