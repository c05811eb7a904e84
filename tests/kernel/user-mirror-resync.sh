#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/user-mirror-resync.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0748-kernel-user-mirror-resync.sh) on 4 virtio disks kept on the host:
#   VG "ur": m, a disk-log mirror lvx converted to 3 images while inactive (LVM2's
#   resync layer m_mimagetmp_2 over images 0 and 1 and the log, in sync; /t/data/m.bin
#   on images 0 and 1), and k, a disk-log mirror whose
#   lvx daemon was SIGKILLed mid-resync (/t/data/k.bin in its first 4 MiB).
# Checks: LVM2 activates both (no poll), dm-mirror resyncs them to N/N (m's top mirror
# copying the new image), LVM2's lvconvert ur/m collapses m's layer, both read lvx's
# bytes and every image holds the same bytes; clean deactivation.  Prints TAP.
# shellcheck source=tests/kernel/guest-tap.sh
. /t/guest-tap.sh

sha() { sha256sum <"$1" | cut -d' ' -f1; }
mirror_sync() { dmsetup status "$1" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\/[0-9]+$/) { print $i; exit } }'; }
wait_sync() {
    local st
    for _ in $(seq 500); do
        st=$(mirror_sync "$1")
        [ -n "$st" ] && [ "${st%/*}" = "${st#*/}" ] && return 0
        sleep 0.2
    done
    return 1
}
head_sha() { dd if="$1" bs=1M count="$2" iflag=direct status=none | sha256sum | cut -d' ' -f1; }

check "LVM2 activates lvx's VG ur (no poll)" lvm vgchange -ay --poll n ur
# (LVM2's lvconvert VG/LV takes no --config: the wrapper lvm() is not used for it)
check_eq "ur/m: LVM2 sees lvx's resync layer" \
    "$(lvm lvs --noheadings -o devices ur/m | trim)" "m_mimagetmp_2(0),m_mimage_2(0)"
check "ur/m: the top dm-mirror reaches N/N (the new image copied)" wait_sync ur-m
check_eq "ur/m: LVM2's lvconvert ur/m collapses the layer: three images" \
    "$(command lvm lvconvert ur/m >/dev/null 2>&1; lvm lvs --noheadings -o devices ur/m | trim)" \
    "m_mimage_0(0),m_mimage_1(0),m_mimage_2(0)"
check "ur/k: dm-mirror reaches N/N (the rest of lvx's resync)" wait_sync ur-k
check_eq "ur/m reads lvx's bytes" "$(head_sha /dev/ur/m 8)" "$(sha /t/data/m.bin)"
for i in 0 1 2; do
    check_eq "ur/m: image $i holds them" "$(head_sha /dev/mapper/ur-m_mimage_$i 8)" "$(sha /t/data/m.bin)"
done
check_eq "ur/k reads lvx's bytes" "$(head_sha /dev/ur/k 4)" "$(sha /t/data/k.bin)"
check_eq "ur/k: its images are equal" "$(head_sha /dev/mapper/ur-k_mimage_1 16)" \
    "$(head_sha /dev/mapper/ur-k_mimage_0 16)"
check "deactivate ur" lvm vgchange -an ur
sync
guest_done
