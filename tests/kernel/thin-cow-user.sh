#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/thin-cow-user.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0752-kernel-thin-cow-user.sh) with 4 virtio disks whose images the host
# wrote before: COW snapshots of thin LVs moving between lvx's daemon and the kernel
# (snapshot-origin over the thin LV's -real, dm-snapshot's persistent store).
#
#   vda-vdb  VG "lvxc" made by lvx on the host and written by lvx's daemon: pool, thin
#            (48 MiB virtual; A at 0, B over 8-24 MiB after the snapshot), its COW
#            snapshot snap (C written into it at 40 MiB); thin t2 (B) whose COW
#            snapshot m (A) lvx set to merge at t2's next activation.  Expected sums
#            and percentages in /t/host.sums.
#   vdc-vdd  empty: LVM2 makes VG "lvmc" the same way here through the kernel, and t2
#            (B) with snapshot m (A) whose merge waits (t2 open); the host then serves
#            it with lvx's daemon (which runs that merge) and compares with
#            /out/guest.sums.
#
# Checks: LVM2 activates lvx's set (thin_check at activation), thin and snap read back
# byte for byte, snap_percent and Data% as lvx reported; the kernel merges m into t2;
# the kernel writes the origin on (D at 4 MiB: snap unchanged); its sums go to
# /out/guest.sums for the host.
# shellcheck source=tests/kernel/guest-tap.sh
. /t/guest-tap.sh

sum() { sha256sum <"$1" | cut -d' ' -f1; }
host() { awk -v k="$1" '$1 == k { print $2 }' /t/host.sums; }
rep() { lvm lvs --noheadings -o "$2" "$1" | trim; }
gone() {  # gone VG/LV: wait until LV is no longer in VG (LVM2's background poller)
    for _ in $(seq 1 120); do
        lvm lvs "$1" >/dev/null 2>&1 || return 0
        sleep 0.5
    done
    return 1
}

# ---------------------------------------------------------------- lvx's set, kernel reads
check "LVM2 activates lvxc (the pool, thin with its COW snapshot, as lvx's daemon left them)" \
    lvm vgchange -ay lvxc
note "$(dmsetup table | grep '^lvxc-' | sort)"
check_eq "lvxc/thin reads back as lvx's daemon served it" "$(sum /dev/lvxc/thin)" "$(host thin)"
check_eq "lvxc/snap reads back as lvx's daemon served it" "$(sum /dev/lvxc/snap)" "$(host snap)"
check_eq "lvxc/snap: snap_percent from the kernel as lvx reported it" \
    "$(rep lvxc/snap snap_percent)" "$(host snappct)"
check_eq "lvxc/thin: Data% from the kernel as lvx reported it" \
    "$(rep lvxc/thin data_percent)" "$(host thindata)"
check "the kernel writes the origin (D at 4 MiB)" \
    dd if=/t/D of=/dev/lvxc/thin bs=1M seek=4 oflag=direct status=none
check_eq "lvxc/snap unchanged after the kernel's origin write" "$(sum /dev/lvxc/snap)" "$(host snap)"
check "the kernel merges m into t2 (the merge lvx set; LVM2's poller removes m)" gone lvxc/m
check_eq "lvxc/t2 after the merge reads A (m's contents)" "$(sum /dev/lvxc/t2)" "$(host t2merged)"
{
    echo "xthin $(sum /dev/lvxc/thin)"
    echo "xsnappct $(rep lvxc/snap snap_percent)"
} >/out/guest.sums
check "LVM2 deactivates lvxc" lvm vgchange -an lvxc

# ---------------------------------------------------------------- the kernel's set, for lvx
check "LVM2 makes lvmc: pool (64m), thin (48m virtual), A at 0" sh -c \
    "lvm pvcreate -q /dev/vdc /dev/vdd && lvm vgcreate -q lvmc /dev/vdc /dev/vdd &&
     lvm lvcreate -q -T -L 64m lvmc/pool -V 48m -n thin &&
     dd if=/t/A of=/dev/lvmc/thin bs=1M oflag=direct status=none"
check "LVM2: COW snapshot snap (24m) of the active thin LV" lvm lvcreate -q -s -L 24m -n snap lvmc/thin
check "B over thin's 8-24 MiB, C into snap at 40 MiB" sh -c \
    "dd if=/t/B of=/dev/lvmc/thin bs=1M seek=8 oflag=direct status=none &&
     dd if=/t/C of=/dev/lvmc/snap bs=1M seek=40 oflag=direct status=none"
{
    echo "thin $(sum /dev/lvmc/thin)"
    echo "snap $(sum /dev/lvmc/snap)"
    echo "snappct $(rep lvmc/snap snap_percent)"
    echo "thindata $(rep lvmc/thin data_percent)"
} >>/out/guest.sums
check_eq "lvmc/snap reads A then zeroes, with C at 40 MiB (the old data)" "$(sum /dev/lvmc/snap)" \
    "$(host lvmsnap)"
check "LVM2: thin t2 (16m, A), COW snapshot m (20m), B over t2" sh -c \
    "lvm lvcreate -q -V 16m -T lvmc/pool -n t2 && dd if=/t/A of=/dev/lvmc/t2 bs=1M oflag=direct status=none &&
     lvm lvcreate -q -s -L 20m -n m lvmc/t2 && dd if=/t/B of=/dev/lvmc/t2 bs=1M oflag=direct status=none"
sleep 600 </dev/lvmc/t2 &
holder=$!
sleep 1
out=$(lvm lvconvert --merge lvmc/m 2>&1)
check_eq "LVM2: the merge of m waits (t2 open)" \
    "$(printf '%s\n' "$out" | grep -c 'Delaying merge since origin is open')" 1
kill $holder
wait $holder 2>/dev/null
check "LVM2 deactivates lvmc" lvm vgchange -an lvmc
note "$(cat /out/guest.sums)"
guest_done
