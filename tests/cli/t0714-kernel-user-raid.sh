#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0714-kernel-user-raid: the same RAID disks move between lvx's user-space daemon
# (daemon/target_raid.c) on the host and LVM2 + the kernel's dm-raid in a throw-away
# QEMU guest (tests/kernel/user-raid.sh), in both directions, without a resync:
#   1. host: on five 80 MiB disk images (loop devices), lvx makes VG ux with raid1 r1,
#      raid10 r10 (8 MiB each), raid5 r5, raid6 r6, raid6_nc r6c and raid6_n_6 r6n (-i3,
#      12 MiB; daemon/target_parity.c); its daemon syncs them and writes random data to each;
#      raid1 rc gets a third image (lvconvert -m2) and loses image 0 (-m1 PV) through
#      the daemon; raid1 rp and raid5 rq with a planted 4 KiB mismatch, counted by
#      the daemon's --syncaction check; raid1 ro with a COW snapshot rs, ro rewritten
#      in part after it (the daemon copies the chunks; lvx's snap_percent kept); raid1
#      rt split with --splitmirrors 1 --trackchanges and written while its image is
#      tracked, 4 KiB planted on the image's PV in a clean region; clean deactivation;
#   2. guest (the images as virtio disks vda-vde, five empty ones vdf-vdj): dm-raid
#      activates ux in sync at once, reads the daemon's bytes, `--syncaction check` finds
#      no mismatch; the kernel reads ro and the daemon's snapshot rs, reports the same
#      usage, and merges rs (lvconvert --merge); dm-raid takes rt with its tracked
#      slot, reads its bytes and the image's, merges rt_rimage_1 back and resyncs the
#      dirty region only (the planted bytes stay until a --syncaction repair);
#      LVM2 makes VG kx (same LVs) on vdf-vdj, the kernel syncs and writes them;
#   3. host: the daemon activates kx and ux (after the kernel's use) without a resync or
#      rebuild (its log says none), reads the kernel's bytes (ro and rt after the
#      kernel's merges too); the superblocks are clean.
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

GUEST_DISK_SIZE=80M     # room in ux for ro, rs and rt
source "$LVX_ROOT/tests/tools/guest-disks.sh"

# ---- 1. lvx's daemon makes and writes ux
uspace_run_ok "lvx pvcreate, vgcreate ux (vda-vde)" sh -c \
    "'$LVX' pvcreate -q ${DEVS[*]:0:5} && '$LVX' vgcreate -q ux ${DEVS[*]:0:5}"
uspace_run_ok "lvx lvcreate --type raid1 -m1 -L 8m ux/r1 (the daemon syncs it)" \
    lvx lvcreate -q -Zn --type raid1 -m1 -L 8m -n r1 ux
uspace_run_ok "lvx lvcreate --type raid10 -i2 -m1 -I 64k -L 8m ux/r10" \
    lvx lvcreate -q -Zn --type raid10 -i2 -m1 -I 64k -L 8m -n r10 ux
uspace_run_ok "lvx lvcreate --type raid5 -i3 -I 64k -L 12m ux/r5 (the daemon computes parity)" \
    lvx lvcreate -q -Zn --type raid5 -i3 -I 64k -L 12m -n r5 ux
uspace_run_ok "lvx lvcreate --type raid6 -i3 -I 64k -L 12m ux/r6 (P and Q)" \
    lvx lvcreate -q -Zn --type raid6 -i3 -I 64k -L 12m -n r6 ux
uspace_run_ok "lvx lvcreate --type raid6_nc -i3 -I 64k -L 12m ux/r6c (Q before P)" \
    lvx lvcreate -q -Zn --type raid6_nc -i3 -I 64k -L 12m -n r6c ux
uspace_run_ok "lvx lvcreate --type raid6_n_6 -i3 -I 64k -L 12m ux/r6n (P, Q on the last legs)" \
    lvx lvcreate -q -Zn --type raid6_n_6 -i3 -I 64k -L 12m -n r6n ux
for lv in r5 r6 r6c r6n; do      # for the kernel to write to kx/LV
    head -c 12M /dev/urandom >"$SCRATCH/data/kx_$lv.bin"
done
for lv in r1 r10 r5 r6 r6c r6n; do
    sz=8M
    [[ $lv == r[56]* ]] && sz=12M
    head -c $sz /dev/urandom >"$SCRATCH/data/ux_$lv.bin"
    uspace_run_ok "ux/$lv: $sz written through the daemon" dd if="$SCRATCH/data/ux_$lv.bin" \
        of="$DM_DEV_DIR/ux/$lv" bs=1M oflag=direct conv=fsync status=none
done
# a raid1 whose images lvx's daemon changed (lvconvert in the user backend): a third
# image added and rebuilt, then image 0 taken out (image 1 and 2 move down)
uspace_run_ok "lvx lvcreate --type raid1 -m1 -L 8m ux/rc" lvx lvcreate -q -Zn --type raid1 -m1 -L 8m -n rc ux
head -c 8M /dev/urandom >"$SCRATCH/data/ux_rc.bin"
uspace_run_ok "ux/rc: 8M written, lvconvert -m2 (the daemon rebuilds the new image)" sh -c \
    "dd if=$SCRATCH/data/ux_rc.bin of=$DM_DEV_DIR/ux/rc bs=1M oflag=direct conv=fsync status=none &&
     '$LVX' lvconvert -y -m2 ux/rc"
rc0=$(lvx lvs -a --noheadings -o devices ux/rc_rimage_0 2>/dev/null | tr -d ' ' | sed 's/(.*//')
uspace_run_ok "ux/rc: lvconvert -m1 ux/rc $rc0 (image 0 leaves, the others move down)" \
    lvx lvconvert -y -m1 ux/rc "$rc0"
test_eq "ux/rc reads its data after both conversions" "$(lv_sha "$DM_DEV_DIR/ux/rc")" "$(sha "$SCRATCH/data/ux_rc.bin")"
# planted mismatches: 4 KiB written straight into one image of raid1 rp and one leg of
# raid5 rq; lvx's daemon checks them (the count goes to the guest, whose kernel's
# check must count the same)
source "$LVX_ROOT/tests/tools/raid-pvread.sh"
VG=ux
uspace_run_ok "lvx lvcreate raid1 ux/rp and raid5 -i3 ux/rq (8m, 12m), written" sh -c \
    "'$LVX' lvcreate -q -Zn --type raid1 -m1 -L 8m -n rp ux &&
     '$LVX' lvcreate -q -Zn --type raid5 -i3 -I 64k -L 12m -n rq ux &&
     dd if=$SCRATCH/data/ux_r1.bin of=$DM_DEV_DIR/ux/rp bs=1M oflag=direct conv=fsync status=none &&
     dd if=$SCRATCH/data/ux_r5.bin of=$DM_DEV_DIR/ux/rq bs=1M oflag=direct conv=fsync status=none &&
     '$LVX' lvchange -an ux/rp ux/rq"
pv_plant rp_rimage_1 $((3 * 1048576 + 4096))
pv_plant rq_rimage_3 $((1048576))
for lv in rp rq; do
    uspace_run_ok "ux/$lv: a mismatch planted; activated, lvx's --syncaction check" sh -c \
        "'$LVX' lvchange -ay ux/$lv && '$LVX' lvchange --syncaction check ux/$lv"
    lvx lvs --noheadings -o raid_mismatch_count ux/$lv 2>/dev/null | tr -d ' ' >"$SCRATCH/data/$lv.mism"
    test_ok "ux/$lv: lvx's daemon found the mismatch ($(cat "$SCRATCH/data/$lv.mism") sectors)" \
        test "$(cat "$SCRATCH/data/$lv.mism")" -gt 0
done
# a COW snapshot rs of raid1 ro: the origin written after it (the daemon copies the
# old chunks), for the kernel to read both and merge rs back
head -c 4M /dev/urandom >"$SCRATCH/data/ux_rs.bin"
cp "$SCRATCH/data/ux_rs.bin" "$SCRATCH/data/ux_ro.bin"
head -c 1M /dev/urandom | dd of="$SCRATCH/data/ux_ro.bin" bs=64k seek=16 conv=notrunc status=none
head -c 64k /dev/urandom | dd of="$SCRATCH/data/ux_ro.bin" bs=64k seek=50 conv=notrunc status=none
uspace_run_ok "lvx lvcreate raid1 ux/ro (4m), written; lvcreate -s -L 4m -n rs ux/ro" sh -c \
    "'$LVX' lvcreate -q -Zn --type raid1 -m1 -L 4m -n ro ux &&
     dd if=$SCRATCH/data/ux_rs.bin of=$DM_DEV_DIR/ux/ro bs=1M oflag=direct conv=fsync status=none &&
     '$LVX' lvcreate -q -s -L 4m -n rs ux/ro"
uspace_run_ok "ux/ro: 1 MiB + 64 KiB rewritten through the daemon (the snapshot copies)" sh -c \
    "dd if=$SCRATCH/data/ux_ro.bin of=$DM_DEV_DIR/ux/ro bs=64k skip=16 seek=16 count=16 oflag=direct conv=fsync status=none &&
     dd if=$SCRATCH/data/ux_ro.bin of=$DM_DEV_DIR/ux/ro bs=64k skip=50 seek=50 count=1 oflag=direct conv=fsync status=none"
test_eq "ux/ro reads its new bytes" "$(lv_sha "$DM_DEV_DIR/ux/ro")" "$(sha "$SCRATCH/data/ux_ro.bin")"
test_eq "ux/rs reads the origin as it was" "$(lv_sha "$DM_DEV_DIR/ux/rs")" "$(sha "$SCRATCH/data/ux_rs.bin")"
lvx lvs --noheadings -o snap_percent ux/rs 2>/dev/null | tr -d ' ' >"$SCRATCH/data/rs.pct"
test_ok "ux/rs: lvx reports its usage ($(cat "$SCRATCH/data/rs.pct")%)" \
    "$PYTHON" -c "import sys; sys.exit(not 20 < float('$(cat "$SCRATCH/data/rs.pct")') < 60)"
# raid1 rt split with --trackchanges, written meanwhile: the kernel is to merge the image
head -c 4M /dev/urandom >"$SCRATCH/data/ux_rt0.bin"
cp "$SCRATCH/data/ux_rt0.bin" "$SCRATCH/data/ux_rt.bin"
head -c 512k /dev/urandom | dd of="$SCRATCH/data/ux_rt.bin" bs=64k seek=40 conv=notrunc status=none
uspace_run_ok "lvx lvcreate raid1 ux/rt (4m), written, in sync" sh -c \
    "'$LVX' lvcreate -q -Zn --type raid1 -m1 -L 4m -n rt ux &&
     dd if=$SCRATCH/data/ux_rt0.bin of=$DM_DEV_DIR/ux/rt bs=1M oflag=direct conv=fsync status=none"
test_ok "ux/rt in sync" wait_synced rt
uspace_run_ok "lvx lvconvert --splitmirrors 1 --trackchanges ux/rt" \
    lvx lvconvert -y --splitmirrors 1 --trackchanges ux/rt
uspace_run_ok "ux/rt: 512 KiB rewritten through the daemon while rt_rimage_1 is tracked" \
    dd if="$SCRATCH/data/ux_rt.bin" of="$DM_DEV_DIR/ux/rt" bs=64k skip=40 seek=40 count=8 oflag=direct conv=fsync status=none
test_eq "ux/rt reads its new bytes" "$(lv_sha "$DM_DEV_DIR/ux/rt")" "$(sha "$SCRATCH/data/ux_rt.bin")"
test_eq "ux/rt_rimage_1 reads the bytes of the split" \
    "$(lv_sha "$DM_DEV_DIR/ux/rt_rimage_1")" "$(sha "$SCRATCH/data/ux_rt0.bin")"
test_eq "ux/rt: region size 2 MiB (the write above in the second of two regions)" \
    "$(lvx lvs --noheadings --units k -o region_size ux/rt 2>/dev/null | tr -d ' ')" "2048.00k"
uspace_run_ok "deactivate ux" lvx vgchange -an ux
# 4 KiB planted on rt_rimage_1's PV in the first region (clean in rt's bitmap): the
# kernel's resync after the merge is to leave it (a partial resync, as md's re-add)
pv_plant rt_rimage_1 1048576
report rt_rimage_1
pv_get rt_rimage_1 0 $((4 * 1048576)) "$SCRATCH/data/ux_rt1.bin"
test_eq "ux/rt_rimage_1 differs from the split's bytes in the 4 KiB planted at 1 MiB only" \
    "$(cmp -l "$SCRATCH/data/ux_rt0.bin" "$SCRATCH/data/ux_rt1.bin" | awk '$1 <= 1048576 || $1 > 1052672' | wc -l)" "0"
cp "$SCRATCH/data/ux_rt1.bin" "$SCRATCH/data/ux_rt1m.bin"     # rimage_1 after a partial resync
dd if="$SCRATCH/data/ux_rt.bin" of="$SCRATCH/data/ux_rt1m.bin" bs=1M skip=2 seek=2 count=2 conv=notrunc status=none
lvx daemon stop >/dev/null 2>&1
for _ in $(seq 100); do [[ -z $(uspace_daemon_pids) ]] && break; sleep 0.1; done
detach_all

# ---- 2. the guest
KERNEL_GUEST_MORE=1 kernel_guest_test user-raid.sh 10 80M 900 --disk-dir "$DISKS" --reuse-disks \
    --put "$SCRATCH/data:/t/data"

# ---- 3. lvx's daemon reads what the kernel wrote
attach_all
uspace_env "$SCRATCH/us" "${DEVS[@]}"
lvm_sandbox "${DEVS[@]}"
: >"$LOG"
uspace_run_ok "lvx activates kx (made by LVM2, written by the kernel)" lvx vgchange -ay kx
uspace_run_ok "lvx activates ux again (after the kernel's use)" lvx vgchange -ay ux
test_eq "kx/r1 reads the kernel's bytes" "$(lv_sha "$DM_DEV_DIR/kx/r1")" "$(sha "$SCRATCH/data/ux_r10.bin")"
test_eq "kx/r10 reads the kernel's bytes" "$(lv_sha "$DM_DEV_DIR/kx/r10")" "$(sha "$SCRATCH/data/ux_r1.bin")"
test_eq "ux/r1 still reads the daemon's bytes" "$(lv_sha "$DM_DEV_DIR/ux/r1")" "$(sha "$SCRATCH/data/ux_r1.bin")"
test_eq "ux/r10 still reads the daemon's bytes" "$(lv_sha "$DM_DEV_DIR/ux/r10")" "$(sha "$SCRATCH/data/ux_r10.bin")"
test_eq "kx/r5 (raid5_ls) reads the kernel's bytes" "$(lv_sha "$DM_DEV_DIR/kx/r5")" "$(sha "$SCRATCH/data/kx_r5.bin")"
test_eq "ux/r5 still reads the daemon's bytes" "$(lv_sha "$DM_DEV_DIR/ux/r5")" "$(sha "$SCRATCH/data/ux_r5.bin")"
test_eq "kx/r6 (raid6_zr) reads the kernel's bytes" "$(lv_sha "$DM_DEV_DIR/kx/r6")" "$(sha "$SCRATCH/data/kx_r6.bin")"
test_eq "ux/r6 still reads the daemon's bytes" "$(lv_sha "$DM_DEV_DIR/ux/r6")" "$(sha "$SCRATCH/data/ux_r6.bin")"
for lv in r6c r6n; do
    test_eq "kx/$lv ($(lvx lvs --noheadings -o segtype kx/$lv 2>/dev/null | tr -d ' ')) reads the kernel's bytes" \
        "$(lv_sha "$DM_DEV_DIR/kx/$lv")" "$(sha "$SCRATCH/data/kx_$lv.bin")"
    test_eq "ux/$lv still reads the daemon's bytes" "$(lv_sha "$DM_DEV_DIR/ux/$lv")" "$(sha "$SCRATCH/data/ux_$lv.bin")"
done
test_eq "ux/ro reads the snapshot's bytes the kernel merged" "$(lv_sha "$DM_DEV_DIR/ux/ro")" "$(sha "$SCRATCH/data/ux_rs.bin")"
test_eq "ux/rt (its image merged back by the kernel) reads its bytes" \
    "$(lv_sha "$DM_DEV_DIR/ux/rt")" "$(sha "$SCRATCH/data/ux_rt.bin")"
test_ok "ux/rs and ux/rt_rimage_1 are gone as LVs" sh -c \
    "! '$LVX' lvs ux/rs >/dev/null 2>&1 && '$LVX' lvs -a --noheadings -o lv_name ux/rt_rimage_1 | grep -q '\[rt_rimage_1\]'"
test_eq "no resync, rebuild or initial sync in the daemon's log" \
    "$(grep -c -e 'new RAID set' -e 'is rebuilt' -e 'resynced' -e 'failed' "$LOG")" "0"
test_ok "the daemon served the twelve RAID LVs" test "$(grep -c 'serving [uk]x/r[156]' "$LOG")" -eq 12
uspace_run_ok "deactivate kx and ux" sh -c "'$LVX' vgchange -an kx && '$LVX' vgchange -an ux"
done_testing
