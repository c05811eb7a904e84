#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0720-kernel-user-mirror: the same mirror disks move between lvx's user-space daemon
# (daemon/target_mirror.c) on the host and LVM2 + the kernel's dm-mirror in a
# throw-away QEMU guest (tests/kernel/user-mirror.sh), in both directions:
#   1. host: on three 64 MiB disk images (loop devices), lvx makes VG um with a
#      disk-log mirror m (-m1, 8 MiB) and a core-log mirror c (-m2, 8 MiB); its daemon
#      syncs them and writes random data to each; clean deactivation;
#   2. guest: LVM2 + dm-mirror activate um: m is in sync at once (the dm-log the daemon
#      wrote says so: no resync), both read the daemon's bytes; the kernel writes new
#      data to m and deactivates it;
#   3. host: the daemon activates m again without copying a region (its log says
#      none) and reads the kernel's bytes; its legs are equal.
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

uspace_need_guest
uspace_images a b c
mkdir -p "$SCRATCH/data"
uspace_attach a b c
uspace_test_env um "${D[@]}"
LOG=$LVX_RUN_DIR/lvxd.log
VG=um
source "$LVX_ROOT/tests/tools/raid-pvread.sh"

# ---- 1. lvx's daemon makes and writes um
uspace_run_ok "lvx pvcreate (vda-vdc)" lvx pvcreate -q "${D[@]}"
uspace_run_ok "lvx vgcreate um" lvx vgcreate -q um "${D[@]}"
uspace_run_ok "lvx lvcreate --type mirror -m1 -L 8m um/m (disk log; the daemon syncs it)" \
    lvx lvcreate -q --type mirror -m1 -L 8m -n m um
uspace_run_ok "lvx lvcreate --type mirror -m2 --corelog -L 8m um/c" \
    lvx lvcreate -q --type mirror -m2 --corelog -L 8m -n c um
for lv in m c; do
    head -c 8M /dev/urandom >"$SCRATCH/data/um_$lv.bin"
    uspace_run_ok "um/$lv: 8M written through the daemon" dd if="$SCRATCH/data/um_$lv.bin" \
        of="$DM_DEV_DIR/um/$lv" bs=1M oflag=direct conv=fsync status=none
done
head -c 8M /dev/urandom >"$SCRATCH/data/k_m.bin"        # for the kernel to write to um/m
uspace_run_ok "deactivate um" lvx vgchange -an um
lvx daemon stop >/dev/null 2>&1
for _ in $(seq 100); do [[ -z $(uspace_daemon_pids) ]] && break; sleep 0.1; done
for d in "${D[@]}"; do detach_loop "$d"; done

# ---- 2. the guest
KERNEL_GUEST_MORE=1 kernel_guest_test user-mirror.sh 3 64M 600 --disk-dir "$DISKS" --reuse-disks \
    --put "$SCRATCH/data:/t/data"

# ---- 3. lvx's daemon reads what the kernel wrote (the loop devices may have new names:
# the sub-LVs' places are read again)
uspace_attach a b c
uspace_env "$SCRATCH/us" "${D[@]}"
lvm_sandbox "${D[@]}"
: >"$LOG"
uspace_run_ok "lvx activates um/m again (after the kernel's use)" lvx lvchange -ay um/m
test_eq "um/m reads the kernel's bytes" "$(lv_sum "$DM_DEV_DIR/um/m" 0 $((8 * 1048576)))" \
    "$(fsum "$SCRATCH/data/k_m.bin")"
test_eq "no region copied: the kernel's log said in sync" \
    "$(grep -c 'mirror regions out of sync' "$LOG")" "0"
uspace_run_ok "deactivate um" lvx vgchange -an um
report m_mimage_0
report m_mimage_1
test_eq "the legs of um/m are equal (read from the PVs)" \
    "$(pv_sum m_mimage_1 0 $((8 * 1048576)))" "$(pv_sum m_mimage_0 0 $((8 * 1048576)))"
done_testing
