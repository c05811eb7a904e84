#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0999-user-mirror-resync: the background resync of the lvx daemon's old-style mirrors
# (daemon/mirror_resync.c), user-space activation over four 64 MiB loop devices, LVM2
# (activation off) as the oracle of where each mimage/mlog lives; writes to the second
# PV are slowed (LVX_TEST_DP_FAULT delay) so the resync is seen running:
#   - lvcreate --type mirror -m1 (disk log): served at once, copy_percent below 100
#     (polled), fio writes crc32c-headed blocks while it runs, copy_percent reaches 100,
#     the daemon logs the end, fio verifies, both mimages equal, the mlog in sync;
#   - a core log: every region out of sync at activation, copied in the background;
#   - --nosync: nothing to copy, copy_percent 100.00 at once;
#   - SIGKILL of the daemon once the log on disk records progress: the restart copies
#     only the regions left (logged count), data written before the kill reads back,
#     legs equal;
#   - lvconvert -m+1 of the active core-log mirror: lvconvert waits for the copy
#     ("Converted: 100.00%"), three legs equal; -m+1 of the inactive disk-log mirror:
#     LVM2's resync layer written; the next activation collapses it and copies every
#     region to the new image, fio verifies;
#   - a mirrored log (--mirrorlog mirrored) served: the dm-log on both its images;
#     --mirrorlog mirrored of an active disk-log mirror, live.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

need_cmd fio
VG=vgmrs$$
uspace_test_loops "$VG" 4 64M
source "$LVX_ROOT/tests/tools/raid-pvread.sh"
MIB=1048576
LOG=$LVX_RUN_DIR/lvxd.log
SLOW="pv=${DEVS[1]},op=write,kind=delay=20"

lvsf() { lvx lvs --noheadings -o "$2" "$VG/$1" 2>/dev/null | tr -d ' '; }
wait_in_sync() {  # copy_percent 100.00 (polled, ~120 s at most)
    for _ in $(seq 600); do
        [[ $(lvsf "$1" copy_percent) == 100.00 ]] && return 0
        sleep 0.2
    done
    return 1
}
seen_below() {  # seen_below LV: copy_percent seen below 100 (polled a little)
    local p
    for _ in $(seq 50); do
        p=$(lvsf "$1" copy_percent)
        [[ -n $p && $p != 100.00 ]] && { echo "$p"; return 0; }
        sleep 0.1
    done
    return 1
}
wait_log() { for _ in $(seq 100); do grep -q "$1" "$LOG" && return 0; sleep 0.1; done; return 1; }
fio_job() {  # fio_job NAME DEV SIZE EXTRA...: 64 KiB random writes with crc32c headers
    local name=$1 dev=$2 size=$3
    shift 3
    fio --name="$name" --filename="$dev" --direct=1 --ioengine=psync --rw=randwrite --bs=64k \
        --size="$size" --verify=crc32c --verify_state_save=0 --randseed=999 "$@" \
        --output="$SCRATCH/$name.out" >/dev/null 2>&1
}
legs_equal() {  # legs_equal DESC LV LENGTH LEGS
    local i ref
    for i in $(seq 0 $(($4 - 1))); do report "$2_mimage_$i"; done
    ref=$(pv_sum "$2_mimage_0" 0 "$3")
    for i in $(seq 1 $(($4 - 1))); do
        test_eq "$1 (mimage_$i = mimage_0)" "$(pv_sum "$2_mimage_$i" 0 "$3")" "$ref"
    done
}
mlog_insync() {  # mlog_insync MLOG: "<bits set among nr_regions> <nr_regions>" on disk
    [[ -s $SCRATCH/$1.segs.json ]] || report "$1"
    pv_get "$1" 0 8192 "$SCRATCH/mlog.bin"
    "$PYTHON" - "$SCRATCH/mlog.bin" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
magic, version, regions = struct.unpack_from("<IIQ", b, 0)
if magic != 0x4D695272:
    regions = 0
print(sum((b[1024 + i // 8] >> (i % 8)) & 1 for i in range(regions)), regions)
PY
}
stop_daemon() { uspace_stop_daemon "$VG"; }

uspace_run_ok "pvcreate" lvx pvcreate "${DEVS[@]}"
uspace_run_ok "vgcreate $VG" lvx vgcreate "$VG" "${DEVS[@]}"

# ---- a disk-log mirror: served at once, copied in the background
LVX_TEST_DP_FAULT=$SLOW lvx lvcreate --type mirror -m1 -L 16m -R 64k -n m "$VG" \
    "${DEVS[0]}" "${DEVS[1]}" "${DEVS[2]}" >"$SCRATCH/o" 2>&1
_tap_result $? "lvcreate --type mirror -m1 -L 16m -R 64k (writes to ${DEVS[1]} slowed)"
M=$DM_DEV_DIR/$VG/m
P=$(seen_below m)
test_ok "copy_percent below 100 right after lvcreate (${P:-never seen}): the resync runs behind" \
    test -n "$P"
test_ok "the daemon logged all 256 regions out of sync" \
    grep -q "$VG/m: 256 of 256 mirror regions out of sync" "$LOG"
uspace_run_ok "fio: 2 MiB of crc32c-headed random writes while the resync runs" \
    fio_job w1 "$M" 2m --do_verify=0
test_ok "copy_percent reaches 100.00 (polled)" wait_in_sync m
test_ok "the daemon logged the end of the resync" wait_log "$VG/m: mirror resync done"
uspace_run_ok "fio verifies every block written during the resync" fio_job w1 "$M" 2m --verify_only=1

# ---- a core log: every region copied at activation, in the background
uspace_run_ok "lvcreate --type mirror -m1 --corelog -L 8m -R 64k" \
    lvx lvcreate --type mirror -m1 --corelog -L 8m -R 64k -n c "$VG" "${DEVS[0]}" "${DEVS[1]}"
P=$(seen_below c)
test_ok "c: copy_percent below 100 (${P:-never seen})" test -n "$P"
test_ok "c: 128 of 128 regions out of sync logged" \
    grep -q "$VG/c: 128 of 128 mirror regions out of sync" "$LOG"
uspace_run_ok "fio: 2 MiB to c while it resyncs" fio_job w2 "$DM_DEV_DIR/$VG/c" 2m --do_verify=0
test_ok "c reaches 100.00 (polled)" wait_in_sync c

# ---- --nosync: nothing to copy
uspace_run_ok "lvcreate --type mirror -m1 --nosync -L 4m" \
    lvx lvcreate --type mirror -m1 --nosync -L 4m -n ns "$VG" "${DEVS[0]}" "${DEVS[1]}" "${DEVS[2]}"
test_eq "ns: copy_percent 100.00 at once" "$(lvsf ns copy_percent)" "100.00"
test_ok "ns: no region logged out of sync" bash -c "! grep -q '$VG/ns: .* out of sync' '$LOG'"

stop_daemon
legs_equal "m: both legs equal after the background resync" m $((16 * MIB)) 2
test_eq "m_mlog: every region in sync after the clean stop" "$(mlog_insync m_mlog)" "256 256"
legs_equal "c: both legs equal" c $((8 * MIB)) 2

# ---- SIGKILL mid-resync: the restart copies only the regions left
LVX_TEST_DP_FAULT=${SLOW/delay=20/delay=60} lvx lvcreate --type mirror -m1 -L 16m -R 64k \
    -n k "$VG" "${DEVS[0]}" "${DEVS[1]}" "${DEVS[2]}" >"$SCRATCH/o" 2>&1
_tap_result $? "lvcreate k -L 16m -R 64k (writes to ${DEVS[1]} slowed more)"
report k_mlog
head -c "$MIB" /dev/urandom >"$SCRATCH/k.bin"
uspace_run_ok "1 MiB written to k while it resyncs" dd if="$SCRATCH/k.bin" \
    of="$DM_DEV_DIR/$VG/k" bs=1M oflag=direct status=none
ins=0
for _ in $(seq 300); do   # until a checkpoint recorded progress in the log on disk
    read -r ins _ <<<"$(mlog_insync k_mlog)"
    [[ $ins -gt 0 ]] && break
    sleep 0.1
done
uspace_kill_daemon
test_ok "the daemon is gone (SIGKILL)" test -z "$(uspace_daemon_pids)"
read -r INS NREG <<<"$(mlog_insync k_mlog)"
test_ok "the log on disk records progress: 0 < $INS < $NREG regions in sync" \
    test "$INS" -gt 0 -a "$INS" -lt "$NREG"
: >"$LOG"
uspace_run_ok "lvx daemon start (serves k again, no delay)" lvx daemon start
test_ok "the restart copies only the $((NREG - INS)) regions left" \
    grep -q "$VG/k: $((NREG - INS)) of $NREG mirror regions out of sync" "$LOG"
test_ok "k reaches 100.00 (polled)" wait_in_sync k
test_eq "k reads the MiB written before the kill" "$(lv_sum "$DM_DEV_DIR/$VG/k" 0 "$MIB")" \
    "$(fsum "$SCRATCH/k.bin")"
stop_daemon
legs_equal "k: legs equal after the resumed resync" k $((16 * MIB)) 2
test_eq "k_mlog in sync after the clean stop" "$(mlog_insync k_mlog)" "$NREG $NREG"

# ---- more images: live (core log) and inactive (disk log)
uspace_run_ok "activate c" lvx lvchange -ay "$VG/c"
test_ok "c in sync (polled)" wait_in_sync c
rc=0
lvx lvconvert -y -m+1 "$VG/c" >"$SCRATCH/conv.out" 2>&1 || rc=$?
test_eq "lvconvert -m+1 of the active core-log c waits for the copy" \
    "$(grep -v "NOT backed up" "$SCRATCH/conv.out"; echo "rc=$rc")" "  Logical volume $VG/c being converted.
  $VG/c: Converted: 100.00%
rc=0"
test_eq "c: copy_percent 100.00 when lvconvert returns" "$(lvsf c copy_percent)" "100.00"
uspace_run_ok "fio verifies c (written before the conversion)" \
    fio_job w2 "$DM_DEV_DIR/$VG/c" 2m --verify_only=1
uspace_run_ok "deactivate c" lvx lvchange -an "$VG/c"
legs_equal "c: the new third leg holds the data" c $((8 * MIB)) 3
rc=0
lvx lvconvert -y -m+1 "$VG/m" >"$SCRATCH/conv.out" 2>&1 || rc=$?
test_eq "lvconvert -m+1 of the inactive disk-log m" \
    "$(grep -v "NOT backed up" "$SCRATCH/conv.out"; echo "rc=$rc")" "  Logical volume $VG/m being converted.
  Conversion starts after activation.
rc=0"
test_eq "LVM2 reads m over its resync layer m_mimagetmp_2 (the old images, the log) and m_mimage_2" \
    "$(lvm2 lvs -a --noheadings -o lv_name,devices,mirror_log "$VG/m" "$VG/m_mimagetmp_2" 2>/dev/null |
        tr -s ' ' | sed 's/^ //' | paste -sd'|')" \
    "m m_mimagetmp_2(0),m_mimage_2(0) |[m_mimagetmp_2] m_mimage_0(0),m_mimage_1(0) [m_mlog]"
: >"$LOG"
uspace_run_ok "activate m" lvx lvchange -ay "$VG/m"
test_ok "every region of m copied again (the layer collapsed, the log's header zeroed)" \
    grep -q "$VG/m: 256 of 256 mirror regions out of sync" "$LOG"
test_ok "m reaches 100.00 (polled)" wait_in_sync m
uspace_run_ok "fio verifies m's data" fio_job w1 "$M" 2m --verify_only=1
stop_daemon
legs_equal "m: the new third leg holds the data" m $((16 * MIB)) 3
test_eq "m_mlog in sync" "$(rm -f "$SCRATCH/m_mlog.segs.json"; mlog_insync m_mlog)" "256 256"
# ---- a mirrored log (global/support_mirrored_mirror_log): the log on both its images
uspace_run_ok "lvcreate --type mirror -m1 --mirrorlog mirrored -L 8m -R 64k (served)" \
    lvx lvcreate --config "global/support_mirrored_mirror_log=1" --type mirror -m1 \
    --mirrorlog mirrored -L 8m -R 64k -n ml "$VG"
test_ok "ml reaches 100.00 (polled)" wait_in_sync ml
uspace_run_ok "fio: 2 MiB with crc32c headers to ml" fio_job w4 "$DM_DEV_DIR/$VG/ml" 2m \
    --do_verify=0
uspace_run_ok "fio verifies ml" fio_job w4 "$DM_DEV_DIR/$VG/ml" 2m --verify_only=1
uspace_run_ok "deactivate ml" lvx lvchange -an "$VG/ml"
legs_equal "ml: both legs equal" ml $((8 * MIB)) 2
test_eq "ml's log on both its images: dm-log, 128 of 128 regions in sync" \
    "$(mlog_insync ml_mlog_mimage_0) $(mlog_insync ml_mlog_mimage_1)" "128 128 128 128"
uspace_run_ok "activate k" lvx lvchange -ay "$VG/k"
uspace_run_ok "lvconvert --mirrorlog mirrored of the active k (the daemon reloads it)" \
    lvx lvconvert --config "global/support_mirrored_mirror_log=1" -y --mirrorlog mirrored \
    "$VG/k"
test_eq "LVM2 reads k's log as a 2-image mirror" \
    "$(lvm2 lvs -a --noheadings -o devices "$VG/k_mlog" 2>/dev/null | tr -d ' ')" \
    "k_mlog_mimage_0(0),k_mlog_mimage_1(0)"
test_ok "k in sync (polled)" wait_in_sync k
test_eq "k reads its data after the reload" "$(lv_sum "$DM_DEV_DIR/$VG/k" 0 "$MIB")" \
    "$(fsum "$SCRATCH/k.bin")"
uspace_run_ok "deactivate k" lvx lvchange -an "$VG/k"
test_eq "k's log on both its new images: 256 of 256 regions in sync" \
    "$(mlog_insync k_mlog_mimage_0) $(mlog_insync k_mlog_mimage_1)" "256 256 256 256"
test_ok "LVM2's vgck accepts the VG" lvm2 vgck "$VG"

done_testing
