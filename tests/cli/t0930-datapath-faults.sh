#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0930-datapath-faults: faults injected into the lvx daemon's datapath through the I/O
# seam (LVX_TEST_DP_FAULT, dev/io.h; read by the lvx program that starts the daemon),
# with user-space activation of a 2-stripe LV (64k stripes) and a linear LV over two
# loop devices.  For each fault, on one PV only (chosen by path or by PV index):
#   - EIO on write reaches the writer: dd oflag=direct fails, a buffered write's
#     fsync fails; nothing of the failed piece is on that PV; writes to the other PV
#     still work;
#   - EIO on read reaches the reader (dd iflag=direct), reads from the other PV work;
#   - short writes / reads: a few are completed by the daemon (the data on the PVs,
#     read directly, is exactly what was written; reads return the right bytes), and
#     when every retry is short too the writer gets EIO (never a silent partial write);
#   - delay: the write takes at least the delay and the data is on the PVs;
#   - lost flush (the flush is not done and fails): the writer's fsync fails; the PV
#     stays dirty, so the next fsync syncs it again and succeeds;
#   - EIO on zeroing (blkdiscard -z) reaches blkdiscard;
# the daemon logs every failed request (LV, offset, PV); the data fsync'd before the faults is intact on the PVs (read directly where LVM2's
# report places it) after each fault, the daemon's worker never dies, and a malformed
# LVX_TEST_DP_FAULT is refused by lvx before anything starts.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

need_loop
need_lvx
need_cmd lvm mountpoint blkdiscard dd sha256sum
[[ -c /dev/fuse ]] || skip_all "no /dev/fuse"

VG=vgdpf$$

DEVS=()
for i in 0 1; do DEVS+=("$(make_loop 96M)"); done
uspace_test_env "$VG" "${DEVS[@]}"
PVREAD=$LVX_ROOT/tests/tools/lv_pvread.py
MIB=1048576

# expect_eio DESCRIPTION CMD...: the command fails and says "Input/output error"
expect_eio() {
    local desc=$1
    shift
    "$@" >"$SCRATCH/out" 2>&1
    local rc=$?
    if ((rc != 0)) && grep -q "Input/output error" "$SCRATCH/out"; then
        _tap_result 0 "$desc"
    else
        _tap_result 1 "$desc"
        diag "exit status $rc"
        _diag_file "output" "$SCRATCH/out"
    fi
}

uspace_run_ok "pvcreate" lvx pvcreate "${DEVS[@]}"
uspace_run_ok "vgcreate $VG" lvx vgcreate "$VG" "${DEVS[@]}"
uspace_run_ok "lvcreate s2 (-i 2 -I 64k, 32m)" lvx lvcreate -Zn -n s2 -i 2 -I 64k -L 32m "$VG"
uspace_run_ok "lvcreate lin (linear, 8m on the second PV)" lvx lvcreate -Zn -n lin -L 8m "$VG" "${DEVS[1]}"
S2=$DM_DEV_DIR/$VG/s2
LIN=$DM_DEV_DIR/$VG/lin
test_ok "$S2 is a block device (private DM_DEV_DIR)" test -b "$S2"

# where the LVs live, from LVM2's own report (the oracle of lv_pvread.py)
report() {  # report LV: SCRATCH/LV.segs.json (+ pvs.json, vgs.json)
    lvm2 lvs --segments -o lv_name,seg_start,seg_size,stripes,stripe_size,seg_pe_ranges \
        --units s --nosuffix --reportformat json "$VG/$1" >"$SCRATCH/$1.segs.json" 2>/dev/null
    lvm2 pvs -o pv_name,pe_start --units s --nosuffix --reportformat json >"$SCRATCH/pvs.json" 2>/dev/null
    lvm2 vgs -o vg_extent_size --units s --nosuffix --reportformat json "$VG" >"$SCRATCH/vgs.json" 2>/dev/null
}
report s2
report lin
test_ok "LVM2 reports the segments of s2" grep -q seg_pe_ranges "$SCRATCH/s2.segs.json"

# pv_sum LV OFFSET LENGTH: sha256 of the LV's bytes read directly from the PVs
pv_sum() {
    "$PYTHON" "$PVREAD" "$SCRATCH/$1.segs.json" "$SCRATCH/pvs.json" "$SCRATCH/vgs.json" \
        "$2" "$3" "$SCRATCH/pvread.bin" >"$SCRATCH/pvread.out" 2>&1 || { echo "pvread failed"; return; }
    sha256sum <"$SCRATCH/pvread.bin" | cut -d' ' -f1
}
fsum() { sha256sum <"$1" | cut -d' ' -f1; }
# lv_sum DEV OFFSET LENGTH: sha256 of the bytes read through the LV (direct I/O)
lv_sum() {
    dd if="$1" iflag=direct,skip_bytes,count_bytes skip="$2" count="$3" bs=64k status=none | sha256sum | cut -d' ' -f1
}

worker_pid() { read -r _ w <<<"$(uspace_daemon_pids)"; echo "$w"; }

# restart_daemon SPEC: deactivate, stop the daemon, start it again (by activating the
# LVs) with LVX_TEST_DP_FAULT=SPEC and the injections logged to SCRATCH/io.log
restart_daemon() {
    lvx vgchange -an "$VG" >"$SCRATCH/restart.out" 2>&1
    lvx daemon stop >>"$SCRATCH/restart.out" 2>&1
    for _ in $(seq 100); do [[ -z $(uspace_daemon_pids) ]] && break; sleep 0.1; done
    : >"$SCRATCH/io.log"
    if [[ -n $1 ]]; then
        LVX_TEST_DP_FAULT=$1 LVX_TEST_IO_LOG=$SCRATCH/io.log lvx vgchange -ay "$VG" >>"$SCRATCH/restart.out" 2>&1
    else
        lvx vgchange -ay "$VG" >>"$SCRATCH/restart.out" 2>&1
    fi
    local rc=$?
    _tap_result $((rc != 0)) "daemon restarted with LVX_TEST_DP_FAULT='$1'"
    ((rc == 0)) || _diag_file "output" "$SCRATCH/restart.out"
    WORKER=$(worker_pid)
}
injected() { grep -c "^dpfault $1 " "$SCRATCH/io.log"; }
still_same_worker() {
    test_eq "$1: the daemon's worker did not die" "$(worker_pid)" "$WORKER"
}

# ------------------------------------------------------------ fsync'd base data
head -c $((4 * MIB)) /dev/urandom >"$SCRATCH/base"
head -c $((4 * MIB)) /dev/urandom >"$SCRATCH/base_lin"
uspace_run_ok "write 4 MiB to s2 (direct, fsync)" dd if="$SCRATCH/base" of="$S2" bs=1M oflag=direct conv=fsync,notrunc status=none
uspace_run_ok "write 4 MiB to lin (direct, fsync)" dd if="$SCRATCH/base_lin" of="$LIN" bs=1M oflag=direct conv=fsync,notrunc status=none
BASE=$(fsum "$SCRATCH/base")
BASE_LIN=$(fsum "$SCRATCH/base_lin")
test_eq "s2: the PVs hold the fsync'd data (read directly)" "$(pv_sum s2 0 $((4 * MIB)))" "$BASE"
test_eq "lin: the PV holds the fsync'd data (read directly)" "$(pv_sum lin 0 $((4 * MIB)))" "$BASE_LIN"
base_intact() {
    test_eq "$1: fsync'd data of s2 intact on the PVs" "$(pv_sum s2 0 $((4 * MIB)))" "$BASE"
    test_eq "$1: fsync'd data of lin intact on the PV" "$(pv_sum lin 0 $((4 * MIB)))" "$BASE_LIN"
}

# a 1 MiB chunk to write at 8 MiB of s2 (half of it on each PV: 8 stripes of 64k each)
head -c $MIB /dev/urandom >"$SCRATCH/new"
NEW=$(fsum "$SCRATCH/new")
OFF=$((8 * MIB))
write_new() {  # write_new DEV OFFSET [direct|buffered]
    if [[ ${3:-direct} == direct ]]; then
        dd if="$SCRATCH/new" of="$1" bs=1M oflag=direct,seek_bytes seek="$2" conv=fsync,notrunc status=none
    else
        dd if="$SCRATCH/new" of="$1" bs=1M oflag=seek_bytes seek="$2" conv=fsync,notrunc status=none
    fi
}

# ------------------------------------------------------------ EIO on writes (PV by path)
restart_daemon "pv=${DEVS[1]},op=write,kind=eio"
dd if=/dev/zero of="$S2" bs=1M count=1 oflag=direct,seek_bytes seek=$OFF conv=notrunc status=none 2>/dev/null
expect_eio "write EIO on PV 1: dd oflag=direct to s2 fails with EIO" write_new "$S2" $OFF
test_ok "... the fault was injected" test "$(injected eio)" -gt 0
expect_eio "write EIO on PV 1: a buffered write's fsync fails with EIO" write_new "$S2" $((12 * MIB)) buffered
expect_eio "write EIO on PV 1: dd oflag=direct to lin (on PV 1) fails" write_new "$LIN" $((6 * MIB))
uspace_run_ok "write EIO on PV 1: a 64k write to s2's first stripe (PV 0) works" \
    dd if="$SCRATCH/new" of="$S2" bs=64k count=1 oflag=direct,seek_bytes seek=$((16 * MIB)) conv=fsync,notrunc status=none
test_eq "... and is on PV 0" "$(pv_sum s2 $((16 * MIB)) 65536)" "$(head -c 65536 "$SCRATCH/new" | sha256sum | cut -d' ' -f1)"
# the failed write: none of its PV 1 stripes (the odd 64k chunks) changed
head -c $MIB /dev/zero >"$SCRATCH/zero"
"$PYTHON" "$PVREAD" "$SCRATCH/s2.segs.json" "$SCRATCH/pvs.json" "$SCRATCH/vgs.json" $OFF $MIB "$SCRATCH/after" >/dev/null
odd_same=1
for c in 1 3 5 7; do
    cmp -s <(dd if="$SCRATCH/after" bs=64k skip=$c count=1 status=none) \
        <(dd if="$SCRATCH/zero" bs=64k skip=$c count=1 status=none) || odd_same=0
done
test_eq "... nothing of the failed pieces reached PV 1" "$odd_same" 1
LOG=$LVX_RUN_DIR/lvxd.log
test_ok "... the daemon's log names the failed write and PV 1" \
    grep -q "$VG/s2: write of [0-9]* bytes at [0-9]* failed: Input/output error (PV ${DEVS[1]}, byte " "$LOG"
diag "daemon log: $(grep -m1 'failed: Input/output error' "$LOG" | cut -d' ' -f3-)"
still_same_worker "write EIO"
base_intact "after write EIO"

# ------------------------------------------------------------ EIO on reads (PV by index)
restart_daemon "pv=0,op=read,kind=eio"
expect_eio "read EIO on PV 0: dd iflag=direct of s2 fails with EIO" \
    dd if="$S2" of=/dev/null bs=1M count=1 iflag=direct status=none
test_ok "... the fault was injected on PV index 0" grep -q "^dpfault eio 0 " "$SCRATCH/io.log"
test_eq "read EIO on PV 0: lin (on PV 1) reads back" "$(lv_sum "$LIN" 0 $((4 * MIB)))" "$BASE_LIN"
test_eq "read EIO on PV 0: s2's second stripe (PV 1) reads back" "$(lv_sum "$S2" 65536 65536)" \
    "$(dd if="$SCRATCH/base" bs=64k skip=1 count=1 status=none | sha256sum | cut -d' ' -f1)"
test_ok "... the daemon's log names the failed read and PV 0" \
    grep -q "$VG/s2: read of .* failed: Input/output error (PV ${DEVS[0]}, byte " "$LOG"
still_same_worker "read EIO"

# ------------------------------------------------------------ short transfers
restart_daemon "pv=${DEVS[1]},op=write,kind=short,count=3;pv=${DEVS[0]},op=read,kind=short,after=2,count=4"
uspace_run_ok "3 short writes on PV 1: the 1 MiB direct write succeeds" write_new "$S2" $OFF
test_eq "... exactly 3 short writes were injected on PV 1" "$(grep -c "^dpfault short 1 " "$SCRATCH/io.log")" 3
test_eq "... the PVs hold exactly the written MiB (read directly)" "$(pv_sum s2 $OFF $MIB)" "$NEW"
test_eq "4 short reads on PV 0: s2 reads back right" "$(lv_sum "$S2" 0 $((4 * MIB)))" "$BASE"
test_eq "... 4 short reads were injected on PV 0" "$(grep -c "^dpfault short 0 " "$SCRATCH/io.log")" 4
still_same_worker "short"
base_intact "after short transfers"

restart_daemon "pv=${DEVS[1]},op=write,kind=short"
expect_eio "every write on PV 1 short: the writer gets EIO (no silent partial write)" \
    write_new "$S2" $((20 * MIB))
test_ok "... after the daemon retried the rest (many short writes)" \
    test "$(grep -c "^dpfault short " "$SCRATCH/io.log")" -gt 8
still_same_worker "always short"

# ------------------------------------------------------------ delays
restart_daemon "pv=${DEVS[0]},op=write,kind=delay=400"
head -c $MIB /dev/urandom >"$SCRATCH/new"
NEW=$(fsum "$SCRATCH/new")
t0=$(date +%s%N)
uspace_run_ok "writes on PV 0 delayed 400 ms: the 1 MiB direct write succeeds" write_new "$S2" $OFF
ms=$((($(date +%s%N) - t0) / 1000000))
diag "delayed write took $ms ms"
test_ok "... and took at least 400 ms ($ms ms)" test "$ms" -ge 400
test_eq "... the data is on the PVs" "$(pv_sum s2 $OFF $MIB)" "$NEW"
still_same_worker "delay"

# ------------------------------------------------------------ lost flush
restart_daemon "pv=${DEVS[1]},op=flush,kind=lostflush,count=1"
head -c $MIB /dev/urandom >"$SCRATCH/new"
NEW=$(fsum "$SCRATCH/new")
expect_eio "lost flush on PV 1: the writer's fsync fails with EIO" write_new "$S2" $OFF
test_eq "... one lost flush was injected" "$(injected lostflush)" 1
test_ok "... the daemon's log names the failed flush and PV 1" \
    grep -q "$VG/s2: flush failed: Input/output error (PV ${DEVS[1]}, byte 0)" "$LOG" ||
    diag "the daemon's error lines: $(grep -E 'failed|error' "$LOG" | tail -4)"
base_intact "after the lost flush"
uspace_run_ok "the next fsync (the PV stayed dirty, synced again) succeeds" \
    "$PYTHON" -c "import os; fd = os.open('$S2', os.O_WRONLY); os.fsync(fd)"
test_eq "... the data written before the lost flush is on the PVs" "$(pv_sum s2 $OFF $MIB)" "$NEW"
still_same_worker "lost flush"

# ------------------------------------------------------------ zeroing
restart_daemon "pv=${DEVS[1]},op=zero,kind=eio"
expect_eio "zeroing EIO on PV 1: blkdiscard -z of lin fails" blkdiscard -z -o 0 -l $MIB "$LIN"
test_eq "... lin's data is untouched on the PV" "$(pv_sum lin 0 $((4 * MIB)))" "$BASE_LIN"
still_same_worker "zero EIO"

# ------------------------------------------------------------ no faults: all intact
restart_daemon ""
test_eq "without faults: s2 reads back through the LV" "$(lv_sum "$S2" 0 $((4 * MIB)))" "$BASE"
test_eq "without faults: lin reads back through the LV" "$(lv_sum "$LIN" 0 $((4 * MIB)))" "$BASE_LIN"
base_intact "at the end"
test_ok "no worker restarts in the daemon's log" sh -c "! grep -q 'killed by signal' '$LVX_RUN_DIR/lvxd.log'"

# ------------------------------------------------------------ malformed rules
for bad in "kind=eio" "pv=/nonexistent/dev,kind=eio" "pv=0,kind=boom" "pv=0,op=read,kind=lostflush" \
    "pv=0,kind=eio,after=x" "pv=0,kind=delay=abc" "pv=0,kind=eio,color=red"; do
    LVX_TEST_DP_FAULT=$bad lvx vgs "$VG" >"$SCRATCH/out" 2>&1
    rc=$?
    test_eq "LVX_TEST_DP_FAULT='$bad' is refused with exit 3" "$rc" 3
done
test_ok "... saying why" grep -q "Invalid LVX_TEST_DP_FAULT: color: unknown key" "$SCRATCH/out"

uspace_run_ok "vgchange -an" lvx vgchange -an "$VG"
uspace_run_ok "vgremove -f" lvx vgremove -f "$VG"
uspace_run_ok "lvx daemon stop" lvx daemon stop
for _ in $(seq 50); do [[ -z $(uspace_daemon_pids) ]] && break; sleep 0.1; done
uspace_leftovers >"$SCRATCH/left" 2>&1
test_ok "no loop device, mount or daemon left behind" test ! -s "$SCRATCH/left"
done_testing
