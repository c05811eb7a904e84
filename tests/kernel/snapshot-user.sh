#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/snapshot-user.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0706-kernel-snapshot-user.sh) with 4 virtio disks whose images the host
# wrote before: COW snapshot stores moving between lvx's daemon and the kernel.
#
#   vda-vdb  VG "lvxs" made by lvx on the host and written by lvx's daemon (the `user`
#            backend): origin "orig" (pattern B, C at 5 MiB), snapshot s1 (A with C at
#            3 MiB), s2 (overflowed: invalid); o2 (B) whose snapshot m1 (A) lvx's daemon
#            began to merge.  Expected sums in /t/host.sums.
#   vdc-vdd  empty: LVM2 makes VG "lvms" the same way here, through the kernel, and o2
#            (B) with snapshot m1 (A) whose merge waits (o2 open); the host then serves
#            it with lvx's daemon (which runs that merge) and compares with
#            /out/guest.sums.
#
# Checks: LVM2 + the kernel activate lvx's VG, origin and s1 read back byte for byte,
# s1's usage (snap_percent) as lvx reported, s2 invalid (lv_attr I); the kernel goes on
# with lvx's store (an origin write, s1 unchanged); then LVM2's own VG for the host.
# shellcheck source=tests/kernel/guest-tap.sh
. /t/guest-tap.sh

sum() { sha256sum <"$1" | cut -d' ' -f1; }
host() { awk -v k="$1" '$1 == k { print $2 }' /t/host.sums; }

# ---------------------------------------------------------------- lvx's store, kernel reads
check "LVM2 activates lvxs (written by lvx's daemon on the host)" lvm vgchange -ay lvxs
check_eq "lvxs/orig reads back as lvx's daemon served it" "$(sum /dev/lvxs/orig)" "$(host orig)"
check_eq "lvxs/s1 reads back as lvx's daemon served it" "$(sum /dev/lvxs/s1)" "$(host s1)"
check_eq "lvxs/s1: snap_percent from the kernel as lvx reported it" \
    "$(lvm lvs --noheadings -o snap_percent lvxs/s1 | trim)" "$(host s1pct)"
attr=$(lvm lvs --noheadings -o lv_attr lvxs/s2 | trim)
check_eq "lvxs/s2 (invalidated by lvx) is invalid for the kernel: lv_attr I" "${attr:4:1}" "I"
note "$(dmsetup status | grep '^lvxs-')"
check "the kernel writes the origin (C at 7 MiB)" \
    dd if=/t/C of=/dev/lvxs/orig bs=1M seek=7 oflag=direct
check_eq "lvxs/s1 unchanged after the kernel went on with lvx's store" \
    "$(sum /dev/lvxs/s1)" "$(host s1)"
check_eq "lvxs/o2 (its merge begun by lvx's daemon) reads as m1 did" "$(sum /dev/lvxs/o2)" "$(host m1)"
note "$(dmsetup status lvxs-o2)"
gone() {  # gone VG LV: wait until LV is no longer in VG (LVM2's background poller)
    for _ in $(seq 1 120); do
        lvm lvs "$1/$2" >/dev/null 2>&1 || return 0
        sleep 0.5
    done
    return 1
}
check "the kernel finishes the merge (LVM2's poller removes m1)" gone lvxs m1
check_eq "lvxs/o2 after the merge reads as m1 did" "$(sum /dev/lvxs/o2)" "$(host m1)"
check "LVM2 deactivates lvxs" lvm vgchange -an lvxs

# ---------------------------------------------------------------- the kernel's store, for lvx
check "LVM2 makes lvms with a 16m origin" sh -c \
    "lvm pvcreate -q /dev/vdc /dev/vdd && lvm vgcreate -q lvms /dev/vdc /dev/vdd &&
     lvm lvcreate -q -y -L 16m -n orig lvms"
check "pattern A written to lvms/orig" dd if=/t/A of=/dev/lvms/orig bs=1M oflag=direct
check "LVM2 snapshots s1 (20m) and s2 (4m)" sh -c \
    "lvm lvcreate -q -s -L 20m -n s1 lvms/orig && lvm lvcreate -q -s -L 4m -n s2 lvms/orig"
check "pattern B over lvms/orig" dd if=/t/B of=/dev/lvms/orig bs=1M oflag=direct
check "C written to lvms/s1 at 3 MiB and 512 bytes at sector 20001" sh -c \
    "dd if=/t/C of=/dev/lvms/s1 bs=1M seek=3 oflag=direct &&
     dd if=/t/C of=/dev/lvms/s1 bs=512 count=1 seek=20001 oflag=direct"
attr=$(lvm lvs --noheadings -o lv_attr lvms/s2 | trim)
check_eq "lvms/s2 overflowed in the kernel: lv_attr I" "${attr:4:1}" "I"
check "LVM2: o2 (A), snapshot m1, B over o2" sh -c \
    "lvm lvcreate -q -y -L 16m -n o2 lvms && dd if=/t/A of=/dev/lvms/o2 bs=1M oflag=direct 2>/dev/null &&
     lvm lvcreate -q -s -L 20m -n m1 lvms/o2 && dd if=/t/B of=/dev/lvms/o2 bs=1M oflag=direct 2>/dev/null"
sleep 600 </dev/lvms/o2 &
holder=$!
sleep 1
out=$(lvm lvconvert --merge lvms/m1 2>&1)
check_eq "LVM2: the merge of m1 waits (o2 open)" "$(printf '%s\n' "$out" | grep -c 'Delaying merge since origin is open')" 1
kill $holder
wait $holder 2>/dev/null
{
    echo "orig $(sum /dev/lvms/orig)"
    echo "s1 $(sum /dev/lvms/s1)"
    echo "s1pct $(lvm lvs --noheadings -o snap_percent lvms/s1 | trim)"
} >/out/guest.sums
note "$(cat /out/guest.sums)"
check "LVM2 deactivates lvms" lvm vgchange -an lvms
guest_done
