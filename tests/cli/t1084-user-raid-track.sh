#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1084-user-raid-track: `lvconvert --splitmirrors 1 --trackchanges` of a raid1 LV and
# `lvconvert --merge VG/LV_rimage_N` back, in the `user` backend (the daemon serves the
# raid1 without the tracked image, as dm-raid's "- -" slot, and the image as a read-only
# LV of its own):
#   - LVM2's lines and exit 0; the image visible and read-only (lvx's and LVM2's
#     reports), served as $DEV/r1_rimage_1: it reads the data as it was at the split
#     while the raid1 takes new writes, which reach leg 0 only (read from the PVs);
#     writes to the image fail;
#   - vgchange -an/-ay and a SIGKILL of the daemon while tracking: the image and the
#     raid1 served again as they were;
#   - another split while tracking: refused as LVM2 2.03.16 does;
#   - the merge: the image hidden again, the raid1 resyncs the regions its bitmap
#     recorded meanwhile, only those (as md's re-add: bytes planted on the image's PV
#     elsewhere stay), leg 1 holds the new data (read from the PVs); fio --verify over
#     the raid1 after a reactivation; LVM2's vgck passes.
# The daemon is private to the test.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

VG=vgurt$$
need_cmd fio
uspace_test_loops "$VG" 2 64M
DEV=$DM_DEV_DIR/$VG
MIB=1048576
source "$LVX_ROOT/tests/tools/raid-pvread.sh"

sum_of() { dd if="$DEV/$1" bs=1M iflag=direct status=none | sha256sum | cut -d' ' -f1; }
seqno() { lvm2 vgs --noheadings -o vg_seqno "$VG" 2>/dev/null | tr -d ' '; }
leg_sum() { report "r1_rimage_$1"; pv_sum "r1_rimage_$1" 0 $((16 * MIB)); }

head -c $((16 * MIB)) /dev/urandom >"$SCRATCH/A"
head -c $((4 * MIB)) /dev/urandom >"$SCRATCH/B"
cp "$SCRATCH/A" "$SCRATCH/AB"
dd if="$SCRATCH/B" of="$SCRATCH/AB" bs=1M seek=6 conv=notrunc status=none
A=$(fsum "$SCRATCH/A")
AB=$(fsum "$SCRATCH/AB")

uspace_run_ok "vgcreate" lvx vgcreate "$VG" "${DEVS[@]}"
uspace_run_ok "lvcreate --type raid1 -m1 -L 16m r1" \
    lvx lvcreate -Zn --type raid1 -m1 -L 16m -n r1 "$VG" "${DEVS[0]}" "${DEVS[1]}"
test_ok "r1 in sync" wait_synced r1
uspace_run_ok "pattern A written to r1" dd if="$SCRATCH/A" of="$DEV/r1" bs=1M oflag=direct status=none

# ---------------------------------------------------------------- split, tracked
rc=0
lvx lvconvert -y --splitmirrors 1 --trackchanges "$VG/r1" >"$SCRATCH/o" 2>&1 || rc=$?
test_eq "lvconvert --splitmirrors 1 --trackchanges: exit 0, LVM2's lines" \
    "$rc $(sed 's/^ *//' "$SCRATCH/o" | grep -v '^WARNING: ' | tr '\n' ' ')" \
    "0 $VG/r1_rimage_1 split from $VG/r1 for read-only purposes. Use 'lvconvert --merge $VG/r1_rimage_1' to merge back into $VG/r1. "
test_ok "the image is served: $DEV/r1_rimage_1" test -b "$DEV/r1_rimage_1"
test_eq "LVM2: the image is visible and read-only" \
    "$(lvm2 lvs --noheadings -o lv_attr "$VG/r1_rimage_1" 2>/dev/null | tr -d ' ' | cut -c2)" "r"
test_eq "the image reads pattern A" "$(sum_of r1_rimage_1)" "$A"
uspace_run_ok "4 MiB of B written to r1 at 6 MiB" \
    dd if="$SCRATCH/B" of="$DEV/r1" bs=1M seek=6 oflag=direct conv=fsync status=none
test_eq "r1 reads A with B" "$(sum_of r1)" "$AB"
test_eq "the image still reads pattern A" "$(sum_of r1_rimage_1)" "$A"
test_eq "leg 0 holds the new data (read from its PV)" "$(leg_sum 0)" "$AB"
test_eq "leg 1 does not (read from its PV)" "$(leg_sum 1)" "$A"
test_fail "a write to the image fails" \
    dd if="$SCRATCH/B" of="$DEV/r1_rimage_1" bs=1M count=1 oflag=direct status=none
rc=0; before=$(seqno)
lvx lvconvert -y --splitmirrors 1 --trackchanges "$VG/r1" >"$SCRATCH/o" 2>&1 || rc=$?
test_eq "a second --trackchanges: refused, exit 5, nothing written" \
    "$rc $(sed 's/^ *//' "$SCRATCH/o") $(seqno)" \
    "5 Conversion of tracking raid1 LV $VG/r1 is not supported. $before"

# ------------------------------------------------- deactivation, SIGKILL while tracking
uspace_run_ok "vgchange -an, vgchange -ay while tracking" \
    sh -c "'$LVX' vgchange -an '$VG' && '$LVX' vgchange -ay '$VG'"
test_eq "... the image served again, reading A" "$(sum_of r1_rimage_1)" "$A"
test_eq "... r1 reads A with B" "$(sum_of r1)" "$AB"
head -c $((2 * MIB)) /dev/urandom >"$SCRATCH/K"
dd if="$SCRATCH/K" of="$SCRATCH/AB" bs=1M seek=2 conv=notrunc status=none
AB=$(fsum "$SCRATCH/AB")
uspace_run_ok "2 MiB of K written to r1 at 2 MiB" \
    dd if="$SCRATCH/K" of="$DEV/r1" bs=1M seek=2 oflag=direct conv=fsync status=none
uspace_kill_daemon
test_eq "daemon killed (SIGKILL) while tracking" "$(uspace_daemon_pids)" ""
uspace_run_ok "the next lvx command restarts the daemon" lvx lvs "$VG"
for _ in $(seq 50); do test -b "$DEV/r1_rimage_1" && break; sleep 0.2; done
test_eq "after the restart: the image still reads A" "$(sum_of r1_rimage_1)" "$A"
test_eq "after the restart: r1 reads the writes" "$(sum_of r1)" "$AB"

# ---------------------------------------------------------------- merge
report r1_rimage_1
pv_plant r1_rimage_1 $((14 * MIB))
rc=0
lvx lvconvert --merge "$VG/r1_rimage_1" >"$SCRATCH/o" 2>&1 || rc=$?
test_eq "lvconvert --merge of the image: exit 0, LVM2's line" \
    "$rc $(sed 's/^ *//' "$SCRATCH/o" | grep -v '^WARNING: ')" "0 $VG/r1_rimage_1 successfully merged back into $VG/r1."
test_fail "the image is not served any more" test -b "$DEV/r1_rimage_1"
test_ok "r1 in sync again" wait_synced r1
# the 4 KiB planted on leg 1 differ between the legs on purpose (the bitmap does not
# name their region): a read there may come from either leg, so they are left out
test_eq "r1 reads A with B (but the planted 4 KiB)" \
    "$(lv_sum "$DEV/r1" 0 $((14 * MIB))) $(lv_sum "$DEV/r1" $((14 * MIB + 4096)) $((2 * MIB - 4096)))" \
    "$(lv_sum "$SCRATCH/AB" 0 $((14 * MIB))) $(lv_sum "$SCRATCH/AB" $((14 * MIB + 4096)) $((2 * MIB - 4096)))"
uspace_run_ok "r1 deactivated" lvx lvchange -an "$VG/r1"
test_eq "leg 0 holds the data" "$(leg_sum 0)" "$AB"
test_eq "leg 1 holds the new data again (resynced)" \
    "$(pv_sum r1_rimage_1 $((6 * MIB)) $((4 * MIB)))" "$(fsum "$SCRATCH/B")"
test_eq "... and the writes before the SIGKILL" \
    "$(pv_sum r1_rimage_1 $((2 * MIB)) $((2 * MIB)))" "$(fsum "$SCRATCH/K")"
test_ok "the daemon resynced leg 1 by the bitmap" \
    grep -q "only the regions of the bitmap are rebuilt" "$LVX_RUN_DIR/lvxd.log"
test_ok "... only its regions: 4 KiB planted on leg 1's PV in a region not written meanwhile stay" \
    test "$(pv_sum r1_rimage_1 $((14 * MIB)) 4096)" != "$(pv_sum r1_rimage_0 $((14 * MIB)) 4096)"
test_eq "LVM2: the image hidden again (lvs lists r1 alone)" \
    "$(lvm2 lvs --noheadings -o lv_name "$VG" 2>/dev/null | xargs)" "r1"
test_eq "LVM2: the image writable again, as rimage_0" \
    "$(lvm2 lvs -a --noheadings -o lv_attr "$VG/r1_rimage_1" 2>/dev/null | tr -d ' ')" \
    "$(lvm2 lvs -a --noheadings -o lv_attr "$VG/r1_rimage_0" 2>/dev/null | tr -d ' ')"
uspace_run_ok "LVM2's vgck" lvm2 vgck "$VG"
uspace_run_ok "r1 activated again" lvx lvchange -ay "$VG/r1"
uspace_run_ok "fio --verify=crc32c over r1" \
    fio --name=v --filename="$DEV/r1" --rw=randwrite --bs=64k --size=16m --direct=1 \
    --ioengine=psync --verify=crc32c --verify_fatal=1 --randrepeat=0 --output="$SCRATCH/fio.out"

uspace_run_ok "vgremove -f" lvx vgremove -f "$VG"
done_testing
