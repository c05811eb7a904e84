#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0714-kernel-user-raid: the same RAID disks move between lvx's user-space daemon
# (daemon/target_raid.c) on the host and LVM2 + the kernel's dm-raid in a throw-away
# QEMU guest (tests/kernel/user-raid.sh), in both directions, without a resync:
#   1. host: on five 64 MiB disk images (loop devices), lvx makes VG ux with raid1 r1,
#      raid10 r10 (8 MiB each), raid5 r5, raid6 r6, raid6_nc r6c and raid6_n_6 r6n (-i3,
#      12 MiB; daemon/target_parity.c); its daemon syncs them and writes random data to each;
#      raid1 rc gets a third image (lvconvert -m2) and loses image 0 (-m1 PV) through
#      the daemon; raid1 rp and raid5 rq with a planted 4 KiB mismatch, counted by
#      the daemon's --syncaction check; clean deactivation;
#   2. guest (the images as virtio disks vda-vde, five empty ones vdf-vdj): dm-raid
#      activates ux in sync at once, reads the daemon's bytes, `--syncaction check` finds
#      no mismatch; LVM2 makes VG kx (same LVs) on vdf-vdj, the kernel syncs and writes
#      them;
#   3. host: the daemon activates kx and ux (after the kernel's use) without a resync or
#      rebuild (its log says none), reads the kernel's bytes; the superblocks are clean.
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

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
uspace_run_ok "deactivate ux" lvx vgchange -an ux
lvx daemon stop >/dev/null 2>&1
for _ in $(seq 100); do [[ -z $(uspace_daemon_pids) ]] && break; sleep 0.1; done
detach_all

# ---- 2. the guest
KERNEL_GUEST_MORE=1 kernel_guest_test user-raid.sh 10 64M 900 --disk-dir "$DISKS" --reuse-disks \
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
test_eq "no resync, rebuild or initial sync in the daemon's log" \
    "$(grep -c -e 'new RAID set' -e 'is rebuilt' -e 'resynced' -e 'failed' "$LOG")" "0"
test_ok "the daemon served the twelve RAID LVs" test "$(grep -c 'serving [uk]x/r[156]' "$LOG")" -eq 12
uspace_run_ok "deactivate kx and ux" sh -c "'$LVX' vgchange -an kx && '$LVX' vgchange -an ux"
done_testing
