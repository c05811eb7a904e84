#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1005-user-raid-recover-resume: the rebuild of a new RAID leg in the lvx daemon
# (daemon/raid_resync.c) records its progress as dm-raid does, in the new leg's
# superblock (disk_recovery_offset, md's per-device recovery_offset), and a SIGKILL of
# the daemon resumes it there instead of from 0.  Three 64 MiB loop devices, user-space
# activation, LVM2 (activation off) as the oracle of where each sub-LV lives:
#   - raid1 r (32 MiB, 512 KiB regions, --maxrecoveryrate 2m), in sync; fio writes 8 MiB
#     at 24 MiB with crc32c headers;
#   - lvconvert -m2 onto the third PV: the new image is rebuilt in the background; once
#     its superblock records 0 < offset < end, the daemon is killed (SIGKILL): the old
#     legs' superblocks say in sync, the new one the offset;
#   - 4 KiB planted in rimage_2 below the offset (an area no request writes);
#   - the daemon starts again: "recovery of RAID leg 2 resumed at sector <offset>" logged,
#     fio writes 8 MiB more during the resumed rebuild; sync_percent reaches 100;
#   - fio verifies both writes; the three rimages hold the same 32 MiB except the
#     plant, which is still in rimage_2 (nothing below the offset copied again); the
#     superblocks say in sync after the clean stop.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

need_cmd fio
VG=vgrr$$
uspace_test_loops "$VG" 3 64M
source "$LVX_ROOT/tests/tools/raid-pvread.sh"
MIB=1048576
LOG=$LVX_RUN_DIR/lvxd.log
R=$DM_DEV_DIR/$VG/r
PLANT=$((MIB + 4096))        # region 2: below the offset waited for, away from the data

lvsf() { lvx lvs --noheadings -o "$2" "$VG/$1" 2>/dev/null | tr -d ' '; }
# sum_but_plant SUBLV: sha256 of the 32 MiB of SUBLV without the planted 4 KiB
sum_but_plant() {
    echo "$(pv_sum "$1" 0 "$PLANT") $(pv_sum "$1" $((PLANT + 4096)) $((32 * MIB - PLANT - 4096)))"
}

uspace_run_ok "pvcreate, vgcreate" sh -c "$LVX pvcreate ${DEVS[*]} && $LVX vgcreate $VG ${DEVS[*]}"
uspace_run_ok "lvcreate --type raid1 -m1 -L 32m -R 512k --maxrecoveryrate 2m" \
    lvx lvcreate -Zn --type raid1 -m1 -L 32m -R 512k --maxrecoveryrate 2m -n r "$VG" \
    "${DEVS[0]}" "${DEVS[1]}"
test_ok "r reaches sync_percent 100.00 (polled)" wait_synced r
uspace_run_ok "fio: 8 MiB of crc32c-headed random writes at 24 MiB" \
    fio_crc w1 "$R" 8m --offset=24m --do_verify=0
: >"$LOG"
uspace_run_ok "lvconvert -y -m2 onto ${DEVS[2]} (a new leg, rebuilt in the background)" \
    lvx lvconvert -y -m2 "$VG/r" "${DEVS[2]}"
report r_rmeta_2
sb_wait_past r_rmeta_2 recovery 3072 >/dev/null   # until the new leg is recorded past region 2
uspace_kill_daemon
test_ok "the daemon is gone (SIGKILL mid-recovery)" test -z "$(uspace_daemon_pids)"
test_ok "the daemon logged the rebuild of leg 2" grep -q "r: RAID leg 2 is rebuilt from the others" "$LOG"
report r_rmeta_0
rec=$(sb_field r_rmeta_2 recovery)
test_ok "r_rmeta_2 records the recovery offset: 3072 < $rec < 65536 sectors" \
    test "$rec" != ffffffffffffffff -a "$((16#$rec))" -gt 3072 -a "$((16#$rec))" -lt 65536
test_eq "r_rmeta_0: leg 0 in sync (disk_recovery_offset MaxSector), no array resync" \
    "$(sb_field r_rmeta_0 recovery) $(sb_field r_rmeta_0 resync)" "ffffffffffffffff ffffffffffffffff"
rec=$((16#$rec))
report r_rimage_2
pv_plant r_rimage_2 "$PLANT"
pv_get r_rimage_2 "$PLANT" 4096 "$SCRATCH/plant.bin"
: >"$LOG"
uspace_run_ok "lvx daemon start (serves r again)" lvx daemon start
test_ok "the rebuild resumed at the recorded offset (sector $rec)" \
    grep -q "r: recovery of RAID leg 2 resumed at sector $rec\$" "$LOG"
test_ok "... not from 0 (no full rebuild logged)" sh -c "! grep -q 'leg 2 is rebuilt from the others' '$LOG'"
uspace_run_ok "fio: 8 MiB more crc32c-headed writes during the resumed rebuild" \
    fio_crc w2 "$R" 8m --offset=12m --do_verify=0
test_ok "sync_percent reaches 100.00 after the resume (polled)" wait_synced r
# the walker logs its end after its last checkpoint, which can come after the status
# already counts every region: the line is waited for (10 s at most)
for _ in $(seq 50); do grep -q "r: recovery done" "$LOG" && break; sleep 0.2; done
test_ok "the daemon logged the end of the recovery" grep -q "r: recovery done" "$LOG"
uspace_run_ok "fio verifies the writes made before the rebuild" fio_crc w1 "$R" 8m --offset=24m --verify_only=1
uspace_run_ok "fio verifies the writes made during the resumed rebuild" \
    fio_crc w2 "$R" 8m --offset=12m --verify_only=1
uspace_run_ok "deactivate" lvx lvchange -an "$VG/r"
report r_rimage_0
report r_rimage_1
s0=$(sum_but_plant r_rimage_0)
test_eq "rimage_1 holds the bytes of rimage_0 (32 MiB from the PVs)" "$(sum_but_plant r_rimage_1)" "$s0"
test_eq "rimage_2 holds them too (but the plant)" "$(sum_but_plant r_rimage_2)" "$s0"
test_eq "below the offset nothing was copied again: the plant is still in rimage_2" \
    "$(pv_sum r_rimage_2 "$PLANT" 4096)" "$(fsum "$SCRATCH/plant.bin")"
test_eq "r_rmeta_2: in sync after the clean stop" \
    "$(sb_field r_rmeta_2 recovery) $(sb_field r_rmeta_2 resync) $(sb_field r_rmeta_2 dirty)" \
    "ffffffffffffffff ffffffffffffffff 0"
done_testing
