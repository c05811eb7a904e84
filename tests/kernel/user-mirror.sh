#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/user-mirror.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0720-kernel-user-mirror.sh) on 3 virtio disks kept on the host:
#   vda-vdc  VG "um": disk-log mirror m (-m1) and core-log mirror c (-m2), 8 MiB each,
#            made, synced and written by lvx's user-space daemon on the host (data:
#            /t/data/um_LV.bin).
# Checks: dm-mirror activates m in sync at once (the daemon's dm-log: "N/N" regions
# right after activation), both LVs read the daemon's bytes; then the kernel writes
# /t/data/k_m.bin to m (for the host's daemon to read back) and deactivates cleanly.
# Prints TAP (also to /out/result.tap).
# shellcheck source=tests/kernel/guest-tap.sh
. /t/guest-tap.sh

sha() { sha256sum <"$1" | cut -d' ' -f1; }
# mirror_sync VG-LV: "<in-sync>/<regions>" of dm-mirror's status line
mirror_sync() { dmsetup status "$1" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\/[0-9]+$/) { print $i; exit } }'; }

check "LVM2 activates the daemon's VG um" lvm vgchange -ay um
st=$(mirror_sync um-m)
rs=$(lvm lvs --noheadings --units s --nosuffix -o regionsize um/m | trim)
n=$(((16384 + rs - 1) / rs))
check_eq "um/m: all $n regions in sync right after activation (the daemon's log)" "$st" "$n/$n"
check_eq "um/m: copy_percent 100.00" "$(lvm lvs --noheadings -o copy_percent um/m | tr -d ' ')" "100.00"
for lv in m c; do
    check_eq "um/$lv: the kernel reads the bytes the daemon wrote" "$(sha /dev/um/$lv)" "$(sha /t/data/um_$lv.bin)"
done
check "um/m: write k_m.bin through dm-mirror" dd if=/t/data/k_m.bin of=/dev/um/m bs=1M oflag=direct conv=fsync status=none
check_eq "um/m: reads back" "$(sha /dev/um/m)" "$(sha /t/data/k_m.bin)"
for _ in $(seq 300); do
    st=$(mirror_sync um-m)
    [ "${st%/*}" = "${st#*/}" ] && break
    sleep 0.2
done
check "deactivate um" lvm vgchange -an um
sync
guest_done
