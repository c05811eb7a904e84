#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0707-kernel-thin-user: thin pools move between lvx's daemon (the `user` backend, on
# this host) and LVM2 with the kernel's dm-thin (a kvm-dm-test guest), both ways, on four
# disk images that the host attaches as loop devices and the guest gets as /dev/vda-vdd
# (kvm-dm-test --disk-dir --reuse-disks):
#   1. host: lvx makes VG lvxt on images a-b: pool (64m), thin1 (64m virtual) written
#      by the daemon (A, C at 40 MiB), its thin snapshot snap1, B over thin1's first
#      16 MiB (the daemon breaks the sharing), thin2 made while the pool is inactive
#      (the command writes create_thin itself); thin_check passes on the host;
#   2. guest (tests/kernel/thin-user.sh): LVM2 activates lvxt with the kernel (its
#      thin_check at activation), thin1, snap1, thin2 read back byte for byte, Data% of
#      the pool and of thin1 as lvx reported; the kernel writes on, makes thin3; then
#      LVM2 makes VG lvmt on images c-d the same way;
#   3. host: lvx's daemon serves LVM2's lvmt: thin1 and snap1 byte for byte as the
#      kernel served them, the same Data%; the daemon writes on (a block the kernel's
#      snapshot shares broken on write: snap1 unchanged) and makes a thin LV;
#      thin_check passes on the metadata the kernel and lvx wrote.
# One guest boot (about 1-2 min under TCG) plus ~20 s on the host.  LVX_SKIP_KERNEL=1
# skips.
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

head -c 16M /dev/urandom >"$SCRATCH/A"
head -c 16M /dev/urandom >"$SCRATCH/B"
head -c 1M /dev/urandom >"$SCRATCH/C"

# ------------------------------------------------------------ 1. lvx's daemon writes lvxt
uspace_run_ok "lvx: vgcreate lvxt, pool (64m), thin1 (64m virtual)" sh -c \
    "$LVX vgcreate lvxt ${D[*]} && $LVX lvcreate -T -L 64m lvxt/pool && $LVX lvcreate -V 64m -T lvxt/pool -n thin1"
uspace_run_ok "A written to lvxt/thin1, C at 40 MiB" sh -c \
    "dd if=$SCRATCH/A of=$DEV/lvxt/thin1 bs=1M oflag=direct status=none &&
     dd if=$SCRATCH/C of=$DEV/lvxt/thin1 bs=1M seek=40 oflag=direct status=none"
uspace_run_ok "lvx: thin snapshot snap1 of the active thin1, activated" sh -c \
    "$LVX lvcreate -s -n snap1 lvxt/thin1 && $LVX lvchange -ay -K lvxt/snap1"
uspace_run_ok "B over thin1's first 16 MiB (the daemon breaks the sharing)" \
    dd if="$SCRATCH/B" of="$DEV/lvxt/thin1" bs=1M oflag=direct status=none
{
    echo "thin1 $(lv_sum lvxt/thin1)"
    echo "snap1 $(lv_sum lvxt/snap1)"
    echo "pooldata $(field lvxt/pool data_percent)"
    echo "thin1data $(field lvxt/thin1 data_percent)"
    echo "thin2 $(head -c 32M /dev/zero | sha256sum | cut -d' ' -f1)"
} >"$SCRATCH/host.sums"
diag "$(cat "$SCRATCH/host.sums")"
test_eq "lvxt/snap1 reads A with C at 40 MiB (as thin1 did)" \
    "$(dd if="$DEV/lvxt/snap1" bs=1M count=16 iflag=direct status=none | sha256sum | cut -d' ' -f1)" \
    "$(fsum "$SCRATCH/A")"
uspace_run_ok "lvx: lvxt deactivated, thin2 made with the pool inactive" sh -c \
    "$LVX vgchange -an lvxt && $LVX lvcreate -an -V 32m -T lvxt/pool -n thin2"
test_ok "thin_check passes on the metadata lvx wrote" meta_ok lvxt
uspace_cleanup
for d in "${D[@]}"; do detach_loop "$d"; done

# ------------------------------------------------------------ 2. the guest
KERNEL_GUEST_MORE=1 kernel_guest_test thin-user.sh 4 256M 900 --disk-dir "$DISKS" --reuse-disks \
    --put "$SCRATCH/A:/t/A" --put "$SCRATCH/B:/t/B" --put "$SCRATCH/C:/t/C" \
    --put "$SCRATCH/host.sums:/t/host.sums"

# ------------------------------------------------------------ 3. lvx's daemon serves lvmt
G=$SCRATCH/guest.sums
cp "$KERNEL_OUT/guest.sums" "$G" 2>/dev/null
USPACE_VG=lvmt
test_ok "the guest wrote its sums" test -s "$G"
guest() { awk -v k="$1" '$1 == k { print $2 }' "$G"; }
uspace_attach c d
uspace_env "$SCRATCH/us" "${D[@]}"
lvm_sandbox "${D[@]}"
test_ok "thin_check passes on the kernel's metadata (host)" meta_ok lvmt
uspace_run_ok "lvx activates LVM2's lvmt and the thin snapshot snap1 (-K)" sh -c \
    "$LVX vgchange -ay lvmt && $LVX lvchange -ay -K lvmt/snap1"
test_eq "lvmt/thin1 reads back as the kernel served it" "$(lv_sum lvmt/thin1)" "$(guest thin1)"
test_eq "lvmt/snap1 reads back as the kernel served it" "$(lv_sum lvmt/snap1)" "$(guest snap1)"
test_eq "lvmt/pool: Data% from lvx's daemon as the kernel reported it" \
    "$(field lvmt/pool data_percent)" "$(guest pooldata)"
test_eq "lvmt/thin1: Data% from lvx's daemon as the kernel reported it" \
    "$(field lvmt/thin1 data_percent)" "$(guest thin1data)"
dd if="$DEV/lvmt/thin1" of="$SCRATCH/t1" bs=1M iflag=direct status=none
# C at 8 MiB (thin1's own blocks) and 4 KiB of C at 40 MiB + 12 KiB (a block the
# kernel's snapshot shares: the daemon copies it to a new block first)
for f in "$SCRATCH/t1" "$DEV/lvmt/thin1"; do
    dd if="$SCRATCH/C" of="$f" bs=1M seek=8 conv=notrunc,fsync status=none &&
        dd if="$SCRATCH/C" of="$f" bs=4k count=1 seek=$((40 * 256 + 3)) conv=notrunc,fsync status=none
done
test_eq "lvx's daemon wrote thin1 (its own blocks and a block shared with snap1)" \
    "$(lv_sum lvmt/thin1)" "$(fsum "$SCRATCH/t1")"
uspace_run_ok "lvx makes thin2 in the served pool" $LVX lvcreate -V 16m -T lvmt/pool -n thin2
test_eq "lvmt/snap1 unchanged after lvx went on with the kernel's pool" \
    "$(lv_sum lvmt/snap1)" "$(guest snap1)"
uspace_run_ok "lvx: lvmt deactivated" lvx vgchange -an lvmt
test_ok "thin_check passes on the kernel's metadata lvx changed" meta_ok lvmt
test_eq "transaction_id: LVM2's metadata says 3 (thin1, snap1, thin2)" \
    "$(lvm2 lvs --noheadings -o transaction_id lvmt/pool 2>/dev/null | tr -d ' ')" 3
done_testing
