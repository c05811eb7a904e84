#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1090-user-raid-origin-images: lvconvert -m N of a raid1 LV that is the origin of COW
# snapshots, served by the lvx daemon (the `user` backend), as LVM2 allows it: the
# origin's file is reloaded with the new image count under its snapshot-origin target
# (daemon/target_snapshot.c's `inner` RAID target), the snapshots stay served.
#   - lvconvert -y -m2 of the active raid1 origin onto a third PV: the new image is
#     rebuilt (--maxrecoveryrate 8m; the daemon SIGKILLed once the new rmeta records
#     the rebuild under way, restarted by the next command, the rebuild resumed there
#     and finished), all three rimages hold the origin's data (read from their
#     PVs), the snapshot keeps the old data; fio --verify=crc32c over the origin with
#     three legs, the snapshot unchanged; the rmetas stopped clean;
#   - lvconvert -y -m1 VG/LV PV: the image on that PV leaves under the snapshot;
#   - LVM2 reads the VG: the origin raid1 with the images left, the snapshot's origin
#     (vgck).
# The daemon is private to the test.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"
source "$LVX_ROOT/tests/tools/uspace-snap.sh"

VG=vguro$$
need_cmd fio
uspace_test_loops "$VG" 4 96M
DEV=$DM_DEV_DIR/$VG
MIB=1048576
SZ=48
source "$LVX_ROOT/tests/tools/raid-pvread.sh"

source "$LVX_ROOT/tests/tools/uspace-origin-snap.sh"    # sum_of
images_hold() {  # images_hold DESC SUM LEGS...: those rimages of r1 hold the LV with that sum
    local desc=$1 sum=$2 i
    shift 2
    for i in "$@"; do
        report "r1_rimage_$i"
        test_eq "$desc: r1_rimage_$i (read from its PV)" "$(pv_sum "r1_rimage_$i" 0 $((SZ * MIB)))" "$sum"
    done
}
where() { lvm2 lvs -a --noheadings -o devices "$VG/$1" 2>/dev/null | tr -d ' ' | sed 's/(.*//'; }

head -c $((SZ * MIB)) /dev/urandom >"$SCRATCH/A"
head -c $((SZ * MIB)) /dev/urandom >"$SCRATCH/B"
A=$(fsum "$SCRATCH/A")
B=$(fsum "$SCRATCH/B")

uspace_run_ok "vgcreate" lvx vgcreate "$VG" "${DEVS[@]}"
uspace_run_ok "lvcreate --type raid1 -m1 -L ${SZ}m --maxrecoveryrate 8m r1 on the first two PVs" \
    lvx lvcreate -Zn --type raid1 -m1 -L "${SZ}m" --maxrecoveryrate 8m -n r1 "$VG" \
    "${DEVS[0]}" "${DEVS[1]}"
test_ok "r1 in sync" wait_synced r1
uspace_run_ok "pattern A written to r1" dd if="$SCRATCH/A" of="$DEV/r1" bs=1M oflag=direct status=none
uspace_run_ok "lvcreate -s -L 52m -n s1 of r1 on the fourth PV" \
    lvx lvcreate -s -L 52m -n s1 "$VG/r1" "${DEVS[3]}"
uspace_run_ok "pattern B written over r1" dd if="$SCRATCH/B" of="$DEV/r1" bs=1M oflag=direct status=none
test_eq "s1 reads pattern A" "$(sum_of s1)" "$A"

# ---------------------------------------------------------------- -m2
before=$(lvm2 vgs --noheadings -o seqno "$VG" 2>/dev/null | tr -d ' ')
uspace_run_ok "lvconvert -y -m2 of the raid1 origin r1 onto ${DEVS[2]} (snapshot s1 active)" \
    lvx lvconvert -y -m2 "$VG/r1" "${DEVS[2]}"
report r1_rmeta_2
off=$(sb_wait_past r1_rmeta_2 recovery 2048)   # the rebuild recorded past 1 MiB
pids=$(uspace_daemon_pids)
# shellcheck disable=SC2086
kill -9 $pids 2>/dev/null
test_ok "daemon SIGKILLed during the rebuild of the new image (${pids:-none})" test -n "$pids"
off=$(sb_field r1_rmeta_2 recovery)
test_ok "r1_rmeta_2 records the rebuild under way at the kill (offset 0x$off of $((SZ * 2048)) sectors)" \
    test "$((16#$off))" -gt 0 -a "$((16#$off))" -lt $((SZ * 2048))
test_eq "the conversion committed: 3 images, the new one on ${DEVS[2]}" \
    "$(lvm2 lvs --noheadings -o stripes "$VG/r1" 2>/dev/null | tr -d ' ') $(where r1_rimage_2)" "3 ${DEVS[2]}"
test_ok "the metadata moved on from seqno $before" \
    test "$(lvm2 vgs --noheadings -o seqno "$VG" 2>/dev/null | tr -d ' ')" -gt "$before"
uspace_run_ok "the next lvx command restarts the daemon" lvx lvs "$VG"
for _ in $(seq 50); do test -b "$DEV/s1" && break; sleep 0.2; done
test_ok "r1 in sync after the restart (rebuild finished)" wait_synced r1
test_ok "the restarted daemon resumed the rebuild of leg 2 under the snapshot-origin" \
    grep -q "recovery of RAID leg 2 resumed at sector" "$LVX_RUN_DIR/lvxd.log"
test_eq "r1 reads pattern B" "$(sum_of r1)" "$B"
test_eq "s1 still reads pattern A" "$(sum_of s1)" "$A"
test_eq "r1: lv_attr origin (o), active; 3 images" \
    "$(field r1 lv_attr | cut -c1,5) $(lvx lvs --noheadings -o stripes "$VG/r1" 2>/dev/null | tr -d ' ')" "oa 3"
images_hold "after the rebuild" "$B" 0 1 2

uspace_run_ok "fio --verify=crc32c of random 4k writes over r1 (three legs)" \
    fio --name=v --filename="$DEV/r1" --rw=randwrite --bs=4k --size="${SZ}m" --direct=1 \
    --ioengine=psync --verify=crc32c --verify_fatal=1 --randrepeat=0 --output="$SCRATCH/fio.out"
test_eq "s1 unchanged by fio" "$(sum_of s1)" "$A"
R=$(sum_of r1)
uspace_run_ok "the set deactivated" lvx lvchange -an "$VG/r1"
for i in 0 1 2; do
    report "r1_rmeta_$i"
    test_eq "r1_rmeta_$i: stopped clean (no dirty bit, bitmap cleared)" \
        "$(sb_field "r1_rmeta_$i" dirty) $(sb_field "r1_rmeta_$i" bm_cleared)" "0 $(sb_field "r1_rmeta_$i" events)"
done
images_hold "after the stop" "$R" 0 1 2
uspace_run_ok "the set activated again" lvx lvchange -ay "$VG/r1"
test_eq "after reactivation: s1 reads A, r1 the same" "$(sum_of s1) $(sum_of r1)" "$A $R"

# ---------------------------------------------------------------- -m1 PV
uspace_run_ok "lvconvert -y -m1 r1 ${DEVS[1]} (the image there leaves, s1 active)" \
    lvx lvconvert -y -m1 "$VG/r1" "${DEVS[1]}"
test_eq "r1 has 2 images, none on ${DEVS[1]}" \
    "$(lvm2 lvs --noheadings -o stripes "$VG/r1" 2>/dev/null | tr -d ' ') $(lvm2 lvs -a --noheadings -o devices "$VG" 2>/dev/null | grep -cF "${DEVS[1]}(")" "2 0"
test_eq "after -m1: r1 the same, s1 reads A" "$(sum_of r1) $(sum_of s1)" "$R $A"
uspace_run_ok "pattern A written over r1 (copied out: s1 keeps A)" \
    dd if="$SCRATCH/A" of="$DEV/r1" bs=1M oflag=direct status=none
test_eq "s1 still reads A" "$(sum_of s1)" "$A"
uspace_run_ok "the set deactivated" lvx lvchange -an "$VG/r1"
images_hold "after -m1 and a rewrite" "$A" 0 1
test_eq "LVM2 reads the VG: r1 (raid1, 2 images), s1 a snapshot of r1" \
    "$(lvm2 lvs --noheadings -o lv_name,segtype,stripes,origin "$VG/r1" "$VG/s1" 2>/dev/null | xargs)" \
    "r1 raid1 2 s1 linear 1 r1"
uspace_run_ok "LVM2's vgck" lvm2 vgck "$VG"

uspace_run_ok "vgremove -f" lvx vgremove -f "$VG"
test_eq "no loop device over the daemon's files" \
    "$(losetup -a 2>/dev/null | grep -cF "$LVX_RUN_DIR/vol/")" 0
done_testing
