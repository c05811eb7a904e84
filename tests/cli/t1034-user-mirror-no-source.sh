#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1034-user-mirror-no-source: the lvx daemon copies a live lvconvert -m +1's new
# image from the old ones (review s7 R8).  When every old image failed before the
# copy ended, the copy took the first live leg -- the new one -- as its source: the
# regions left were "copied" from it to itself, counted in sync, and reads returned
# what the new image held (zeros) as the LV's data.  Now a copy reads only a leg that
# holds the data; with none left the regions not yet copied give EIO, never zeros.
# LVX_TEST_DP_FAULT (dev/io.h) in the daemon: reads of the old PVs delayed 150 ms (the
# copy is slow enough to be caught), writes to them fail with EIO (a write to m
# fails both old legs).
#   - mirror m (-m1, 16 MiB, 512 KiB regions, images D0 D1, log D2), random data;
#   - the daemon restarted with the faults, m active; lvconvert -y -m +1 onto D3 in the
#     background; once the copy has begun, 4 KiB written at the start of m (the old
#     legs fail, the write lands on the new one);
#   - the last MiB of m, not copied yet, reads as EIO (the old binary returned zeros);
#     the first 4 KiB read back as written; the daemon logged the copy's failure;
#     copy_percent stays below 100; lvconvert's wait ends with exit 5 and a line saying
#     an image failed before the copy ended (it said "Converted: 100.00%").
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"
source "$LVX_ROOT/tests/tools/mirror_layer.sh"

VG=vgmns$$
uspace_test_loops "$VG" 4 48M
MIB=1048576
LOG=$LVX_RUN_DIR/lvxd.log
M=$DM_DEV_DIR/$VG/m

uspace_run_ok "pvcreate, vgcreate" sh -c "$LVX pvcreate ${DEVS[*]} && $LVX vgcreate $VG ${DEVS[*]}"
uspace_run_ok "mirror m: -m1, 16 MiB, -R 512k, images on D0 D1, log on D2" \
    lvx lvcreate -Zn --type mirror -m1 -R 512k -L 16m -n m "$VG" "${DEVS[0]}" "${DEVS[1]}" "${DEVS[2]}"
for _ in $(seq 300); do [[ $(field "$VG/m" copy_percent) == 100.00 ]] && break; sleep 0.1; done
head -c $((16 * MIB)) /dev/urandom >"$SCRATCH/d"
uspace_run_ok "16 MiB of random data written to m" \
    dd if="$SCRATCH/d" of="$M" bs=1M oflag=direct conv=fsync status=none
test_eq "m in sync" "$(field "$VG/m" copy_percent)" "100.00"
uspace_stop_daemon "$VG"
test_ok "the daemon stopped" test -z "$(uspace_daemon_pids)"

FAULT="pv=${DEVS[0]},op=read,kind=delay=150;pv=${DEVS[1]},op=read,kind=delay=150"
FAULT+=";pv=${DEVS[0]},op=write,kind=eio;pv=${DEVS[1]},op=write,kind=eio"
LVX_TEST_DP_FAULT=$FAULT lvx lvchange -ay "$VG/m" >"$SCRATCH/o" 2>&1
_tap_result $? "m activated by a daemon with the faults (old PVs: reads slow, writes EIO)"
: >"$LOG"
timeout 120 "$LVX" lvconvert -y -m +1 "$VG/m" "${DEVS[3]}" >"$SCRATCH/conv.out" 2>&1 &
CONV=$!
for _ in $(seq 100); do grep -q "mirror regions out of sync" "$LOG" && break; sleep 0.05; done
test_ok "the daemon began copying to the new image" grep -q "mirror regions out of sync" "$LOG"
head -c 4096 /dev/urandom >"$SCRATCH/w"
uspace_run_ok "4 KiB written at the start of m (the old legs' writes fail)" \
    dd if="$SCRATCH/w" of="$M" bs=4096 oflag=direct conv=fsync,notrunc status=none
test_ok "the daemon failed both old legs" sh -c \
    "grep -q '$VG/m: mirror leg 0 failed' '$LOG' && grep -q '$VG/m: mirror leg 1 failed' '$LOG'"
rc=0
dd if="$M" of="$SCRATCH/last" bs=1M skip=15 count=1 iflag=direct status=none 2>"$SCRATCH/dd.err" || rc=$?
test_ok "the last MiB (not copied) is not read as data: EIO (the old binary read zeros)" \
    sh -c "[ $rc -ne 0 ] && grep -q 'Input/output error' '$SCRATCH/dd.err'"
test_ok "... and no zeros were returned" bash -c "! cmp -s '$SCRATCH/last' <(head -c $MIB /dev/zero)"
test_eq "the first 4 KiB read back as written" \
    "$(dd if="$M" bs=4096 count=1 iflag=direct status=none | sha256sum | cut -d' ' -f1)" \
    "$(fsum "$SCRATCH/w")"
test_ok "the daemon logged that the copy has no source left" \
    grep -q "$VG/m: resync of mirror region [0-9]* failed" "$LOG"
CP=$(field "$VG/m" copy_percent)
test_ok "copy_percent stays below 100 ($CP)" test "${CP%%.*}" -lt 100
rc=0
wait "$CONV" || rc=$?
test_eq "lvconvert: exit 5, the copy's end not claimed (no 'Converted: 100.00%')" \
    "$rc $(grep -c "an image failed before the copy to the new images ended" "$SCRATCH/conv.out") $(grep -c 'Converted: 100.00%' "$SCRATCH/conv.out")" \
    "5 1 0" || sed 's/^/# /' "$SCRATCH/conv.out"
uspace_run_ok "deactivate" lvx vgchange -an "$VG"
done_testing
