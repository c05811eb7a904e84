#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0706-kernel-snapshot-user: COW snapshot stores move between lvx's daemon (the `user`
# backend, on this host) and LVM2 with the kernel (a kvm-dm-test guest), both ways, on
# four disk images that the host attaches as loop devices and the guest gets as
# /dev/vda-vdd (kvm-dm-test --disk-dir --reuse-disks):
#   1. host: lvx makes VG lvxs on images a-b, an origin and two snapshots; its daemon
#      writes them (origin rewritten, writes to s1, s2 overflows); o2 with snapshot m1,
#      whose merge lvx's daemon begins (two steps) and leaves half done;
#   2. guest (tests/kernel/snapshot-user.sh): LVM2 activates lvxs with the kernel, origin
#      and s1 read back byte for byte, s1's usage as lvx reported, s2 invalid; the kernel
#      writes on; the kernel finishes the merge of m1 into o2; then LVM2 makes VG lvms
#      on images c-d the same way, and o2 with snapshot m1 whose merge waits (o2 open);
#   3. host: lvx's daemon serves LVM2's lvms: origin and s1 byte for byte as the kernel
#      served them, the same usage, s2 invalid; the daemon goes on with the kernel's
#      store, which then still parses (tests/tools/cow_check.py); its activation runs
#      the merge of m1 into o2 the kernel left pending.
# One guest boot (about 1-2 min under TCG) plus ~15 s on the host.  LVX_SKIP_KERNEL=1
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
need_cmd lvm flock
[[ -c /dev/fuse ]] || skip_all "no /dev/fuse"

uspace_images a b c d
uspace_attach a b
uspace_test_env lvxs "${D[@]}"
DEV=$DM_DEV_DIR

head -c 16M /dev/urandom >"$SCRATCH/A"
head -c 16M /dev/urandom >"$SCRATCH/B"
head -c 1M /dev/urandom >"$SCRATCH/C"

# ------------------------------------------------------------ 1. lvx's daemon writes lvxs
uspace_run_ok "lvx: vgcreate lvxs, origin of 16m" sh -c \
    "$LVX vgcreate lvxs ${D[*]} && $LVX lvcreate -n orig -L 16m lvxs"
uspace_run_ok "pattern A written to lvxs/orig" \
    dd if="$SCRATCH/A" of="$DEV/lvxs/orig" bs=1M oflag=direct status=none
uspace_run_ok "lvx: snapshots s1 (20m) and s2 (4m) of the inactive origin, the set activated" \
    sh -c "$LVX lvchange -an lvxs/orig && $LVX lvcreate -s -L 20m -n s1 lvxs/orig &&
           $LVX lvcreate -s -L 4m -n s2 lvxs/orig && $LVX lvchange -ay lvxs/orig"
uspace_run_ok "pattern B over the origin (the daemon copies to s1 and s2)" \
    dd if="$SCRATCH/B" of="$DEV/lvxs/orig" bs=1M oflag=direct status=none
uspace_run_ok "C written to s1 at 3 MiB and 512 bytes at sector 20001" sh -c \
    "dd if=$SCRATCH/C of=$DEV/lvxs/s1 bs=1M seek=3 oflag=direct status=none &&
     dd if=$SCRATCH/C of=$DEV/lvxs/s1 bs=512 count=1 seek=20001 oflag=direct status=none"
cp "$SCRATCH/A" "$SCRATCH/S1"
dd if="$SCRATCH/C" of="$SCRATCH/S1" bs=1M seek=3 conv=notrunc status=none
dd if="$SCRATCH/C" of="$SCRATCH/S1" bs=512 count=1 seek=20001 conv=notrunc status=none
test_eq "lvxs/s1 reads A with its writes" "$(lv_sum lvxs/s1)" "$(fsum "$SCRATCH/S1")"
attr=$(field lvxs/s2 lv_attr)
test_eq "lvxs/s2 overflowed: lv_attr I" "${attr:4:1}" "I"
# a merge lvx's daemon begins and the kernel finishes: o2 (A), snapshot m1, B over o2,
# lvconvert --merge, o2 activated without the poll, two steps asked of the daemon
uspace_run_ok "lvx: o2 (16m, A), snapshot m1 (20m), B over o2" sh -c \
    "$LVX lvcreate -n o2 -L 16m lvxs && dd if=$SCRATCH/A of=$DEV/lvxs/o2 bs=1M oflag=direct status=none &&
     $LVX lvchange -an lvxs/o2 && $LVX lvcreate -s -L 20m -n m1 lvxs/o2 && $LVX lvchange -ay lvxs/o2 &&
     dd if=$SCRATCH/B of=$DEV/lvxs/o2 bs=1M oflag=direct status=none"
uspace_run_ok "lvx: lvconvert --merge lvxs/m1, o2 activated with --poll n" sh -c \
    "$LVX lvchange -an lvxs/o2 && $LVX lvconvert --merge lvxs/m1 && $LVX lvchange -ay --poll n lvxs/o2"
r1=$(python3 "$LVX_ROOT/tests/tools/lvxd_request.py" snapmerge lvxs o2 200)
r2=$(python3 "$LVX_ROOT/tests/tools/lvxd_request.py" snapmerge lvxs o2 200)
diag "m1's records left after two merge steps: $r1, $r2"
test_ok "two merge steps by lvx's daemon, records left" \
    python3 -c 'import sys; a, b = (int(x.split()[1]) for x in sys.argv[1:]); sys.exit(not a > b > 0)' "$r1" "$r2"
test_eq "lvxs/o2, half merged, reads A (m1's contents)" "$(lv_sum lvxs/o2)" "$(fsum "$SCRATCH/A")"
{
    echo "orig $(lv_sum lvxs/orig)"
    echo "s1 $(lv_sum lvxs/s1)"
    echo "s1pct $(field lvxs/s1 snap_percent)"
    echo "m1 $(fsum "$SCRATCH/A")"
} >"$SCRATCH/host.sums"
diag "$(cat "$SCRATCH/host.sums")"
uspace_run_ok "lvx: the set deactivated" lvx vgchange -an lvxs
uspace_cleanup
for d in "${D[@]}"; do detach_loop "$d"; done

# ------------------------------------------------------------ 2. the guest
eval "_lib_done_testing() $(declare -f done_testing | sed 1d)"
done_testing() { :; }      # kernel_guest_test ends with it: the host part 3 follows
kernel_guest_test snapshot-user.sh 4 256M 900 --disk-dir "$DISKS" --reuse-disks \
    --put "$SCRATCH/A:/t/A" --put "$SCRATCH/B:/t/B" --put "$SCRATCH/C:/t/C" \
    --put "$SCRATCH/host.sums:/t/host.sums"
done_testing() { _lib_done_testing; }

# ------------------------------------------------------------ 3. lvx's daemon serves lvms
G=$SCRATCH/guest.sums
cp "$KERNEL_OUT/guest.sums" "$G" 2>/dev/null
USPACE_VG=lvms
test_ok "the guest wrote its sums" test -s "$G"
guest() { awk -v k="$1" '$1 == k { print $2 }' "$G"; }
uspace_attach c d
uspace_env "$SCRATCH/us" "${D[@]}"
lvm_sandbox "${D[@]}"
uspace_run_ok "lvx activates LVM2's lvms (origin and snapshots; the merge of m1 into o2 runs)" \
    lvx vgchange -ay lvms
test_ok "... lvx's daemon ran the merge the kernel left pending, as LVM2 says" \
    grep -q "Merge of snapshot into logical volume lvms/o2 has finished." "$SCRATCH/out"
test_eq "lvms/o2 reads A (m1's contents, merged back by lvx)" "$(lv_sum lvms/o2)" "$(fsum "$SCRATCH/A")"
test_eq "LVM2 reads lvms without m1" "$(lvm2 lvs -a --noheadings -o lv_name lvms 2>/dev/null | tr -d ' ' | grep -c '^\[*m1')" 0
test_ok "LVM2's vgck of lvms after lvx's merge" lvm2 vgck lvms
test_eq "lvms/orig reads back as the kernel served it" "$(lv_sum lvms/orig)" "$(guest orig)"
test_eq "lvms/s1 reads back as the kernel served it" "$(lv_sum lvms/s1)" "$(guest s1)"
test_eq "lvms/s1: snap_percent as the kernel reported it" "$(field lvms/s1 snap_percent)" \
    "$(guest s1pct)"
attr=$(field lvms/s2 lv_attr)
test_eq "lvms/s2 (invalidated by the kernel) is invalid for lvx: lv_attr I" "${attr:4:1}" "I"
s1=$(lv_sum lvms/s1)
uspace_run_ok "lvx's daemon writes the origin (A over it)" \
    dd if="$SCRATCH/A" of="$DEV/lvms/orig" bs=1M oflag=direct status=none
test_eq "lvms/s1 unchanged after lvx went on with the kernel's store" "$(lv_sum lvms/s1)" "$s1"
dd if="$DEV/lvms/orig" of="$SCRATCH/orig.now" bs=1M iflag=direct status=none
dd if="$DEV/lvms/s1" of="$SCRATCH/s1.now" bs=1M iflag=direct status=none
uspace_run_ok "lvx: the set deactivated" lvx vgchange -an lvms
lvm2 lvs --segments -o lv_name,seg_start,seg_size,stripes,stripe_size,seg_pe_ranges \
    --units s --nosuffix --reportformat json lvms/s1 >"$SCRATCH/segs.json" 2>/dev/null
lvm2 pvs -o pv_name,pe_start --units s --nosuffix --reportformat json >"$SCRATCH/pvs.json" 2>/dev/null
lvm2 vgs -o vg_extent_size --units s --nosuffix --reportformat json lvms >"$SCRATCH/vgs.json" 2>/dev/null
cow_size=$(lvm2 lvs --noheadings --units b --nosuffix -o lv_size lvms/s1 2>/dev/null | tr -d ' ')
"$PYTHON" "$LVX_ROOT/tests/tools/lv_pvread.py" "$SCRATCH/segs.json" "$SCRATCH/pvs.json" \
    "$SCRATCH/vgs.json" 0 "$cow_size" "$SCRATCH/cow.bin" >/dev/null 2>&1
uspace_run_ok "the store (kernel's, continued by lvx) parses; read as the kernel does, s1 is the same" \
    "$PYTHON" "$LVX_ROOT/tests/tools/cow_check.py" "$SCRATCH/cow.bin" - "$SCRATCH/orig.now" \
    "$SCRATCH/s1.now"
diag "$(cat "$SCRATCH/out")"
done_testing
