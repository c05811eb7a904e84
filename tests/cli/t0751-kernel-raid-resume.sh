#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0751-kernel-raid-resume: a RAID resync moves between lvx's daemon and LVM2 + the
# kernel's dm-raid (a throw-away QEMU guest, tests/kernel/raid-resume.sh) without
# starting again, both ways:
#   1. host: two disk images full of random bytes (the legs differ until synced); lvx
#      makes VG ux with raid1 r (-L 32m -R 512k --maxrecoveryrate 1m), writes 4 MiB at
#      its start and deactivates it once the bitmap records 6 MiB done: the superblock
#      says array_resync_offset 0, the regions done are clean, those left dirty (the
#      position lvx resumes at, and dm-raid by its bitmap); 4 KiB planted in rimage_1
#      in region 10 and in the last region below that position;
#   2. guest: dm-raid resumes r there (a bitmap-driven "resync", the planted bytes below
#      untouched), the data reads back, the legs agree above it;
#      LVM2 creates raid1 k (--maxrecoveryrate 1m), writes 4 MiB and deactivates it in
#      the middle of the kernel's initial resync;
#   3. host: lvx's daemon activates r in sync (no resync) and reads its data;
#      k's superblocks record the kernel's offset; 4 KiB planted in k_rimage_1
#      below it; lvx's daemon resumes k there (logged), leaves the plant alone, reads
#      the data back, and ends with both legs equal above the offset.
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

uspace_need_guest

uspace_images a b
for l in a b; do
    head -c 96M /dev/urandom | dd of="$DISKS/vd$l.img" bs=1M conv=notrunc status=none
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
head -c $((4 * MIB)) /dev/urandom >"$SCRATCH/data/khead.bin"
uspace_run_ok "4 MiB written at the start of ux/r during its resync" \
    dd if="$SCRATCH/data/head.bin" of="$DM_DEV_DIR/ux/r" bs=1M oflag=direct conv=fsync status=none
report r_rmeta_0
sb_wait_dirty r_rmeta_0 12 >/dev/null   # until a checkpoint recorded more than 6 MiB
uspace_run_ok "lvx deactivates ux/r mid-resync" lvx lvchange -an ux/r
test_eq "r: the superblock records a resync left to the bitmap (array_resync_offset 0)" \
    "$(sb_field r_rmeta_0 resync)" 0
first=$(sb_field r_rmeta_0 first_dirty)
test_ok "r: the regions done are clean, those left dirty (first dirty region $first of 64)" \
    test "$first" -gt 12 -a "$first" -lt 64 -a "$(sb_field r_rmeta_0 dirty)" -eq $((64 - first))
diag "r_rmeta_0 bits: $(sb_field r_rmeta_0 bits)"
off=$((first * 1024))      # lvx's position: every region below it in sync
echo "$off" >"$SCRATCH/data/offset"
report r_rimage_1
# 4 KiB planted in region 10 (5 MiB, two regions and more below the offset, past the
# data), and 4 KiB in the last region below the offset
pv_plant r_rimage_1 $((5 * MIB + 4096))
pv_get r_rimage_1 $((5 * MIB + 4096)) 4096 "$SCRATCH/data/plant.bin"
pv_plant r_rimage_1 $((off * 512 - 512 * 1024 + 4096))
pv_get r_rimage_1 $((off * 512 - 512 * 1024 + 4096)) 4096 "$SCRATCH/data/plant2.bin"
uspace_cleanup
for d in "${D[@]}"; do detach_loop "$d"; done

KERNEL_GUEST_MORE=1 kernel_guest_test raid-resume.sh 2 256M 240 --disk-dir "$DISKS" --reuse-disks \
    --put "$SCRATCH/data:/t/data"

uspace_attach a b
uspace_env "$SCRATCH/us" "${D[@]}"
lvm_sandbox "${D[@]}"
: >"$LOG"
uspace_run_ok "lvx activates ux/r after the kernel's resync" lvx lvchange -ay ux/r
test_eq "r in sync at once: sync_percent 100.00" \
    "$(lvx lvs --noheadings -o sync_percent ux/r 2>/dev/null | tr -d ' ')" "100.00"
test_ok "r: no resync started by the daemon" \
    sh -c "! grep -q 'ux/r: .*\(to resync\|resync resumed\|full initial sync\)' '$LOG'"
test_eq "ux/r reads the data" "$(lv_sum "$DM_DEV_DIR/ux/r" 0 $((4 * MIB)))" "$(fsum "$SCRATCH/data/head.bin")"
uspace_run_ok "lvx deactivates ux/r" lvx lvchange -an ux/r
report k_rmeta_0
koff=$(sb_field k_rmeta_0 resync)
test_ok "k: the superblock records the kernel's resync offset: 10240 < $koff < 65536 sectors" \
    test "$koff" != ffffffffffffffff -a "$((16#$koff))" -gt 10240 -a "$((16#$koff))" -lt 65536
koff=$((16#$koff))
report k_rimage_0
report k_rimage_1
# 4 KiB planted in region 8 (4 MiB), past the data and below the kernel's offset
pv_plant k_rimage_1 $((4 * MIB + 4096))
pv_get k_rimage_1 $((4 * MIB + 4096)) 4096 "$SCRATCH/kplant.bin"
: >"$LOG"
uspace_run_ok "lvx activates ux/k (the kernel stopped its resync)" lvx lvchange -ay ux/k
test_ok "the daemon resumes the kernel's resync at sector $koff (logged)" \
    grep -q "k: resync resumed at sector $koff\$" "$LOG"
test_ok "k reaches sync_percent 100.00 in lvx's daemon (polled)" wait_synced k
test_eq "ux/k reads the data written in the guest" "$(lv_sum "$DM_DEV_DIR/ux/k" 0 $((4 * MIB)))" \
    "$(fsum "$SCRATCH/data/khead.bin")"
uspace_run_ok "deactivate ux" lvx vgchange -an ux
test_eq "below the kernel's offset the daemon copied nothing: the plant is still in k_rimage_1" \
    "$(pv_sum k_rimage_1 $((4 * MIB + 4096)) 4096)" "$(fsum "$SCRATCH/kplant.bin")"
test_eq "above the offset both rimages of k hold the same bytes" \
    "$(pv_sum k_rimage_1 $((koff * 512)) $((32 * MIB - koff * 512)))" \
    "$(pv_sum k_rimage_0 $((koff * 512)) $((32 * MIB - koff * 512)))"
test_eq "k_rmeta_0: in sync after the clean stop" \
    "$(sb_field k_rmeta_0 resync) $(sb_field k_rmeta_0 dirty)" "ffffffffffffffff 0"
done_testing
