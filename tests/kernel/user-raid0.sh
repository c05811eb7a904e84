#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/user-raid0.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0734-kernel-user-raid0.sh) on 6 virtio disks kept on the host:
#   vda-vdc  VG "ux": raid0 z0, raid0_meta z1 and zs (a striped LV converted while
#            active) made by lvx on the host and written by lvx's user-space daemon
#            (data: /t/data/ux_LV.bin): LVM2 activates them, the kernel reads those bytes
#   vdd-vdf  empty: VG "kx" with raid0 z0 and raid0_meta z1 made here by LVM2 and written
#            through dm-raid (/t/data/kx_LV.bin), for lvx's daemon to read on the host
# Prints TAP (also to /out/result.tap when /out is shared).
# shellcheck disable=SC2317,SC2086
# shellcheck source=tests/kernel/guest-tap.sh
. /t/guest-tap.sh
sha() { sha256sum <"$1" | cut -d' ' -f1; }

check "LVM2 activates the daemon's VG ux" lvm vgchange -ay ux
for lv in z0 z1 zs; do
    check_eq "ux/$lv: the kernel reads the bytes the daemon wrote" "$(sha /dev/ux/$lv)" "$(sha /t/data/ux_$lv.bin)"
    check_eq "ux/$lv: served by dm-raid's raid0" "$(dmsetup table ux-$lv | awk '{ print $3, $4 }')" "raid raid0"
done
check "deactivate ux" lvm vgchange -an ux

check "LVM2 makes VG kx on vdd-vdf" sh -c "lvm pvcreate -q /dev/vdd /dev/vde /dev/vdf >/dev/null && lvm vgcreate -q kx /dev/vdd /dev/vde /dev/vdf >/dev/null"
check "LVM2 lvcreate --type raid0 -i3 -L 12m kx/z0" lvm lvcreate -q -y --type raid0 -i3 -L 12m -n z0 kx
check "LVM2 lvcreate --type raid0_meta -i3 -L 12m kx/z1" lvm lvcreate -q -y --type raid0_meta -i3 -L 12m -n z1 kx
for lv in z0 z1; do
    check "kx/$lv: write /t/data/kx_$lv.bin through dm-raid" dd if=/t/data/kx_$lv.bin of=/dev/kx/$lv bs=1M oflag=direct conv=fsync status=none
    check_eq "kx/$lv: reads back" "$(sha /dev/kx/$lv)" "$(sha /t/data/kx_$lv.bin)"
done
check "deactivate kx" lvm vgchange -an kx
sync
guest_done
