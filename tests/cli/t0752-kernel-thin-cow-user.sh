#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0752-kernel-thin-cow-user: COW snapshots of thin LVs move between lvx's daemon (the
# `user` backend, on this host) and LVM2 with the kernel (a kvm-dm-test guest), both
# ways, on four disk images the host attaches as loop devices and the guest gets as
# /dev/vda-vdd (kvm-dm-test --disk-dir --reuse-disks):
#   1. host: lvx makes VG lvxc on images a-b: pool (64m), thin (48m virtual, A in its
#      first 16 MiB, the rest never written), a COW snapshot snap (24m) of the live thin
#      LV; the daemon writes B over thin's 8-24 MiB (snap copies the old chunks, the
#      pool provisions 16-24 MiB) and C into snap at 40 MiB; thin t2 (A) with COW
#      snapshot m, B over t2, lvconvert --merge of m with t2 inactive (deferred);
#      thin_check passes;
#   2. guest (tests/kernel/thin-cow-user.sh): LVM2 activates lvxc with the kernel, thin
#      and snap read back byte for byte, snap_percent and Data% as lvx reported; the
#      kernel merges m into t2; it writes D into thin at 4 MiB (snap unchanged); then
#      LVM2 makes VG lvmc on images c-d the same way, and t2/m whose merge waits (t2
#      open);
#   3. host: lvx's daemon serves lvxc as the kernel left it and LVM2's lvmc: thin and
#      snap byte for byte as the kernel served them, the same snap_percent and Data%;
#      lvx's activation runs the merge of m into t2 the kernel left pending; the daemon
#      writes on (snap unchanged), the kernel's store then still parses
#      (tests/tools/cow_check.py) and thin_check passes on both pools.
# One guest boot (about 1-2 min under TCG) plus ~20 s on the host.  LVX_SKIP_KERNEL=1
# skips.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

uspace_need_guest
need_cmd flock thin_check
uspace_images a b c d
uspace_attach a b
uspace_test_env lvxc "${D[@]}"
DEV=$DM_DEV_DIR
meta_ok() { "$LVX_ROOT/tests/tools/thin_meta_check.sh" "$1" pool "$SCRATCH"; }
# cow_of VG/LV OUT: the COW LV's bytes read from the PVs where LVM2's report puts them
cow_of() {
    lvm2 lvs --segments -o lv_name,seg_start,seg_size,stripes,stripe_size,seg_pe_ranges \
        --units s --nosuffix --reportformat json "$1" >"$SCRATCH/segs.json" 2>/dev/null
    lvm2 pvs -o pv_name,pe_start --units s --nosuffix --reportformat json >"$SCRATCH/pvs.json" 2>/dev/null
    lvm2 vgs -o vg_extent_size --units s --nosuffix --reportformat json "${1%/*}" >"$SCRATCH/vgs.json" 2>/dev/null
    "$PYTHON" "$LVX_ROOT/tests/tools/lv_pvread.py" "$SCRATCH/segs.json" "$SCRATCH/pvs.json" \
        "$SCRATCH/vgs.json" 0 "$(lvm2 lvs --noheadings --units b --nosuffix -o lv_size "$1" 2>/dev/null | tr -d ' ')" \
        "$2" >/dev/null 2>&1
}

for p in A B D; do head -c 16M /dev/urandom >"$SCRATCH/$p"; done
head -c 1M /dev/urandom >"$SCRATCH/C"
# what snap holds in either VG: A, zeroes to 48 MiB, C at 40 MiB
{ cat "$SCRATCH/A"; head -c 32M /dev/zero; } >"$SCRATCH/S"
dd if="$SCRATCH/C" of="$SCRATCH/S" bs=1M seek=40 conv=notrunc status=none
# what thin holds: A, B over 8-24 MiB, zeroes to 48 MiB
cp "$SCRATCH/S" "$SCRATCH/T"
dd if=/dev/zero of="$SCRATCH/T" bs=1M seek=40 count=1 conv=notrunc status=none
dd if="$SCRATCH/B" of="$SCRATCH/T" bs=1M seek=8 conv=notrunc status=none

# ------------------------------------------------------------ 1. lvx's daemon writes lvxc
uspace_run_ok "lvx: vgcreate lvxc, pool (64m), thin (48m virtual), A at 0" sh -c \
    "$LVX vgcreate lvxc ${D[*]} && $LVX lvcreate -T -L 64m lvxc/pool -V 48m -n thin &&
     dd if=$SCRATCH/A of=$DEV/lvxc/thin bs=1M oflag=direct status=none"
uspace_run_ok "lvx: COW snapshot snap (24m) of the active thin LV" \
    lvx lvcreate -s -L 24m -n snap lvxc/thin
uspace_run_ok "B over thin's 8-24 MiB, C into snap at 40 MiB" sh -c \
    "dd if=$SCRATCH/B of=$DEV/lvxc/thin bs=1M seek=8 oflag=direct status=none &&
     dd if=$SCRATCH/C of=$DEV/lvxc/snap bs=1M seek=40 oflag=direct status=none"
test_eq "lvxc/thin reads A with B over 8-24 MiB" "$(lv_sum lvxc/thin)" "$(fsum "$SCRATCH/T")"
test_eq "lvxc/snap reads A, zeroes, C at 40 MiB" "$(lv_sum lvxc/snap)" "$(fsum "$SCRATCH/S")"
uspace_run_ok "lvx: thin t2 (16m, A), COW snapshot m (20m) of it active, B over t2" sh -c \
    "$LVX lvcreate -V 16m -T lvxc/pool -n t2 && dd if=$SCRATCH/A of=$DEV/lvxc/t2 bs=1M oflag=direct status=none &&
     $LVX lvcreate -s -L 20m -n m lvxc/t2 && dd if=$SCRATCH/B of=$DEV/lvxc/t2 bs=1M oflag=direct status=none"
test_eq "lvxc/m reads A" "$(lv_sum lvxc/m)" "$(fsum "$SCRATCH/A")"
rc=0
lvx lvchange -an lvxc/t2 >"$SCRATCH/o" 2>&1 && lvx lvconvert --merge lvxc/m >"$SCRATCH/o" 2>&1 || rc=$?
test_eq "lvx: lvconvert --merge lvxc/m with t2 inactive: exit 0" "$rc" 0
test_ok "... LVM2's line: deferred to t2's next activation" \
    grep -q "Merging of snapshot lvxc/m will occur on next activation of lvxc/t2." "$SCRATCH/o"
{
    echo "thin $(lv_sum lvxc/thin)"
    echo "snap $(lv_sum lvxc/snap)"
    echo "snappct $(field lvxc/snap snap_percent)"
    echo "thindata $(field lvxc/thin data_percent)"
    echo "lvmsnap $(fsum "$SCRATCH/S")"
    echo "t2merged $(fsum "$SCRATCH/A")"
} >"$SCRATCH/host.sums"
diag "$(cat "$SCRATCH/host.sums")"
uspace_run_ok "lvx: lvxc deactivated" lvx vgchange -an lvxc
test_ok "thin_check passes on the pool lvx's daemon wrote" meta_ok lvxc
uspace_cleanup
for d in "${D[@]}"; do detach_loop "$d"; done

# ------------------------------------------------------------ 2. the guest
eval "_lib_done_testing() $(declare -f done_testing | sed 1d)"
done_testing() { :; }      # kernel_guest_test ends with it: the host part 3 follows
kernel_guest_test thin-cow-user.sh 4 256M 280 --disk-dir "$DISKS" --reuse-disks \
    --put "$SCRATCH/A:/t/A" --put "$SCRATCH/B:/t/B" --put "$SCRATCH/C:/t/C" \
    --put "$SCRATCH/D:/t/D" --put "$SCRATCH/host.sums:/t/host.sums"
done_testing() { _lib_done_testing; }

# ------------------------------------------------------------ 3. lvx's daemon serves both
G=$SCRATCH/guest.sums
cp "$KERNEL_OUT/guest.sums" "$G" 2>/dev/null
test_ok "the guest wrote its sums" test -s "$G"
guest() { awk -v k="$1" '$1 == k { print $2 }' "$G"; }
uspace_attach a b c d
uspace_env "$SCRATCH/us" "${D[@]}"
lvm_sandbox "${D[@]}"
USPACE_VG=lvxc
uspace_run_ok "lvx activates lvxc as the kernel left it" lvx vgchange -ay lvxc
dd if="$SCRATCH/D" of="$SCRATCH/T" bs=1M seek=4 conv=notrunc status=none
test_eq "lvxc/thin reads the kernel's write (D at 4 MiB)" "$(lv_sum lvxc/thin)" "$(guest xthin)"
test_eq "... which is A, B, D where written" "$(guest xthin)" "$(fsum "$SCRATCH/T")"
test_eq "lvxc/snap still reads A, zeroes, C at 40 MiB" "$(lv_sum lvxc/snap)" "$(fsum "$SCRATCH/S")"
test_eq "lvxc/snap: snap_percent as the kernel reported it" "$(field lvxc/snap snap_percent)" \
    "$(guest xsnappct)"
uspace_run_ok "lvx: lvxc deactivated" lvx vgchange -an lvxc
test_ok "thin_check passes on lvxc after the kernel's writes" meta_ok lvxc

USPACE_VG=lvmc
test_ok "thin_check passes on the kernel's pool (host)" meta_ok lvmc
uspace_run_ok "lvx activates LVM2's lvmc (pool, thin with its COW snapshot; the merge of m runs)" \
    lvx vgchange -ay lvmc
test_ok "... lvx's daemon ran the merge the kernel left pending, as LVM2 says" \
    grep -q "Merge of snapshot into logical volume lvmc/t2 has finished." "$SCRATCH/out"
test_eq "lvmc/t2 reads A (m's contents, merged back by lvx)" "$(lv_sum lvmc/t2)" "$(fsum "$SCRATCH/A")"
test_eq "LVM2 reads lvmc without m" "$(lvm2 lvs -a --noheadings -o lv_name lvmc 2>/dev/null | tr -d ' []' | grep -cx m)" 0
test_eq "lvmc/thin reads back as the kernel served it" "$(lv_sum lvmc/thin)" "$(guest thin)"
test_eq "lvmc/snap reads back as the kernel served it" "$(lv_sum lvmc/snap)" "$(guest snap)"
test_eq "lvmc/snap: snap_percent as the kernel reported it" "$(field lvmc/snap snap_percent)" \
    "$(guest snappct)"
test_eq "lvmc/thin: Data% as the kernel reported it" "$(field lvmc/thin data_percent)" \
    "$(guest thindata)"
uspace_run_ok "lvx's daemon writes the origin (4 MiB of D at 24 MiB: copies, provisioning)" \
    dd if="$SCRATCH/D" of="$DEV/lvmc/thin" bs=1M count=4 seek=24 oflag=direct status=none
test_eq "lvmc/snap unchanged after lvx went on with the kernel's store" \
    "$(lv_sum lvmc/snap)" "$(guest snap)"
dd if="$DEV/lvmc/thin" of="$SCRATCH/orig.now" bs=1M iflag=direct status=none
dd if="$DEV/lvmc/snap" of="$SCRATCH/snap.now" bs=1M iflag=direct status=none
uspace_run_ok "lvx: lvmc deactivated" lvx vgchange -an lvmc
cow_of lvmc/snap "$SCRATCH/cow.bin"
uspace_run_ok "the kernel's store, continued by lvx, parses; read as the kernel does, snap is the same" \
    "$PYTHON" "$LVX_ROOT/tests/tools/cow_check.py" "$SCRATCH/cow.bin" - "$SCRATCH/orig.now" \
    "$SCRATCH/snap.now"
diag "$(cat "$SCRATCH/out")"
test_ok "thin_check passes on the kernel's pool lvx changed" meta_ok lvmc
done_testing
