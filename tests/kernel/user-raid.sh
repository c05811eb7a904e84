#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/user-raid.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0714-kernel-user-raid.sh) on 10 virtio disks kept on the host:
#   vda-vde  VG "ux": raid1 r1, raid10 r10, raid5 r5, raid6 r6 (zr), r6c (nc) and r6n
#            (n_6) made by lvx on the
#            host, synced and written by lvx's user-space daemon (data: /t/data/ux_LV.bin);
#            raid1 rc whose images the daemon changed (lvconvert -m2, then -m1 PV);
#            raid1 rp and raid5 rq with a planted mismatch the daemon's check counted
#            (/t/data/LV.mism): the kernel's check must count the same
#   vdf-vdj  empty: VG "kx" with the same LVs is made here by LVM2, synced by the
#            kernel and written through dm-raid (data: /t/data/kx_LV.bin: ux's
#            data of the other LV; r5, r6*: kx_LV.bin), for the host's
#            daemon to read back.
# Checks: the kernel's dm-raid activates the daemon's LVs in sync at once (health all
# "A", sync ratio complete, action idle: no resync), reads the daemon's bytes, and a
# `--syncaction check` finds no mismatch; then LVM2's own LVs are written and
# deactivated cleanly.  Prints TAP (also to /out/result.tap).
# shellcheck source=tests/kernel/guest-tap.sh
. /t/guest-tap.sh

# raid_status VG-LV: "<health> <ratio> <action> <mismatches>" of dm-raid's status line
raid_status() { dmsetup status "$1" | awk '{ print $6, $7, $8, $9 }'; }
# wait_idle VG-LV: until dm-raid's sync action is idle again (at most 60 s)
wait_idle() {
    local dev=$1 st
    for _ in $(seq 300); do
        st=$(raid_status "$dev")
        [ "$(echo "$st" | cut -d' ' -f3)" = idle ] && break
        sleep 0.2
    done
}
sha() { sha256sum <"$1" | cut -d' ' -f1; }

check "LVM2 activates the daemon's VG ux" lvm vgchange -ay ux
for lv in r1 r10 r5 r6 r6c r6n rc; do
    n=$(lvm lvs --noheadings -o devices ux/$lv | tr ',' '\n' | grep -c rimage)
    st=$(raid_status ux-$lv)
    set -- $st
    total=${2#*/}
    want_h=$(printf "%${n}s" | tr ' ' A)
    check_eq "ux/$lv: in sync right after activation (no resync): $st" "$1 ${2%/*} $3" "$want_h $total idle"
    check_eq "ux/$lv: the kernel reads the bytes the daemon wrote" "$(sha /dev/ux/$lv)" "$(sha /t/data/ux_$lv.bin)"
    check "ux/$lv: lvchange --syncaction check" lvm lvchange --syncaction check ux/$lv
    wait_idle ux-$lv
    set -- $(raid_status ux-$lv)
    check_eq "ux/$lv: the check ran and found no mismatch" "$3 $4" "idle 0"
done
for lv in rp rq; do
    check "ux/$lv (a planted mismatch): lvchange --syncaction check" lvm lvchange --syncaction check ux/$lv
    wait_idle ux-$lv
    set -- $(raid_status ux-$lv)
    check_eq "ux/$lv: the kernel counts the mismatch as lvx's daemon did" "$3 $4" "idle $(cat /t/data/$lv.mism)"
done
check "deactivate ux" lvm vgchange -an ux

check "LVM2 makes VG kx on vdf-vdj" sh -c "lvm pvcreate -q /dev/vdf /dev/vdg /dev/vdh /dev/vdi /dev/vdj >/dev/null && lvm vgcreate -q kx /dev/vdf /dev/vdg /dev/vdh /dev/vdi /dev/vdj >/dev/null"
check "LVM2 lvcreate --type raid1 -m1 -L 8m kx/r1" lvm lvcreate -q -y --type raid1 -m1 -L 8m -n r1 kx
check "LVM2 lvcreate --type raid10 -i2 -m1 -I 64k -L 8m kx/r10" lvm lvcreate -q -y --type raid10 -i2 -m1 -I 64k -L 8m -n r10 kx
check "LVM2 lvcreate --type raid5 -i3 -I 64k -L 12m kx/r5" lvm lvcreate -q -y --type raid5 -i3 -I 64k -L 12m -n r5 kx
check "LVM2 lvcreate --type raid6 -i3 -I 64k -L 12m kx/r6" lvm lvcreate -q -y --type raid6 -i3 -I 64k -L 12m -n r6 kx
check "LVM2 lvcreate --type raid6_nc -i3 -I 64k -L 12m kx/r6c" lvm lvcreate -q -y --type raid6_nc -i3 -I 64k -L 12m -n r6c kx
check "LVM2 lvcreate --type raid6_n_6 -i3 -I 64k -L 12m kx/r6n" lvm lvcreate -q -y --type raid6_n_6 -i3 -I 64k -L 12m -n r6n kx
for lv in r1 r10 r5 r6 r6c r6n; do
    for _ in $(seq 600); do
        set -- $(raid_status kx-$lv)
        [ "$3" = idle ] && [ "${2%/*}" = "${2#*/}" ] && break
        sleep 0.2
    done
    check_eq "kx/$lv: the kernel synced it" "$3 ${2%/*}" "idle ${2#*/}"
    src=/t/data/ux_r1.bin
    [ $lv = r1 ] && src=/t/data/ux_r10.bin
    case $lv in r5|r6*) src=/t/data/kx_$lv.bin ;; esac
    check "kx/$lv: write $src through dm-raid" dd if=$src of=/dev/kx/$lv bs=1M oflag=direct conv=fsync status=none
    check_eq "kx/$lv: reads back" "$(sha /dev/kx/$lv)" "$(sha $src)"
done
check "deactivate kx" lvm vgchange -an kx
sync
guest_done
