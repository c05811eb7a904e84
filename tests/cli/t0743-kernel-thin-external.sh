#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0743-kernel-thin-external: thin LVs with an external origin between lvx's daemon (the
# `user` backend, on this host), lvx's dm backend and LVM2 with the kernel's dm-thin (a
# kvm-dm-test guest), on four disk images (kvm-dm-test --disk-dir --reuse-disks):
#   1. host: lvx makes VG lvxt on images a-b: pool (32m), ext (8m, random A, then
#      read-only), t1 = lvcreate -s --thinpool lvxt/pool lvxt/ext, written by the daemon
#      (4 KiB at 100 KiB: the rest of that block copied from ext; 64 KiB at 1 MiB);
#      thin_check passes;
#   2. guest (tests/kernel/thin-external.sh): LVM2 with the kernel activates t1 and reads
#      the daemon's bytes, lvx's dm backend too; twin VGs (LVM2 on image c, lvx on d):
#      lvcreate -s --thinpool (refusals, then made), --type thin --thinpool, lvconvert
#      --type thin --originname: output, metadata, dm names/UUIDs/tables equal LVM2's;
#   3. host: lvx's daemon serves LVM2's lvm-xo: t1 reads as the kernel served it, conv
#      reads its old bytes through corig; thin_check passes on the kernel's metadata.
# One guest boot plus ~20 s on the host.  LVX_SKIP_KERNEL=1 skips.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

[[ ${LVX_SKIP_KERNEL:-0} == 1 ]] && skip_all "LVX_SKIP_KERNEL=1"
[[ -x ${KVM_DM_TEST:-$LVX_ROOT/tests/tools/kvm-dm-test} ]] || skip_all "kvm-dm-test not found"
need_root
need_loop
need_lvx
need_cmd lvm flock thin_check
[[ -c /dev/fuse ]] || skip_all "no /dev/fuse"

uspace_images a b c d
uspace_attach a b
uspace_test_env lvxt "${D[@]}"
DEV=$DM_DEV_DIR
meta_ok() { LVM_SYSTEM_DIR=$SCRATCH/lvm "$LVX_ROOT/tests/tools/thin_meta_check.sh" "$1" pool "$SCRATCH"; }

head -c 8M /dev/urandom >"$SCRATCH/A"
head -c 64K /dev/urandom >"$SCRATCH/W"
cp "$SCRATCH/A" "$SCRATCH/want"
dd if="$SCRATCH/W" of="$SCRATCH/want" bs=1k count=4 seek=100 conv=notrunc status=none
dd if="$SCRATCH/W" of="$SCRATCH/want" bs=64k seek=16 conv=notrunc status=none

# ------------------------------------------------------------ 1. lvx's daemon writes lvxt
uspace_run_ok "lvx: vgcreate lvxt, pool (32m), ext (8m)" sh -c \
    "$LVX vgcreate lvxt ${D[*]} && $LVX lvcreate -an -T -L 32m lvxt/pool && $LVX lvcreate -L 8m -n ext lvxt"
uspace_run_ok "A written to ext, ext deactivated and made read-only" sh -c \
    "dd if=$SCRATCH/A of=$DEV/lvxt/ext bs=1M oflag=direct status=none &&
     $LVX lvchange -an lvxt/ext && $LVX lvchange -pr lvxt/ext"
uspace_run_ok "lvx: lvcreate -s --thinpool lvxt/pool lvxt/ext -n t1" \
    $LVX lvcreate -s --thinpool lvxt/pool lvxt/ext -n t1
uspace_run_ok "the daemon writes t1 (4 KiB at 100 KiB, 64 KiB at 1 MiB)" sh -c \
    "dd if=$SCRATCH/W of=$DEV/lvxt/t1 bs=1k count=4 seek=100 oflag=direct conv=notrunc status=none &&
     dd if=$SCRATCH/W of=$DEV/lvxt/t1 bs=64k seek=16 oflag=direct conv=notrunc status=none"
test_eq "t1 reads A with the writes in" "$(lv_sum lvxt/t1)" "$(fsum "$SCRATCH/want")"
echo "t1 $(lv_sum lvxt/t1)" >"$SCRATCH/host.sums"
uspace_run_ok "lvx: lvxt deactivated" $LVX vgchange -an lvxt
test_ok "thin_check passes on the metadata lvx wrote" meta_ok lvxt
uspace_cleanup
for d in "${D[@]}"; do detach_loop "$d"; done

# ------------------------------------------------------------ 2. the guest
KERNEL_GUEST_MORE=1 kernel_guest_test thin-external.sh 4 256M 280 --disk-dir "$DISKS" --reuse-disks \
    --put "$SCRATCH/host.sums:/t/host.sums"

# ------------------------------------------------------------ 3. lvx's daemon serves lvm-xo
G=$SCRATCH/guest.sums
cp "$KERNEL_OUT/guest.sums" "$G" 2>/dev/null
USPACE_VG=lvm-xo
test_ok "the guest wrote its sums" test -s "$G"
guest() { awk -v k="$1" '$1 == k { print $2 }' "$G"; }
uspace_attach c
uspace_env "$SCRATCH/us" "${D[@]}"
lvm_sandbox "${D[@]}"
test_ok "thin_check passes on the kernel's metadata (host)" meta_ok lvm-xo
uspace_run_ok "lvx's daemon activates LVM2's lvm-xo/t1 and conv" sh -c \
    "$LVX lvchange -ay lvm-xo/t1 && $LVX lvchange -ay lvm-xo/conv"
test_eq "lvm-xo/t1 reads back as the kernel served it" "$(lv_sum lvm-xo/t1)" "$(guest t1)"
test_eq "lvm-xo/conv reads A through its external origin corig" "$(lv_sum lvm-xo/conv)" "$(guest A)"
uspace_run_ok "lvx: lvm-xo deactivated" lvx vgchange -an lvm-xo
test_ok "thin_check passes after lvx's daemon served it" meta_ok lvm-xo
done_testing
