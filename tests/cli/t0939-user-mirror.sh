#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0939-user-mirror: old-style mirrors (lvcreate --type mirror) served by the lvx daemon
# (daemon/target_mirror.c), user-space activation over three 64 MiB loop devices, LVM2
# (activation off) as the oracle of where each mimage/mlog lives and of the region size
# (tests/tools/lv_pvread.py reads them directly):
#   - a disk-log mirror -m1: created active, copy_percent 100.00; an ext4 file system
#     made and written through it; both mimages hold the same bytes (read from their
#     PVs); after deactivation the mlog holds dm-log's header ("MiRr", version 2,
#     nr_regions = LV size / region size) and every region bit set (in sync), as the
#     kernel's dm-log reads it (docs/dm-formats.md §6);
#   - SIGKILL of the daemon during writes: the log on disk has regions out of sync; the
#     restarted daemon copies them from leg 0 (in the background: copy_percent polled),
#     legs equal, log in sync after the stop;
#   - a leg failing while in use (LVX_TEST_DP_FAULT: EIO on writes to its PV): fio
#     --verify=crc32c verifies, the daemon logs the failed leg, copy_percent drops below
#     100; the log keeps the written regions out of sync; activated again with the PV
#     healthy, the regions are copied and the legs are equal;
#   - a core-log mirror -m2: data on all three legs; every activation resyncs it all;
#   - a NOTSYNCED mirror (--nosync): no copy at the first activation;
#   - live conversions in the user backend: --mirrorlog core|disk of an active mirror,
#     -m0 of an active 3-leg mirror, --type mirror -m1 of an active linear LV (copied
#     after the reload, lvconvert waiting for it): data intact, legs equal, logs in sync, LVM2 reads the result.
source "$(dirname "$0")/../lib.sh"
own_mount_ns "$@"   # umount ends the filesystem before it is checked (lib.sh says why)
source "$LVX_ROOT/tests/tools/uspace-env.sh"

need_loop
need_lvx
need_cmd lvm dd sha256sum fio mkfs.ext4
[[ -c /dev/fuse ]] || skip_all "no /dev/fuse"

VG=vgumi$$
DEVS=()
for i in 0 1 2; do DEVS+=("$(make_loop 64M)"); done
uspace_test_env "$VG" "${DEVS[@]}"
MIB=1048576
source "$LVX_ROOT/tests/tools/raid-pvread.sh"
LOG=$LVX_RUN_DIR/lvxd.log

# mlog_field MLOG FIELD: magic, version, regions (nr_regions), insync (bits set among
# the first nr_regions), tail (bits set past them), read from the PV (where LVM2 placed
# MLOG at the first call)
mlog_field() {
    [[ -s $SCRATCH/$1.segs.json ]] || report "$1"   # placed again: rm the file
    pv_get "$1" 0 8192 "$SCRATCH/mlog.bin"
    "$PYTHON" - "$SCRATCH/mlog.bin" "$2" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
magic, version, regions = struct.unpack_from("<IIQ", b, 0)
bits = b[1024:]
ins = sum((bits[i // 8] >> (i % 8)) & 1 for i in range(regions))
tail = sum((bits[i // 8] >> (i % 8)) & 1 for i in range(regions, 8 * (len(bits))))
f = {"magic": "%08x" % magic, "version": version, "regions": regions, "insync": ins,
     "tail": tail, "zero": int(not any(b[16:1024]))}
print(f[sys.argv[2]])
PY
}
legs_equal() {  # legs_equal DESC LV LENGTH [LEGS]
    local i ref
    for i in $(seq 0 $((${4:-2} - 1))); do report "$2_mimage_$i"; done
    ref=$(pv_sum "$2_mimage_0" 0 "$3")
    for i in $(seq 1 $((${4:-2} - 1))); do
        test_eq "$1 (mimage_$i = mimage_0)" "$(pv_sum "$2_mimage_$i" 0 "$3")" "$ref"
    done
}
stop_daemon() {
    lvx vgchange -an "$VG" >"$SCRATCH/stop.out" 2>&1
    lvx daemon stop >>"$SCRATCH/stop.out" 2>&1
    for _ in $(seq 100); do [[ -z $(uspace_daemon_pids) ]] && break; sleep 0.1; done
}
field() { lvx lvs --noheadings -o "$2" "$VG/$1" 2>/dev/null | tr -d ' '; }
wait_in_sync() {  # the background resync done (copy_percent polled, ~120 s at most)
    for _ in $(seq 600); do
        [[ $(field "$1" copy_percent) == 100.00 ]] && return 0
        sleep 0.2
    done
    return 1
}

uspace_run_ok "pvcreate" lvx pvcreate "${DEVS[@]}"
uspace_run_ok "vgcreate $VG" lvx vgcreate "$VG" "${DEVS[@]}"
uspace_run_ok "lvcreate --type mirror -m1 -L 16m (disk log, active in the user backend)" \
    lvx lvcreate --type mirror -m1 -L 16m -n m "$VG" "${DEVS[0]}" "${DEVS[1]}" "${DEVS[2]}"
M=$DM_DEV_DIR/$VG/m
test_ok "$M is a block device" test -b "$M"
test_ok "copy_percent reaches 100.00 (the background resync, polled)" wait_in_sync m
REGION=$(lvm2 lvs --noheadings --units s --nosuffix -o regionsize "$VG/m" 2>/dev/null | tr -d ' ')
test_ok "LVM2 reads a region size ($REGION sectors)" test "${REGION:-0}" -gt 0
NREG=$(((32768 + ${REGION:-1} - 1) / ${REGION:-1}))

uspace_run_ok "mkfs.ext4 on the mirror" mkfs.ext4 -q -F "$M"
mkdir -p "$USPACE_DIR/mnt"
uspace_run_ok "mount it" mount "$M" "$USPACE_DIR/mnt"
head -c $((6 * MIB)) /dev/urandom >"$SCRATCH/f1"
uspace_run_ok "write a 6 MiB file" cp "$SCRATCH/f1" "$USPACE_DIR/mnt/f1"
uspace_run_ok "umount" umount "$USPACE_DIR/mnt"
uspace_run_ok "mount again" mount "$M" "$USPACE_DIR/mnt"
test_eq "the file reads back" "$(fsum "$USPACE_DIR/mnt/f1")" "$(fsum "$SCRATCH/f1")"
uspace_run_ok "umount" umount "$USPACE_DIR/mnt"
legs_equal "the legs hold the same bytes (read from their PVs)" m $((16 * MIB))
test_eq "the mirror reads what leg 0 holds" "$(lv_sum "$M" 0 $((16 * MIB)))" "$(pv_sum m_mimage_0 0 $((16 * MIB)))"
uspace_run_ok "deactivate" lvx lvchange -an "$VG/m"
test_eq "m_mlog: dm-log magic MiRr, version 2" \
    "$(mlog_field m_mlog magic) $(mlog_field m_mlog version)" "4d695272 2"
test_eq "m_mlog: nr_regions = LV sectors / region size, header tail zero" \
    "$(mlog_field m_mlog regions) $(mlog_field m_mlog zero)" "$NREG 1"
test_eq "m_mlog: every region in sync after the clean stop, no bit past them" \
    "$(mlog_field m_mlog insync) $(mlog_field m_mlog tail)" "$NREG 0"

# ---- SIGKILL of the daemon during writes
uspace_run_ok "activate m" lvx lvchange -ay "$VG/m"
fio --name=kill --filename="$M" --direct=1 --ioengine=libaio --iodepth=8 --rw=randwrite \
    --bs=4k --size=16m --time_based --runtime=30 --output="$SCRATCH/fio1.out" >/dev/null 2>&1 &
FIO=$!
for _ in $(seq 60); do   # until a region is out of sync on disk
    sleep 0.5
    [[ $(mlog_field m_mlog insync) -lt $NREG ]] && break
done
uspace_kill_daemon
wait "$FIO"
test_ok "the daemon is gone" test -z "$(uspace_daemon_pids)"
INS=$(mlog_field m_mlog insync)
test_ok "the log on disk has regions out of sync ($INS of $NREG in sync)" test "$INS" -lt "$NREG"
uspace_run_ok "lvx daemon start (serves m again)" lvx daemon start
test_ok "the daemon copied the out-of-sync regions" \
    grep -q "$VG/m: $((NREG - INS)) of $NREG mirror regions out of sync" "$LOG"
test_ok "the background resync ends (polled)" wait_in_sync m
stop_daemon
legs_equal "after the resync the legs are equal" m $((16 * MIB))
test_eq "the log is in sync after the stop" "$(mlog_field m_mlog insync)" "$NREG"

# ---- a leg failing while in use: every write to the second PV fails from now on
LVX_TEST_DP_FAULT="pv=${DEVS[1]},op=write,kind=eio,after=4" lvx lvchange -ay "$VG/m" >"$SCRATCH/o" 2>&1
_tap_result $? "activate m with writes to ${DEVS[1]} failing after 4"
uspace_run_ok "fio --verify=crc32c over m verifies while leg 1 fails" fio --name=leg \
    --filename="$M" --direct=1 --ioengine=psync --rw=randwrite --bs=64k --size=12m \
    --verify=crc32c --do_verify=1 --verify_fatal=1 --randseed=39
test_ok "the daemon logged the failed leg" grep -q "$VG/m: mirror leg 1 failed (write error)" "$LOG"
CP=$(field m copy_percent)
test_ok "copy_percent is below 100 ($CP)" test "${CP%%.*}" -lt 100
stop_daemon
INS=$(mlog_field m_mlog insync)
test_ok "the log keeps the written regions out of sync ($INS of $NREG)" test "$INS" -lt "$NREG"
test_ok "leg 1 lacks the writes" \
    test "$(pv_sum m_mimage_1 0 $((12 * MIB)))" != "$(pv_sum m_mimage_0 0 $((12 * MIB)))"
uspace_run_ok "activate m with both PVs healthy" lvx lvchange -ay "$VG/m"
test_ok "copy_percent 100.00 again (polled)" wait_in_sync m
stop_daemon
legs_equal "leg 1 holds leg 0's data again" m $((16 * MIB))
test_eq "the log is in sync" "$(mlog_field m_mlog insync)" "$NREG"

# ---- core log, three legs
uspace_run_ok "lvcreate --type mirror -m2 --corelog -L 8m" \
    lvx lvcreate --type mirror -m2 --corelog -L 8m -n c "$VG"
head -c $((8 * MIB)) /dev/urandom >"$SCRATCH/d2"
uspace_run_ok "write 8 MiB" dd if="$SCRATCH/d2" of="$DM_DEV_DIR/$VG/c" bs=1M oflag=direct conv=fsync status=none
test_eq "c reads it back" "$(lv_sum "$DM_DEV_DIR/$VG/c" 0 $((8 * MIB)))" "$(fsum "$SCRATCH/d2")"
test_ok "c in sync (polled)" wait_in_sync c
legs_equal "the three legs hold it" c $((8 * MIB)) 3
uspace_run_ok "deactivate c" lvx lvchange -an "$VG/c"
uspace_run_ok "activate c" lvx lvchange -ay "$VG/c"
test_eq "a core log: each activation copied every region (two copies logged)" \
    "$(grep -c "$VG/c: \([0-9]*\) of \1 mirror regions out of sync" "$LOG")" 2
test_eq "c still reads the data" "$(lv_sum "$DM_DEV_DIR/$VG/c" 0 $((8 * MIB)))" "$(fsum "$SCRATCH/d2")"

# ---- --nosync: nothing copied at the first activation
uspace_run_ok "lvcreate --type mirror -m1 --nosync -L 4m" \
    lvx lvcreate --type mirror -m1 --nosync -L 4m -n ns "$VG"
test_ok "no copy of ns logged" bash -c "! grep -q '$VG/ns: .* out of sync' '$LOG'"
test_eq "copy_percent 100.00" "$(field ns copy_percent)" "100.00"
stop_daemon
test_eq "ns_mlog in sync" "$(mlog_field ns_mlog insync)" "$(mlog_field ns_mlog regions)"

# ---- live conversions (the daemon reloads the LV; the metadata is the inactive
# conversions', which t0677 compares with LVM2's)
uspace_run_ok "activate m and c" lvx vgchange -ay "$VG"
D1=$(fsum "$SCRATCH/d2")
head -c $((16 * MIB)) /dev/urandom >"$SCRATCH/d3"
uspace_run_ok "write 16 MiB to m" dd if="$SCRATCH/d3" of="$M" bs=1M oflag=direct conv=fsync status=none
uspace_run_ok "lvconvert --mirrorlog core of the active m" lvx lvconvert -y --mirrorlog core "$VG/m"
test_eq "m has no log now (LVM2 reads the metadata)" \
    "$(lvm2 lvs --noheadings -o mirror_log "$VG/m" 2>/dev/null | tr -d ' ')" ""
test_eq "m reads its data after the reload" "$(lv_sum "$M" 0 $((16 * MIB)))" "$(fsum "$SCRATCH/d3")"
uspace_run_ok "lvconvert --mirrorlog disk of the active m" lvx lvconvert -y --mirrorlog disk "$VG/m"
rm -f "$SCRATCH/m_mlog.segs.json"
test_eq "m has a log again" "$(lvm2 lvs --noheadings -o mirror_log "$VG/m" 2>/dev/null | tr -d ' ')" "[m_mlog]"
test_eq "m reads its data" "$(lv_sum "$M" 0 $((16 * MIB)))" "$(fsum "$SCRATCH/d3")"
uspace_run_ok "lvconvert -m0 of the active 3-leg c (to linear)" lvx lvconvert -y -m0 "$VG/c"
test_eq "c is linear (LVM2 reads the metadata)" \
    "$(lvm2 lvs --noheadings -o segtype "$VG/c" 2>/dev/null | tr -d ' ')" "linear"
test_eq "c reads its data" "$(lv_sum "$DM_DEV_DIR/$VG/c" 0 $((8 * MIB)))" "$D1"
rc=0
lvx lvconvert -y --type mirror -m1 "$VG/c" >"$SCRATCH/conv.out" 2>&1 || rc=$?
test_eq "lvconvert --type mirror -m1 of the active linear c: copied, lvconvert waits" \
    "$(grep -v "NOT backed up" "$SCRATCH/conv.out"; echo "rc=$rc")" "  Logical volume $VG/c being converted.
  $VG/c: Converted: 100.00%
rc=0"
test_eq "c reads its data as a mirror" "$(lv_sum "$DM_DEV_DIR/$VG/c" 0 $((8 * MIB)))" "$D1"
test_ok "m's new log in sync (polled)" wait_in_sync m
stop_daemon
legs_equal "c's new leg holds the data" c $((8 * MIB))
test_eq "m_mlog and c_mlog in sync" "$(mlog_field m_mlog insync) $(mlog_field c_mlog insync)" \
    "$(mlog_field m_mlog regions) $(mlog_field c_mlog regions)"
test_ok "LVM2's vgck accepts the VG" lvm2 vgck "$VG"

done_testing
