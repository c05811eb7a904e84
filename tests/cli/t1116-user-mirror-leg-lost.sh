#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1116-user-mirror-leg-lost: an old-style mirror (segment type "mirror") in lvx's
# user-space daemon whose leg's PV starts failing every op, its datasync too
# (LVX_TEST_DP_FAULT kind=eio, no op= : a lost disk), as dm-raid1 goes on in the kernel:
#   A. during the initial resync of a 3-leg disk-log mirror (writes to D1 slowed so the
#      resync is seen running, every op on D2 failing after 150): leg 2 is marked failed,
#      the background resync goes on to its end on legs 0 and 1 (was: its checkpoint's
#      flush failed for ever on D2's datasync and it stopped for good), fio's crc32c
#      blocks written with an fsync at the end verify, legs 0 and 1 hold the same bytes
#      (read from their PVs); lvs: LVM2's attr (health '-', no 'r' for a mirror),
#      lv_health_status "" and copy_percent below 100; the clean stop writes the log (no
#      "not written clean" line) and every region the log says in sync holds the same
#      bytes on all three legs (dm-log's rule: no region of the failed leg marked in
#      sync wrongly); the daemon started again with D2 healthy copies the regions out of
#      sync to leg 2: three legs equal, the log all in sync, fio verifies.
#   B. an in-sync 2-leg mirror whose D1 fails every op after a few: dd conv=fsync and
#      fio (crc32c, --fsync=4) succeed on the live leg (was: every fsync EIO, the failed
#      leg's datasync failing), the leg marked failed and logged; the same with only
#      D1's datasyncs failing (op=flush: the leg is failed at the flush, as dm-raid1's
#      flush error, and the fsync succeeds); after the clean stop, the log's in-sync
#      regions hold the same bytes on both legs; with the PV healthy the activation
#      (and `lvchange --refresh` of the active LV) resyncs: legs equal, fio verifies.
# On the code before (main at 255bb5cf) 14 of its 52 checks fail: A's end fsync, the
# resync stopped for good (2), the stop's log line, legs 0 and 1 differing; B's dd and
# fio fsyncs (4, and the fio verifies that follow, 3), the stop's log line, the
# flush-only failure (the fsync EIO, no leg failed).
# shellcheck disable=SC2317  # helpers called through test_ok
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

need_cmd fio
: "${PYTHON:=python3}"
need_cmd "$PYTHON"
VG=vgmll$$ MIB=1048576
uspace_test_loops "$VG" 5 64M
LOG=$LVX_RUN_DIR/lvxd.log
source "$LVX_ROOT/tests/tools/raid-pvread.sh"

source "$LVX_ROOT/tests/tools/mirror-fault.sh"   # restart_daemon, fio_w, lvsf, logged, wait_in_sync
# images LV N: its N mimages read from their PVs into SCRATCH/LV.imgI, its mlog into
# SCRATCH/LV.mlog
images() {
    local i size
    size=$("$LVX" lvs --noheadings --units b --nosuffix -o lv_size "$VG/$1" 2>/dev/null | tr -d ' ')
    for i in $(seq 0 $(($2 - 1))); do
        report "$1_mimage_$i"
        pv_get "$1_mimage_$i" 0 "$size" "$SCRATCH/$1.img$i"
    done
    report "$1_mlog"
    pv_get "$1_mlog" 0 8192 "$SCRATCH/$1.mlog"
}
# logcheck LV N REGION_BYTES: "<regions in sync> <regions> <in sync but legs differ>
# <legs differing in regions out of sync>" from the mlog (dm-log) and the N images
logcheck() {
    "$PYTHON" - "$SCRATCH/$1.mlog" "$3" "$SCRATCH/$1".img* <<'PY'
import struct, sys
log = open(sys.argv[1], "rb").read()
rb = int(sys.argv[2])
imgs = [open(p, "rb").read() for p in sys.argv[3:]]
magic, version, regions = struct.unpack_from("<IIQ", log, 0)
if magic != 0x4D695272:
    regions = 0
ins = bad = out = 0
for g in range(regions):
    on = (log[1024 + g // 8] >> (g % 8)) & 1
    parts = {im[g * rb:(g + 1) * rb] for im in imgs}
    ins += on
    if on and len(parts) > 1:
        bad += 1
    if not on and len(parts) > 1:
        out += 1
print(ins, regions, bad, out)
PY
}
legs_sum() {  # legs_sum LV I...: the sha256 of those images (read by images)
    local i
    for i in "${@:2}"; do fsum "$SCRATCH/$1.img$i"; done | sort -u | wc -l
}

# D0's data area random (the other PVs zero): leg 0's copy is seen on the others only once
# the resync copied it
uspace_run_ok "random bytes on D0 past 1 MiB (where the extents start)" \
    dd if=/dev/urandom of="${DEVS[0]}" bs=1M seek=1 count=40 oflag=direct status=none
uspace_run_ok "pvcreate, vgcreate (5 PVs)" sh -c \
    "$LVX pvcreate -q ${DEVS[*]} && $LVX vgcreate -q $VG ${DEVS[*]}"

# ---- A. leg 2's PV lost during the initial resync of a 3-leg mirror
FAULT_A="pv=${DEVS[1]},op=write,kind=delay=10;pv=${DEVS[2]},kind=eio,after=150"
restart_daemon "$FAULT_A"
uspace_run_ok "lvcreate --type mirror -m2 -L 32m -R 64k (legs D0 D1 D2, log D3; D1's writes slowed, D2 failing after 150 ops)" \
    lvx lvcreate -q -Zn --type mirror -m2 -L 32m -R 64k -n a "$VG" \
    "${DEVS[0]}" "${DEVS[1]}" "${DEVS[2]}" "${DEVS[3]}"
A=$DM_DEV_DIR/$VG/a
test_ok "the daemon logged leg 2 failed during the resync (its write or its checkpoint's flush)" \
    logged "$VG/a: mirror leg 2 failed (\(write error during resync\|flush error\))"
uspace_run_ok "fio: 4 MiB of crc32c-headed writes while the resync runs degraded, fsync at the end" \
    fio_w wa "$A" 4m --do_verify=0 --end_fsync=1
test_ok "the background resync goes on to its end (logged)" logged "$VG/a: mirror resync done" 300
test_ok "... and never stopped" bash -c "! grep -q '$VG/a: the background mirror resync stopped' '$LOG'"
test_eq "lvs: attr (LVM2's: a mirror's health letter stays '-'), lv_health_status ''" \
    "$(lvsf a lv_attr) '$(lvsf a lv_health_status)'" "mwi-a-m--- ''"
CP=$(lvsf a copy_percent)
test_ok "copy_percent below 100 with leg 2 failed ($CP)" test "${CP%%.*}" -lt 100
uspace_run_ok "fio verifies a (leg 2 failed)" fio_w wa "$A" 4m --verify_only=1
uspace_run_ok "a deactivated (clean stop)" lvx lvchange -an "$VG/a"
test_ok "the stop wrote the log (no 'not written clean')" \
    bash -c "! grep -q '$VG/a: the mirror log was not written clean' '$LOG'"
images a 3
test_eq "legs 0 and 1 hold the same bytes (read from D0, D1)" "$(legs_sum a 0 1)" 1
read -r INS NREG BAD OUT <<<"$(logcheck a 3 65536)"
test_eq "the log: 512 regions, none in sync with the legs differing (in sync $INS)" \
    "$NREG $BAD" "512 0"
test_ok "the checkpoints before the failure recorded progress: 0 < $INS < $NREG in sync" \
    test "$INS" -gt 0 -a "$INS" -lt "$NREG"
test_ok "the failed leg's copy differs where the log says out of sync ($OUT regions)" \
    test "$OUT" -gt 0

restart_daemon
uspace_run_ok "a activated, D2 healthy again" lvx lvchange -ay "$VG/a"
test_ok "the regions out of sync copied ($((NREG - INS)) logged)" \
    logged "$VG/a: $((NREG - INS)) of $NREG mirror regions out of sync"
test_ok "a in sync (polled)" wait_in_sync a
uspace_run_ok "fio verifies a" fio_w wa "$A" 4m --verify_only=1
uspace_run_ok "a deactivated" lvx lvchange -an "$VG/a"
images a 3
test_eq "the three legs hold the same bytes" "$(legs_sum a 0 1 2)" 1
test_eq "the log: every region in sync" "$(logcheck a 3 65536)" "512 512 0 0"

# ---- B. an in-sync 2-leg mirror whose leg 1 PV is lost while in use
uspace_run_ok "lvcreate --type mirror -m1 -L 16m -R 64k b (legs D0 D1, log D3)" \
    lvx lvcreate -q -Zn --type mirror -m1 -L 16m -R 64k -n b "$VG" \
    "${DEVS[0]}" "${DEVS[1]}" "${DEVS[3]}"
B=$DM_DEV_DIR/$VG/b
test_ok "b in sync (polled)" wait_in_sync b
restart_daemon "pv=${DEVS[1]},kind=eio,after=8"
uspace_run_ok "b activated, every op on D1 failing after 8" lvx lvchange -ay "$VG/b"
head -c $((8 * MIB)) /dev/urandom >"$SCRATCH/b.bin"
uspace_run_ok "dd 8 MiB conv=fsync to b (leg 1 lost on the way)" \
    dd if="$SCRATCH/b.bin" of="$B" bs=1M oflag=direct conv=fsync status=none
test_ok "the daemon logged leg 1 failed" logged "$VG/b: mirror leg 1 failed" 10
uspace_run_ok "fio: 4 MiB at 8 MiB, crc32c, fsync every 4 writes" \
    fio_w wb "$B" 4m --offset=8m --do_verify=0 --fsync=4
uspace_run_ok "fio verifies b" fio_w wb "$B" 4m --offset=8m --verify_only=1
uspace_run_ok "dd conv=fsync of 1 MiB again" \
    dd if="$SCRATCH/b.bin" of="$B" bs=1M count=1 oflag=direct conv=fsync status=none
test_eq "b reads the 8 MiB" "$(lv_sum "$B" 0 $((8 * MIB)))" "$(fsum "$SCRATCH/b.bin")"
test_eq "lvs: attr, lv_health_status ''" "$(lvsf b lv_attr) '$(lvsf b lv_health_status)'" \
    "mwi-a-m--- ''"
CP=$(lvsf b copy_percent)
test_ok "copy_percent below 100 ($CP)" test "${CP%%.*}" -lt 100
uspace_run_ok "b deactivated" lvx lvchange -an "$VG/b"
test_ok "the stop wrote the log" bash -c "! grep -q '$VG/b: the mirror log was not written clean' '$LOG'"
images b 2
read -r INS NREG BAD OUT <<<"$(logcheck b 2 65536)"
test_eq "the log: 256 regions, none in sync with the legs differing (in sync $INS)" \
    "$NREG $BAD" "256 0"
test_ok "the regions written degraded out of sync ($((NREG - INS))), leg 1 behind in $OUT" \
    test "$OUT" -gt 0 -a "$INS" -lt "$NREG"

# only D1's datasyncs fail: the leg is failed at the flush (dm-raid1's flush error)
restart_daemon "pv=${DEVS[1]},op=flush,kind=eio"
uspace_run_ok "b activated, D1's datasyncs failing" lvx lvchange -ay "$VG/b"
uspace_run_ok "dd conv=fsync of 1 MiB to b" \
    dd if="$SCRATCH/b.bin" of="$B" bs=1M count=1 oflag=direct conv=fsync status=none
test_ok "leg 1 failed at the flush (logged)" logged "$VG/b: mirror leg 1 failed (flush error)" 10
uspace_run_ok "fio verifies b" fio_w wb "$B" 4m --offset=8m --verify_only=1

# the PV healthy: the activation, then lvchange --refresh, resync leg 1
restart_daemon
uspace_run_ok "b activated, D1 healthy" lvx lvchange -ay "$VG/b"
test_ok "b in sync (polled)" wait_in_sync b
uspace_run_ok "lvchange --refresh b" lvx lvchange --refresh "$VG/b"
test_ok "b in sync after the refresh" wait_in_sync b
uspace_run_ok "fio verifies b" fio_w wb "$B" 4m --offset=8m --verify_only=1
test_eq "b reads the first MiB" "$(lv_sum "$B" 0 "$MIB")" \
    "$(head -c "$MIB" "$SCRATCH/b.bin" | sha256sum | cut -d' ' -f1)"
uspace_run_ok "b deactivated" lvx lvchange -an "$VG/b"
images b 2
test_eq "both legs hold the same bytes" "$(legs_sum b 0 1)" 1
test_eq "the log: every region in sync" "$(logcheck b 2 65536)" "256 256 0 0"
test_ok "LVM2's vgck" lvm2 vgck "$VG"

done_testing
