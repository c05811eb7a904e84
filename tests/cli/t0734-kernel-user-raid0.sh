#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0734-kernel-user-raid0: raid0 and raid0_meta disks move between lvx's user-space
# daemon (which serves them as the striped LV they equal) on the host and LVM2 + the
# kernel's dm-raid in a throw-away QEMU guest (tests/kernel/user-raid0.sh), both ways:
#   1. host: on three disk images (sparse, 256 MiB), lvx makes VG ux with raid0 z0 and raid0_meta
#      z1 (-i3, 12 MiB) and a striped LV zs converted to raid0_meta while its daemon
#      serves it (lvconvert --type raid0_meta); the daemon writes random data to each;
#   2. guest (the images as vda-vdc, three empty ones vdd-vdf): LVM2 activates ux and
#      the kernel reads the daemon's bytes; LVM2 makes VG kx (raid0 z0, raid0_meta z1)
#      on vdd-vdf, the kernel writes them (its superblocks in z1's rmeta);
#   3. host: the daemon activates kx and reads the kernel's bytes, and ux again.
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

uspace_need_guest

uspace_images a b c d e f
mkdir -p "$SCRATCH/data"
uspace_attach a b c d e f
uspace_test_env ux "${D[@]}"
sha() { sha256sum <"$1" | cut -d' ' -f1; }
lv_sha() { dd if="$1" bs=1M iflag=direct status=none | sha256sum | cut -d' ' -f1; }

# ---- 1. lvx's daemon makes and writes ux
uspace_run_ok "lvx pvcreate, vgcreate ux (vda-vdc)" sh -c \
    "'$LVX' pvcreate -q ${D[*]:0:3} && '$LVX' vgcreate -q ux ${D[*]:0:3}"
uspace_run_ok "lvx lvcreate --type raid0 -i3 -L 12m ux/z0 (active)" lvx lvcreate -q -Zn --type raid0 -i3 -L 12m -n z0 ux
uspace_run_ok "lvx lvcreate --type raid0_meta -i3 -L 12m ux/z1 (active)" lvx lvcreate -q -Zn --type raid0_meta -i3 -L 12m -n z1 ux
uspace_run_ok "lvx lvcreate -i3 -L 12m ux/zs, converted to raid0_meta while active" sh -c \
    "'$LVX' lvcreate -q -Zn -i3 -L 12m -n zs ux && '$LVX' lvconvert -q -y --type raid0_meta ux/zs"
for lv in z0 z1 zs; do
    head -c 12M /dev/urandom >"$SCRATCH/data/ux_$lv.bin"
    head -c 12M /dev/urandom >"$SCRATCH/data/kx_$lv.bin"     # for the kernel to write to kx/LV
    uspace_run_ok "ux/$lv: 12M written through the daemon" dd if="$SCRATCH/data/ux_$lv.bin" \
        of="$DM_DEV_DIR/ux/$lv" bs=1M oflag=direct conv=fsync status=none
done
uspace_run_ok "deactivate ux" lvx vgchange -an ux
uspace_cleanup                   # the daemon stopped, the disks handed to the guest
for d in "${D[@]}"; do detach_loop "$d"; done

# ---- 2. the guest
KERNEL_GUEST_MORE=1 kernel_guest_test user-raid0.sh 6 64M 300 --disk-dir "$DISKS" --reuse-disks \
    --put "$SCRATCH/data:/t/data"

# ---- 3. lvx's daemon reads what the kernel wrote
uspace_attach a b c d e f
uspace_env "$SCRATCH/us" "${D[@]}"
lvm_sandbox "${D[@]}"
uspace_run_ok "lvx activates kx (made by LVM2, written by the kernel) and ux again" sh -c \
    "'$LVX' vgchange -ay kx && '$LVX' vgchange -ay ux"
for lv in z0 z1; do
    test_eq "kx/$lv ($(lvx lvs --noheadings -o segtype kx/$lv 2>/dev/null | tr -d ' ')) reads the kernel's bytes" \
        "$(lv_sha "$DM_DEV_DIR/kx/$lv")" "$(sha "$SCRATCH/data/kx_$lv.bin")"
done
for lv in z0 z1 zs; do
    test_eq "ux/$lv still reads the daemon's bytes" "$(lv_sha "$DM_DEV_DIR/ux/$lv")" "$(sha "$SCRATCH/data/ux_$lv.bin")"
done
uspace_run_ok "deactivate kx and ux" sh -c "'$LVX' vgchange -an kx && '$LVX' vgchange -an ux"
done_testing
