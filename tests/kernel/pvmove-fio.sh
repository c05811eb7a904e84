#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/pvmove-fio.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0719-kernel-pvmove.sh, the third part of its guest-parts.sh) with 8 virtio
# disks (of 128 MiB; 80 MiB of each used), lvx at /t/lvx, fio at /t/fio.
# A 4-stripe LV (vda-vdd) made and activated in the kernel by lvx, XFS on it, mounted;
# while fio writes and verifies files there (--verify=crc32c, one run after the other),
# lvx moves every PV of the LV to a new disk, one after another (vda->vde, vdb->vdf,
# vdc->vdg, vdd->vdh).  Checks: each pvmove exits 0 and leaves the LV's table striped
# on the new disk with no pvmove0; every fio run passed; a last fio pass verifies
# everything written; xfs_repair -n finds nothing after the unmount.
# shellcheck disable=SC2086
. /t/guest-tap.sh

VG=fm
check "lvx makes VG fm (vda-vdh) and a 4-stripe LV of 320 MiB on vda-vdd, active" sh -c \
    "$LVX pvcreate -q /dev/vd[a-h] && $LVX vgcreate -q $VG /dev/vd[a-h] &&
     $LVX lvcreate -q -y -i4 -I64k -L 320m -n s4 $VG /dev/vda /dev/vdb /dev/vdc /dev/vdd"
check "mkfs.xfs and mount" sh -c "mkfs.xfs -q /dev/$VG/s4 && mkdir -p /mnt && mount /dev/$VG/s4 /mnt"
FIO="--directory=/mnt --size=8m --bs=4k --ioengine=psync --verify=crc32c --do_verify=1 --verify_backlog=256"
fio_loop() {
    local i=0
    while [ ! -e /tmp/stop ]; do
        i=$((i + 1))
        if /t/fio --name=w$((i % 3)) --rw=randwrite $FIO --output=/tmp/fio.$i >/dev/null 2>&1; then
            echo "ok $i"
        else
            echo "bad $i"; cat /tmp/fio.$i
        fi
    done >/tmp/fio.log 2>&1
}
fio_loop &
FIOPID=$!
T0=$SECONDS
MOVED=0
for pair in vda:vde vdb:vdf vdc:vdg vdd:vdh; do
    s=${pair%:*} d=${pair#*:}
    t=$SECONDS
    check "lvx pvmove /dev/$s /dev/$d under fio (XFS mounted)" $LVX pvmove -i0 /dev/$s /dev/$d
    note "$s -> $d: $((SECONDS - t)) s"
    check_match "s4's table has $d in place of $s" "$(dmsetup table $VG-s4)" " $(devnum /dev/$d) 2048"
    check_eq "no pvmove0 device" "$(dmsetup ls | grep -c pvmove || true)" "0"
    MOVED=$((MOVED + 80))
done
note "moved $MOVED MiB in $((SECONDS - T0)) s while fio ran"
touch /tmp/stop
wait $FIOPID
note "fio runs during the moves: $(grep -c '^ok' /tmp/fio.log) passed, $(grep -c '^bad' /tmp/fio.log) failed"
check "fio ran during the moves" grep -q '^ok' /tmp/fio.log
check_eq "every fio run (write + crc32c verify) passed" "$(grep -c '^bad' /tmp/fio.log)" "0"
check "a last fio pass verifies the files written (verify_only)" sh -c \
    "for j in 0 1 2; do [ -e /mnt/w\$j.0.0 ] || continue; /t/fio --name=w\$j --rw=randwrite $FIO --verify_only >/tmp/fv 2>&1 || { cat /tmp/fv; exit 1; }; done"
check_eq "s4 on the new disks only" \
    "$(lvm lvs --noheadings -o devices $VG/s4 | tr -d ' ')" "/dev/vde(0),/dev/vdf(0),/dev/vdg(0),/dev/vdh(0)"
check "umount and xfs_repair -n" sh -c "umount /mnt && xfs_repair -n /dev/$VG/s4 >/tmp/xr 2>&1 || { cat /tmp/xr; exit 1; }"
check "LVM2's vgck accepts the VG" lvm vgck $VG
guest_done
