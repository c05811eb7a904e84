#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0935-user-raid: raid1 and raid10 LVs served by the lvx daemon (daemon/target_raid.c),
# user-space activation over four 64 MiB loop devices, LVM2 (activation off) as the
# oracle of where each rimage/rmeta lives (tests/tools/lv_pvread.py reads them directly).
#   - raid1 -m1: the first activation syncs the legs; data written through the LV
#     (direct, fsync) is on each rimage, read directly from its PV; the rmeta of each leg
#     holds a dm-raid superblock ("DmRd", level 1, its array position, the same events)
#     and an md bitmap ("bitm" v4, chunk = region size, events as the superblock's) with
#     every region bit clear after deactivation (dm-formats.md §2-3);
#   - a leg failing while in use (LVX_TEST_DP_FAULT: EIO on every write to its PV):
#     fio --verify=crc32c still verifies, the daemon logs the failed leg, lvs shows
#     lv_health_status "refresh needed" (the daemon's status: dm-raid's health letters),
#     the surviving
#     superblock has the failed bit and a higher event count than the failed leg's;
#     the next activation with the PV healthy rebuilds that leg (its rimage equals the
#     other again);
#   - degraded activation with a leg's PV hidden (--devices): the LV is served from the
#     other leg, writes land; with the PV back the leg is rebuilt;
#   - SIGKILL of the daemon during writes: the bitmap on disk has dirty bits; the next
#     activation resyncs them ("dirty regions of the bitmap resynced"), legs equal;
#   - raid10 -i2 -m1 (near, 64 KiB chunks): data through the LV, each rimage holds the
#     chunks md's near layout puts there, read directly;
#   - raid0 is served (as the striped LV it equals): written, read back after a
#     reactivation (raid4/5: t0937).
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

need_loop
need_lvx
need_cmd lvm dd sha256sum fio
[[ -c /dev/fuse ]] || skip_all "no /dev/fuse"

VG=vgurd$$
DEVS=()
for i in 0 1 2 3; do DEVS+=("$(make_loop 64M)"); done
uspace_test_env "$VG" "${DEVS[@]}"
MIB=1048576

source "$LVX_ROOT/tests/tools/raid-pvread.sh"
worker_pid() { read -r _ w <<<"$(uspace_daemon_pids)"; echo "$w"; }

uspace_run_ok "pvcreate" lvx pvcreate "${DEVS[@]}"
uspace_run_ok "vgcreate $VG" lvx vgcreate "$VG" "${DEVS[@]}"
uspace_run_ok "lvcreate --type raid1 -m1 -L 16m (first use: full sync)" \
    lvx lvcreate -Zn --type raid1 -m1 -L 16m -n r1 "$VG" "${DEVS[0]}" "${DEVS[1]}"
R1=$DM_DEV_DIR/$VG/r1
test_ok "$R1 is a block device" test -b "$R1"
for s in r1_rimage_0 r1_rimage_1 r1_rmeta_0 r1_rmeta_1; do report "$s"; done

head -c $((16 * MIB)) /dev/urandom >"$SCRATCH/d1"
uspace_run_ok "write 16 MiB to r1 (direct, fsync)" dd if="$SCRATCH/d1" of="$R1" bs=1M oflag=direct conv=fsync status=none
D1=$(fsum "$SCRATCH/d1")
test_eq "r1 reads back what was written" "$(lv_sum "$R1" 0 $((16 * MIB)))" "$D1"
test_eq "rimage_0 holds the data (read from its PV)" "$(pv_sum r1_rimage_0 0 $((16 * MIB)))" "$D1"
test_eq "rimage_1 holds the data (read from its PV)" "$(pv_sum r1_rimage_1 0 $((16 * MIB)))" "$D1"
uspace_run_ok "deactivate" lvx lvchange -an "$VG/r1"
for i in 0 1; do
    m=r1_rmeta_$i
    test_eq "$m: dm-raid superblock magic" "$(sb_field $m magic)" "DmRd"
    test_eq "$m: level 1, layout 0, 2 devices, position $i" \
        "$(sb_field $m level) $(sb_field $m layout) $(sb_field $m devices) $(sb_field $m position)" "1 0 2 $i"
    test_eq "$m: in sync (recovery and resync offsets MaxSector), array size" \
        "$(sb_field $m recovery) $(sb_field $m resync) $(sb_field $m array_sectors)" \
        "ffffffffffffffff ffffffffffffffff 32768"
    test_eq "$m: md bitmap v4, chunk 2 MiB (region size), covers the leg" \
        "$(sb_field $m bm_magic) $(sb_field $m bm_version) $(sb_field $m bm_chunk) $(sb_field $m bm_sync_size)" \
        "bitm 4 2097152 32768"
    test_eq "$m: clean stop (no dirty bit, bitmap events = superblock events = cleared)" \
        "$(sb_field $m dirty) $(sb_field $m bm_events) $(sb_field $m bm_cleared)" \
        "0 $(sb_field $m events) $(sb_field $m events)"
done
test_eq "both legs have the same event count" "$(sb_field r1_rmeta_0 events)" "$(sb_field r1_rmeta_1 events)"

LOG=$LVX_RUN_DIR/lvxd.log
stop_daemon() {
    lvx vgchange -an "$VG" >"$SCRATCH/stop.out" 2>&1
    lvx daemon stop >>"$SCRATCH/stop.out" 2>&1
    for _ in $(seq 100); do [[ -z $(uspace_daemon_pids) ]] && break; sleep 0.1; done
}
legs_equal() {  # legs_equal DESC LENGTH: both rimages hold the same bytes
    test_eq "$1" "$(pv_sum r1_rimage_1 0 "$2")" "$(pv_sum r1_rimage_0 0 "$2")"
}

# ---- a leg failing while in use: every write to the second PV fails from now on
stop_daemon
LVX_TEST_DP_FAULT="pv=${DEVS[1]},op=write,kind=eio,after=6" lvx lvchange -ay "$VG/r1" >"$SCRATCH/o" 2>&1
_tap_result $? "activate r1 with writes to ${DEVS[1]} failing after 6"
fio --name=leg --filename="$R1" --direct=1 --ioengine=psync --rw=randwrite --bs=64k \
    --size=12m --verify=crc32c --do_verify=1 --verify_fatal=1 --randseed=35 \
    --output="$SCRATCH/fio.out" >/dev/null 2>&1
_tap_result $? "fio --verify=crc32c over r1 verifies while leg 1 fails"
[[ $? == 0 ]] || _diag_file fio "$SCRATCH/fio.out"
test_ok "the daemon logged the failed leg" grep -q "RAID leg 1 failed (.*write failed\|write error)" "$LOG"
test_eq "lvs -o lv_health_status says so" \
    "$(lvx lvs --noheadings -o lv_health_status "$VG/r1" 2>/dev/null | tr -d ' ')" "refreshneeded"
test_ok "reads still verify (fio verify pass again)" fio --name=leg --filename="$R1" --direct=1 \
    --ioengine=psync --rw=randwrite --bs=64k --size=12m --verify=crc32c --verify_only \
    --randseed=35 --output="$SCRATCH/fio2.out"
stop_daemon
test_eq "the superblock of leg 0 marks leg 1 failed" "$(sb_field r1_rmeta_0 failed)" "2"
test_ok "leg 0's events are ahead of leg 1's" \
    test "$(sb_field r1_rmeta_0 events)" -gt "$(sb_field r1_rmeta_1 events)"
test_ok "the data is not on leg 1" test "$(pv_sum r1_rimage_1 0 $((12 * MIB)))" != "$(pv_sum r1_rimage_0 0 $((12 * MIB)))"
uspace_run_ok "activate r1 with both PVs healthy" lvx lvchange -ay "$VG/r1"
test_ok "r1: in sync (polled: the daemon resyncs in the background)" wait_synced r1
test_eq "lv_health_status is empty again (both legs live)" \
    "$(lvx lvs --noheadings -o lv_health_status "$VG/r1" 2>/dev/null | tr -d ' ')" ""
test_ok "the daemon rebuilt leg 1" grep -q "RAID leg 1 is rebuilt from the others" "$LOG"
legs_equal "leg 1 holds leg 0's data again" $((16 * MIB))
test_eq "no failed bit left" "$(sb_field r1_rmeta_1 failed)" "0"

# ---- degraded activation: the second PV hidden
HIDE="--devices=${DEVS[0]},${DEVS[2]},${DEVS[3]}"
uspace_run_ok "deactivate" lvx lvchange -an "$VG/r1"
uspace_run_ok "activate r1 with ${DEVS[1]} missing (--activationmode degraded)" \
    lvx lvchange -ay --activationmode degraded "$HIDE" "$VG/r1"
head -c $((4 * MIB)) /dev/urandom >"$SCRATCH/d2"
uspace_run_ok "write 4 MiB to the degraded r1" dd if="$SCRATCH/d2" of="$R1" bs=1M oflag=direct conv=fsync status=none
test_eq "the degraded r1 reads it back" "$(lv_sum "$R1" 0 $((4 * MIB)))" "$(fsum "$SCRATCH/d2")"
udevadm settle >/dev/null 2>&1
uspace_run_ok "deactivate" lvx lvchange -an "$HIDE" "$VG/r1"
test_eq "leg 0's superblock marks leg 1 failed (missing)" "$(sb_field r1_rmeta_0 failed)" "2"
test_ok "leg 1 lacks the degraded writes" test "$(pv_sum r1_rimage_1 0 $((4 * MIB)))" != "$(fsum "$SCRATCH/d2")"
uspace_run_ok "activate r1 with the PV back" lvx lvchange -ay "$VG/r1"
test_ok "r1: in sync (polled: the daemon resyncs in the background)" wait_synced r1
test_eq "leg 1 was rebuilt: it holds the degraded writes" "$(pv_sum r1_rimage_1 0 $((4 * MIB)))" "$(fsum "$SCRATCH/d2")"

# ---- SIGKILL of the daemon during writes, then bitmap-driven resync
udevadm settle >/dev/null 2>&1
uspace_run_ok "r1 takes writes again" dd if="$SCRATCH/d2" of="$R1" bs=1M oflag=direct conv=fsync status=none
fio --name=kill --filename="$R1" --direct=1 --ioengine=libaio --iodepth=8 --rw=randwrite \
    --bs=4k --size=16m --time_based --runtime=30 --output="$SCRATCH/fio3.out" >/dev/null 2>&1 &
FIO=$!
for _ in $(seq 60); do   # until the writes made bits dirty on disk
    sleep 0.5
    [[ $(sb_field r1_rmeta_0 dirty) -gt 0 ]] && break
done
read -r sup worker <<<"$(uspace_daemon_pids)"
kill -9 "$sup" "$worker"
for _ in $(seq 50); do [[ -z $(uspace_daemon_pids) ]] && break; sleep 0.1; done
wait "$FIO"
test_ok "the daemon is gone" test -z "$(uspace_daemon_pids)"
DIRTY=$(sb_field r1_rmeta_0 dirty)
test_ok "the bitmap on disk has dirty regions ($DIRTY)" test "$DIRTY" -gt 0
[[ $DIRTY -gt 0 ]] || { _diag_file fio "$SCRATCH/fio3.out"; _diag_file log "$LOG"; }
uspace_run_ok "lvx daemon start (serves r1 again)" lvx daemon start
test_ok "r1: in sync (polled: the daemon resyncs in the background)" wait_synced r1
test_ok "the daemon resynced the dirty regions" grep -q "dirty regions of the bitmap to resync" "$LOG"
test_ok "r1 is served again" test -b "$(readlink -f "$R1")"
stop_daemon
legs_equal "after the resync both legs are equal" $((16 * MIB))
test_eq "no dirty region after the clean stop" "$(sb_field r1_rmeta_1 dirty)" "0"

# ---- raid10 -i2 -m1 (near, 64 KiB chunks)
uspace_run_ok "lvcreate --type raid10 -i2 -m1 -I 64k -L 16m" \
    lvx lvcreate -Zn --type raid10 -i2 -m1 -I 64k -L 16m -n r10 "$VG"
R10=$DM_DEV_DIR/$VG/r10
for i in 0 1 2 3; do report "r10_rimage_$i"; done
head -c $((16 * MIB)) /dev/urandom >"$SCRATCH/d10"
uspace_run_ok "write 16 MiB to r10" dd if="$SCRATCH/d10" of="$R10" bs=1M oflag=direct conv=fsync status=none
test_eq "r10 reads back what was written" "$(lv_sum "$R10" 0 $((16 * MIB)))" "$(fsum "$SCRATCH/d10")"
# near, 2 copies over 4 legs: chunk k on legs 2k mod 4 and 2k+1 mod 4, row k div 2
for i in 0 1 2 3; do pv_get "r10_rimage_$i" 0 $((8 * MIB)) "$SCRATCH/img$i"; done
"$PYTHON" - "$SCRATCH/d10" "$SCRATCH"/img{0,1,2,3} >"$SCRATCH/near.out" 2>&1 <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
imgs = [open(p, "rb").read() for p in sys.argv[2:6]]
C = 65536
bad = 0
for k in range(len(data) // C):
    for j in range(2):
        slot = 2 * k + j
        leg, row = slot % 4, slot // 4
        if imgs[leg][row * C:(row + 1) * C] != data[k * C:(k + 1) * C]:
            bad += 1
print("bad", bad)
sys.exit(1 if bad else 0)
PY
_tap_result $? "each rimage of r10 holds the chunks of md's near layout (read from the PVs)"
uspace_run_ok "deactivate r10" lvx lvchange -an "$VG/r10"
test_eq "r10_rmeta_0: level 10, layout 0x102 (near 2), chunk 128, 4 devices" \
    "$(report r10_rmeta_0; sb_field r10_rmeta_0 level) $(sb_field r10_rmeta_0 layout) $(sb_field r10_rmeta_0 stripe) $(sb_field r10_rmeta_0 devices)" \
    "10 258 128 4"
test_eq "r10_rmeta_0: the bitmap covers the array (raid10)" "$(sb_field r10_rmeta_0 bm_sync_size)" "32768"

# ---- raid0: served as the striped LV it equals
test_ok "raid0 r0 (-i2 -L 8m), active" lvx lvcreate -q -Zn --type raid0 -i2 -L 8m -n r0 "$VG"
head -c $((8 * 1048576)) /dev/urandom >"$SCRATCH/r0.bin"
test_ok "... 8 MiB written" dd if="$SCRATCH/r0.bin" of="$DM_DEV_DIR/$VG/r0" bs=1M oflag=direct conv=fsync status=none
test_ok "... deactivated and activated again" sh -c "$LVX lvchange -an $VG/r0 && $LVX lvchange -ay $VG/r0"
test_eq "... reads them" "$(dd if="$DM_DEV_DIR/$VG/r0" bs=1M iflag=direct status=none | sha256sum)" \
    "$(sha256sum <"$SCRATCH/r0.bin")"
test_ok "... deactivated" lvx lvchange -an "$VG/r0"

done_testing
