#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0748-kernel-user-mirror-resync: LVM2 + the kernel's dm-mirror in a throw-away QEMU
# guest (tests/kernel/user-mirror-resync.sh) take over two mirrors lvx left mid-way:
#   1. host: on four disk images (loop devices), lvx's daemon makes VG ur with a
#      disk-log mirror m (-m1, 8 MiB, data written, in sync, clean stop), then
#      `lvx lvconvert -m+1 ur/m` while inactive writes LVM2's resync layer
#      (m_mimagetmp_2 over the old images and m_mlog, kept in sync; m_mimage_2 not yet
#      holding the data); and a disk-log mirror k (-m1, 16 MiB, 64 KiB
#      regions, writes to one leg slowed) written while its background resync runs,
#      then the daemon SIGKILLed once the log on disk records part of the resync;
#   2. guest: LVM2 activates both (no poll): m stacked over its layer, the top copies
#      the new third image, LVM2's `lvconvert ur/m` then collapses it (3 images); k
#      resyncs the rest; each reaches N/N, reads lvx's bytes, and its images hold the
#      same bytes.
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

uspace_need_guest
uspace_images a b c d
mkdir -p "$SCRATCH/data"
uspace_attach a b c d
uspace_test_env ur "${D[@]}"
LOG=$LVX_RUN_DIR/lvxd.log
MIB=1048576
source "$LVX_ROOT/tests/tools/raid-pvread.sh"
wait_in_sync() {
    for _ in $(seq 600); do
        [[ $(field "ur/$1" copy_percent) == 100.00 ]] && return 0
        sleep 0.2
    done
    return 1
}
mlog_insync() {  # "<bits set among nr_regions> <nr_regions>" of MLOG on disk
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

# ---- 1. lvx leaves m converted and k mid-resync
VG=ur
uspace_run_ok "lvx pvcreate (vda-vdd)" lvx pvcreate -q "${D[@]}"
uspace_run_ok "lvx vgcreate ur" lvx vgcreate -q ur "${D[@]}"
uspace_run_ok "lvx lvcreate --type mirror -m1 -L 8m ur/m" \
    lvx lvcreate -q --type mirror -m1 -L 8m -n m ur "${D[0]}" "${D[1]}" "${D[2]}"
head -c $((8 * MIB)) /dev/urandom >"$SCRATCH/data/m.bin"
uspace_run_ok "ur/m: 8M written through the daemon" dd if="$SCRATCH/data/m.bin" \
    of="$DM_DEV_DIR/ur/m" bs=1M oflag=direct conv=fsync status=none
test_ok "ur/m in sync (polled)" wait_in_sync m
uspace_run_ok "deactivate ur/m" lvx lvchange -an ur/m
uspace_run_ok "lvx lvconvert -y -m+1 ur/m (inactive)" lvx lvconvert -y -m+1 ur/m
report m_mimage_2
test_ok "m_mimage_2 does not hold the data yet" \
    test "$(pv_sum m_mimage_2 0 $((8 * MIB)))" != "$(fsum "$SCRATCH/data/m.bin")"
test_eq "m over LVM2's resync layer m_mimagetmp_2 and the new image" \
    "$(lvm2 lvs --noheadings -o devices ur/m 2>/dev/null | tr -d ' ')" "m_mimagetmp_2(0),m_mimage_2(0)"
read -r MINS MNREG <<<"$(mlog_insync m_mlog)"
test_ok "m_mlog kept, every region in sync ($MINS of $MNREG: the old images agree)" \
    test "$MINS" -gt 0 -a "$MINS" = "$MNREG"

uspace_stop_daemon ur
LVX_TEST_DP_FAULT="pv=${D[1]},op=write,kind=delay=20" lvx lvcreate -q --type mirror -m1 \
    -L 16m -R 64k -n k ur "${D[0]}" "${D[1]}" "${D[2]}" >"$SCRATCH/o" 2>&1
_tap_result $? "lvx lvcreate k -L 16m -R 64k (writes to ${D[1]} slowed)"
head -c $((4 * MIB)) /dev/urandom >"$SCRATCH/data/k.bin"
uspace_run_ok "ur/k: 4M written during the resync" dd if="$SCRATCH/data/k.bin" \
    of="$DM_DEV_DIR/ur/k" bs=1M oflag=direct conv=fsync status=none
ins=0
for _ in $(seq 300); do
    read -r ins _ <<<"$(mlog_insync k_mlog)"
    [[ $ins -gt 64 ]] && break
    sleep 0.1
done
uspace_kill_daemon
read -r INS NREG <<<"$(mlog_insync k_mlog)"
test_ok "k's log on disk: part of the resync recorded (0 < $INS < $NREG)" \
    test "$INS" -gt 0 -a "$INS" -lt "$NREG"
for d in "${D[@]}"; do detach_loop "$d"; done

# ---- 2. the guest
KERNEL_GUEST_MORE=1 kernel_guest_test user-mirror-resync.sh 4 64M 280 --disk-dir "$DISKS" \
    --reuse-disks --put "$SCRATCH/data:/t/data"
done_testing
