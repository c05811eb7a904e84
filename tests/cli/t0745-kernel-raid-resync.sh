#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0745-kernel-raid-resync: a RAID LV stopped by lvx's daemon in the middle of its
# background resync (daemon/raid_resync.c) is finished by LVM2 + the kernel's dm-raid in
# a throw-away QEMU guest (tests/kernel/raid-resync.sh):
#   1. host: two disk images full of random bytes (so the legs differ until synced);
#      lvx makes VG ux with raid1 r (-L 32m -R 512k --maxrecoveryrate 1m), writes 4 MiB
#      at its start, and deactivates it once the superblock records progress: the
#      recorded array_resync_offset is above 0 and below the end, the bitmap keeps the
#      regions left dirty, the legs differ above the offset;
#      4 KiB planted in rimage_1 below the offset;
#   2. guest: dm-raid finishes the resync, the data reads back, both legs agree above
#      the offset (whether it copied the plant over, i.e. restarted below the offset,
#      is noted: on 6.12 it did);
#   3. host: lvx's daemon activates r in sync (no resync), the data reads back.
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

uspace_need_guest

uspace_images a b
for l in a b; do
    head -c 48M /dev/urandom | dd of="$DISKS/vd$l.img" bs=1M conv=notrunc status=none
done
mkdir -p "$SCRATCH/data"
uspace_attach a b
uspace_test_env ux "${D[@]}"
source "$LVX_ROOT/tests/tools/raid-pvread.sh"
VG=ux
LOG=$LVX_RUN_DIR/lvxd.log
MIB=1048576

uspace_run_ok "lvx pvcreate, vgcreate ux" sh -c "'$LVX' pvcreate -q ${D[*]} && '$LVX' vgcreate -q ux ${D[*]}"
uspace_run_ok "lvx lvcreate --type raid1 -m1 -L 32m -R 512k --maxrecoveryrate 1m ux/r" \
    lvx lvcreate -q -Zn --type raid1 -m1 -L 32m -R 512k --maxrecoveryrate 1m -n r ux
head -c $((4 * MIB)) /dev/urandom >"$SCRATCH/data/head.bin"
uspace_run_ok "4 MiB written at the start of ux/r during its resync" \
    dd if="$SCRATCH/data/head.bin" of="$DM_DEV_DIR/ux/r" bs=1M oflag=direct conv=fsync status=none
report r_rmeta_0
off=ffffffffffffffff
for _ in $(seq 300); do    # until a checkpoint recorded more than the written regions
    off=$(sb_field r_rmeta_0 resync)
    [[ $off != ffffffffffffffff ]] && (($((16#$off)) > 4 * 2048)) && break
    sleep 0.1
done
uspace_run_ok "lvx deactivates ux/r mid-resync (a clean stop)" lvx lvchange -an ux/r
off=$(sb_field r_rmeta_0 resync)
test_ok "the superblock records the resync offset: 0 < $off < 65536 sectors" \
    test "$off" != ffffffffffffffff -a "$((16#$off))" -gt 0 -a "$((16#$off))" -lt 65536
test_ok "the bitmap keeps the regions left dirty ($(sb_field r_rmeta_0 dirty))" \
    test "$(sb_field r_rmeta_0 dirty)" -gt 0
report r_rimage_0
report r_rimage_1
test_ok "the legs still differ in their last 8 MiB" \
    test "$(pv_sum r_rimage_0 $((24 * MIB)) $((8 * MIB)))" != "$(pv_sum r_rimage_1 $((24 * MIB)) $((8 * MIB)))"
echo $((16#$off)) >"$SCRATCH/data/offset"
# a difference below the offset (region 8, past the written 4 MiB): the kernel copies
# it over only if it restarts below the offset
pv_plant r_rimage_1 $((4 * MIB + 4096))
pv_get r_rimage_1 $((4 * MIB + 4096)) 4096 "$SCRATCH/data/plant.bin"
test_ok "4 KiB planted in rimage_1 below the offset" \
    test "$(fsum "$SCRATCH/data/plant.bin")" != "$(pv_sum r_rimage_0 $((4 * MIB + 4096)) 4096)"
uspace_cleanup
for d in "${D[@]}"; do detach_loop "$d"; done

KERNEL_GUEST_MORE=1 kernel_guest_test raid-resync.sh 2 256M 300 --disk-dir "$DISKS" --reuse-disks \
    --put "$SCRATCH/data:/t/data"

uspace_attach a b
uspace_env "$SCRATCH/us" "${D[@]}"
lvm_sandbox "${D[@]}"
: >"$LOG"
uspace_run_ok "lvx activates ux/r after the kernel's resync" lvx lvchange -ay ux/r
test_eq "in sync at once: sync_percent 100.00" \
    "$(lvx lvs --noheadings -o sync_percent ux/r 2>/dev/null | tr -d ' ')" "100.00"
test_ok "no resync started by the daemon" sh -c "! grep -q 'to resync\|resync resumed\|full initial sync' '$LOG'"
test_eq "ux/r reads the data" "$(lv_sum "$DM_DEV_DIR/ux/r" 0 $((4 * MIB)))" "$(fsum "$SCRATCH/data/head.bin")"
uspace_run_ok "deactivate ux" lvx vgchange -an ux
done_testing
