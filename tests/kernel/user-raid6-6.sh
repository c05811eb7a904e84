#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/user-raid6-6.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0750-kernel-user-raid6-6.sh) on 10 virtio disks kept on the host:
#   vda-vde  VG "ux": raid6_ls_6 r6ls, raid6_la_6 r6la, raid6_rs_6 r6rs, raid6_ra_6 r6ra
#            (raid5's layouts with Q on the last leg, LVM2's raid5 -> raid6 takeover
#            layouts) made by lvx on the host, synced and written by lvx's user-space
#            daemon (data: /t/data/ux_LV.bin)
#   vdf-vdj  empty: VG "kx" with the same LVs is made here by LVM2, synced by the
#            kernel and written through dm-raid (data: /t/data/kx_LV.bin), for the
#            host's daemon to read back.
# Checks: dm-raid activates the daemon's LVs in sync at once (no resync), reads the
# daemon's bytes, `--syncaction check` finds no mismatch; LVM2's own LVs are written
# and deactivated cleanly.  Prints TAP (also to /out/result.tap).
# shellcheck disable=SC2086,SC2046  # lists and status words split on purpose
# shellcheck source=tests/kernel/guest-tap.sh
. /t/guest-tap.sh

LVS="r6ls r6la r6rs r6ra"
type_of() { case $1 in r6ls) echo raid6_ls_6 ;; r6la) echo raid6_la_6 ;; r6rs) echo raid6_rs_6 ;; r6ra) echo raid6_ra_6 ;; esac; }
# raid_status VG-LV: "<health> <ratio> <action> <mismatches>" of dm-raid's status line
raid_status() { dmsetup status "$1" | awk '{ print $6, $7, $8, $9 }'; }
wait_idle() {
    for _ in $(seq 300); do
        [ "$(raid_status "$1" | cut -d' ' -f3)" = idle ] && break
        sleep 0.2
    done
}
sha() { sha256sum <"$1" | cut -d' ' -f1; }

check "LVM2 activates the daemon's VG ux" lvm vgchange -ay ux
for lv in $LVS; do
    st=$(raid_status ux-$lv)
    set -- $st
    check_eq "ux/$lv: LVM2 reads a $(type_of $lv) LV" "$(lvm lvs --noheadings -o segtype ux/$lv | trim)" "$(type_of $lv)"
    check_eq "ux/$lv: in sync right after activation (no resync): $st" "$1 ${2%/*} $3" "AAAAA ${2#*/} idle"
    check_eq "ux/$lv: the kernel reads the bytes the daemon wrote" "$(sha /dev/ux/$lv)" "$(sha /t/data/ux_$lv.bin)"
    check "ux/$lv: lvchange --syncaction check" lvm lvchange --syncaction check ux/$lv
    wait_idle ux-$lv
    set -- $(raid_status ux-$lv)
    check_eq "ux/$lv: the check ran and found no mismatch" "$3 $4" "idle 0"
done
check "deactivate ux" lvm vgchange -an ux

check "LVM2 makes VG kx on vdf-vdj" sh -c "lvm pvcreate -q /dev/vdf /dev/vdg /dev/vdh /dev/vdi /dev/vdj >/dev/null && lvm vgcreate -q kx /dev/vdf /dev/vdg /dev/vdh /dev/vdi /dev/vdj >/dev/null"
for lv in $LVS; do
    check "LVM2 lvcreate --type $(type_of $lv) -i3 -I 64k -L 12m kx/$lv" \
        lvm lvcreate -q -y --type "$(type_of $lv)" -i3 -I 64k -L 12m -n $lv kx
done
for lv in $LVS; do
    for _ in $(seq 600); do
        set -- $(raid_status kx-$lv)
        [ "$3" = idle ] && [ "${2%/*}" = "${2#*/}" ] && break
        sleep 0.2
    done
    check_eq "kx/$lv: the kernel synced it" "$3 ${2%/*}" "idle ${2#*/}"
    check "kx/$lv: write /t/data/kx_$lv.bin through dm-raid" dd if=/t/data/kx_$lv.bin of=/dev/kx/$lv bs=1M oflag=direct conv=fsync status=none
    check_eq "kx/$lv: reads back" "$(sha /dev/kx/$lv)" "$(sha /t/data/kx_$lv.bin)"
done
check "deactivate kx" lvm vgchange -an kx
sync
guest_done
