#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/thin-user.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0707-kernel-thin-user.sh) with 4 virtio disks whose images the host wrote
# before: thin pools moving between lvx's daemon and the kernel's dm-thin.
#
#   vda-vdb  VG "lvxt" made by lvx on the host and written by lvx's daemon (the `user`
#            backend): pool "pool", thin1 (A, then B over its first 16 MiB after the
#            snapshot, C at 40 MiB), its thin snapshot snap1 (A, C at 40 MiB), thin2
#            (made while the pool was inactive: the command wrote create_thin itself,
#            never written).  Expected sums and Data% in /t/host.sums.
#   vdc-vdd  empty: LVM2 makes VG "lvmt" the same way here through the kernel; the host
#            then serves it with lvx's daemon and compares with /out/guest.sums.
#
# Checks: LVM2 activates lvx's pool (its thin_check at activation passes) and thin LVs,
# they read back byte for byte, Data% as lvx reported; the kernel writes on (snap1
# unchanged); thin_check of the metadata after the kernel's deactivation.
# shellcheck source=tests/kernel/guest-tap.sh
. /t/guest-tap.sh

sum() { sha256sum <"$1" | cut -d' ' -f1; }
host() { awk -v k="$1" '$1 == k { print $2 }' /t/host.sums; }

# ---------------------------------------------------------------- lvx's pool, kernel reads
check "LVM2 activates lvxt (thin_check at activation, pool and thin LVs lvx's daemon wrote)" \
    lvm vgchange -ay lvxt
check "LVM2 activates the thin snapshot snap1 (-K)" lvm lvchange -ay -K lvxt/snap1
note "$(dmsetup status | grep '^lvxt-')"
check_eq "lvxt/thin1 reads back as lvx's daemon served it" "$(sum /dev/lvxt/thin1)" "$(host thin1)"
check_eq "lvxt/snap1 reads back as lvx's daemon served it" "$(sum /dev/lvxt/snap1)" "$(host snap1)"
check_eq "lvxt/thin2 (created by lvx without the daemon) reads as zeroes" "$(sum /dev/lvxt/thin2)" "$(host thin2)"
check_eq "lvxt/pool: Data% from the kernel as lvx reported it" \
    "$(lvm lvs --noheadings -o data_percent lvxt/pool | trim)" "$(host pooldata)"
check_eq "lvxt/thin1: Data% from the kernel as lvx reported it" \
    "$(lvm lvs --noheadings -o data_percent lvxt/thin1 | trim)" "$(host thin1data)"
check "the kernel writes thin1 (C at 8 MiB)" dd if=/t/C of=/dev/lvxt/thin1 bs=1M seek=8 oflag=direct
check_eq "lvxt/snap1 unchanged after the kernel went on with lvx's pool" \
    "$(sum /dev/lvxt/snap1)" "$(host snap1)"
check "LVM2 makes thin3 in lvx's pool (create_thin through the kernel)" \
    lvm lvcreate -q -V 16m -T lvxt/pool -n thin3
check "LVM2 deactivates lvxt" lvm vgchange -an lvxt
check "LVM2 activates lvxt again (thin_check passes after the kernel's writes)" lvm vgchange -ay lvxt
check "LVM2 deactivates lvxt" lvm vgchange -an lvxt

# ---------------------------------------------------------------- the kernel's pool, for lvx
check "LVM2 makes lvmt: pool (64m), thin1 (64m virtual)" sh -c \
    "lvm pvcreate -q /dev/vdc /dev/vdd && lvm vgcreate -q lvmt /dev/vdc /dev/vdd &&
     lvm lvcreate -q -T -L 64m lvmt/pool && lvm lvcreate -q -V 64m -T lvmt/pool -n thin1"
check "pattern A written to lvmt/thin1, C at 40 MiB" sh -c \
    "dd if=/t/A of=/dev/lvmt/thin1 bs=1M oflag=direct && dd if=/t/C of=/dev/lvmt/thin1 bs=1M seek=40 oflag=direct"
check "LVM2: thin snapshot snap1 of thin1, activated" sh -c \
    "lvm lvcreate -q -s -n snap1 lvmt/thin1 && lvm lvchange -ay -K lvmt/snap1"
check "pattern B over lvmt/thin1's first 16 MiB" dd if=/t/B of=/dev/lvmt/thin1 bs=1M oflag=direct
{
    echo "thin1 $(sum /dev/lvmt/thin1)"
    echo "snap1 $(sum /dev/lvmt/snap1)"
    echo "pooldata $(lvm lvs --noheadings -o data_percent lvmt/pool | trim)"
    echo "thin1data $(lvm lvs --noheadings -o data_percent lvmt/thin1 | trim)"
} >/out/guest.sums
check "LVM2 deactivates lvmt" lvm vgchange -an lvmt
note "$(cat /out/guest.sums)"
guest_done
