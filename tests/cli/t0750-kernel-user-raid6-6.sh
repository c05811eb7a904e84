#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0750-kernel-user-raid6-6: raid6_ls_6, raid6_la_6, raid6_rs_6 and raid6_ra_6 LVs (the
# layouts of LVM2's raid5 -> raid6 takeover) move between lvx's user-space daemon
# (daemon/target_parity.c) on the host and LVM2 + the kernel's dm-raid in a throw-away
# QEMU guest (tests/kernel/user-raid6-6.sh), in both directions, without a resync:
#   1. host: on five 64 MiB disk images (loop devices) lvx makes VG ux with one LV of
#      each layout (-i3 -L 12m); its daemon syncs them and writes random data to each;
#      clean deactivation;
#   2. guest (the images as virtio disks vda-vde, five empty ones vdf-vdj): dm-raid
#      activates ux in sync at once, reads the daemon's bytes, `--syncaction check` finds
#      no mismatch; LVM2 makes VG kx (same LVs) on vdf-vdj, the kernel syncs and writes
#      them;
#   3. host: the daemon activates kx and ux (after the kernel's use) without a resync or
#      rebuild (its log says none) and reads the kernel's bytes.
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

source "$LVX_ROOT/tests/tools/guest-disks.sh"
LVS="r6ls r6la r6rs r6ra"
type_of() { case $1 in r6ls) echo raid6_ls_6 ;; r6la) echo raid6_la_6 ;; r6rs) echo raid6_rs_6 ;; r6ra) echo raid6_ra_6 ;; esac; }

# ---- 1. lvx's daemon makes and writes ux
uspace_run_ok "lvx pvcreate, vgcreate ux (vda-vde)" sh -c \
    "'$LVX' pvcreate -q ${DEVS[*]:0:5} && '$LVX' vgcreate -q ux ${DEVS[*]:0:5}"
for lv in $LVS; do
    uspace_run_ok "lvx lvcreate --type $(type_of "$lv") -i3 -I 64k -L 12m ux/$lv (the daemon computes P and Q)" \
        lvx lvcreate -q -Zn --type "$(type_of "$lv")" -i3 -I 64k -L 12m -n "$lv" ux
    head -c 12M /dev/urandom >"$SCRATCH/data/kx_$lv.bin"
    head -c 12M /dev/urandom >"$SCRATCH/data/ux_$lv.bin"
    uspace_run_ok "ux/$lv: 12M written through the daemon" dd if="$SCRATCH/data/ux_$lv.bin" \
        of="$DM_DEV_DIR/ux/$lv" bs=1M oflag=direct conv=fsync status=none
done
uspace_run_ok "deactivate ux" lvx vgchange -an ux
lvx daemon stop >/dev/null 2>&1
for _ in $(seq 100); do [[ -z $(uspace_daemon_pids) ]] && break; sleep 0.1; done
detach_all

# ---- 2. the guest
KERNEL_GUEST_MORE=1 kernel_guest_test user-raid6-6.sh 10 64M 300 --disk-dir "$DISKS" --reuse-disks \
    --put "$SCRATCH/data:/t/data"

# ---- 3. lvx's daemon reads what the kernel wrote
attach_all
uspace_env "$SCRATCH/us" "${DEVS[@]}"
lvm_sandbox "${DEVS[@]}"
: >"$LOG"
uspace_run_ok "lvx activates kx (made by LVM2, written by the kernel)" lvx vgchange -ay kx
uspace_run_ok "lvx activates ux again (after the kernel's use)" lvx vgchange -ay ux
for lv in $LVS; do
    test_eq "kx/$lv ($(lvx lvs --noheadings -o segtype "kx/$lv" 2>/dev/null | tr -d ' ')) reads the kernel's bytes" \
        "$(lv_sha "$DM_DEV_DIR/kx/$lv")" "$(sha "$SCRATCH/data/kx_$lv.bin")"
    test_eq "ux/$lv still reads the daemon's bytes" "$(lv_sha "$DM_DEV_DIR/ux/$lv")" "$(sha "$SCRATCH/data/ux_$lv.bin")"
done
test_eq "no resync, rebuild or initial sync in the daemon's log" \
    "$(grep -c -e 'new RAID set' -e 'is rebuilt' -e 'resynced' -e 'failed' "$LOG")" "0"
test_ok "the daemon served the eight RAID LVs" test "$(grep -c 'serving [uk]x/r6' "$LOG")" -eq 8
uspace_run_ok "deactivate kx and ux" sh -c "'$LVX' vgchange -an kx && '$LVX' vgchange -an ux"
done_testing
