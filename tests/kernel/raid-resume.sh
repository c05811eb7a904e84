#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/raid-resume.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0751-kernel-raid-resume.sh) on 2 virtio disks kept on the host, VG "ux":
#   r  raid1 made by lvx and stopped by lvx's daemon mid-resync (array_resync_offset 0,
#      the regions left dirty in the bitmap from /t/data/offset on; 4 KiB planted in
#      rimage_1 in region 10 and in the last region below the offset, /t/data/plant*.bin;
#      4 MiB of data at its start, /t/data/head.bin; --maxrecoveryrate 1m): LVM2 +
#      dm-raid must resume there: a bitmap-driven "resync" (not the "repair" a nonzero
#      offset starts, which copies every region from 0), the planted bytes below the
#      offset left as they are, the data intact, the legs equal above it;
#   k  raid1 made here by LVM2 (--maxrecoveryrate 1m, on disks full of random bytes),
#      4 MiB written at its start (/t/data/khead.bin) and deactivated in the middle of
#      the kernel's initial resync: the host checks that lvx's daemon resumes there.
# Prints TAP (also to /out/result.tap when /out is shared).
# shellcheck disable=SC2317,SC2086
# shellcheck source=tests/kernel/guest-tap.sh
. /t/guest-tap.sh
sha() { sha256sum | cut -d' ' -f1; }
off=$(cat /t/data/offset)
# the numerator of "raid raid1 2 AA n/m action ..."
progress() { dmsetup status "$1" | awk '{print $7}' | cut -d/ -f1; }

dmesg -C 2>/dev/null
check "LVM2 activates ux/r (stopped mid-resync by lvx's daemon)" lvm lvchange -ay ux/r
first=$(dmsetup status ux-r)
note "status right after the activation: $first"
for _ in 1 2 3 4 5; do sleep 0.1; note "then: $(dmsetup status ux-r)"; done
check_eq "the kernel resyncs by the bitmap (action resync, not repair)" \
    "$(awk '{print $8}' <<<"$first")" resync
insync=""
for _ in $(seq 600); do
    [[ $(lvm lvs --noheadings -o sync_percent ux/r | trim) == 100.00 ]] && { insync=1; break; }
    sleep 0.2
done
check "the kernel finishes the resync (sync_percent 100.00, polled)" test -n "$insync"
dmesg | grep -E "md/raid1|md: |md/|bitmap|raid" | while read -r l; do note "dmesg: $l"; done
note "status once in sync: $(dmsetup status ux-r)"
check_eq "ux/r holds the data lvx's daemon wrote" \
    "$(dd if=/dev/ux/r bs=1M count=4 iflag=direct status=none | sha)" "$(sha </t/data/head.bin)"
check_eq "above the offset both rimages hold the same bytes after the resync" \
    "$(dd if=/dev/mapper/ux-r_rimage_1 bs=1M iflag=direct,skip_bytes skip=$((off * 512)) status=none | sha)" \
    "$(dd if=/dev/mapper/ux-r_rimage_0 bs=1M iflag=direct,skip_bytes skip=$((off * 512)) status=none | sha)"
check_eq "below the offset md copied nothing again: the planted 4 KiB are still in rimage_1" \
    "$(dd if=/dev/mapper/ux-r_rimage_1 bs=4096 skip=1281 count=1 iflag=direct status=none | sha)" \
    "$(sha </t/data/plant.bin)"
check_eq "... nor in the last region below the offset" \
    "$(dd if=/dev/mapper/ux-r_rimage_1 bs=4096 skip=$(((off * 512 - 512 * 1024 + 4096) / 4096)) count=1 \
        iflag=direct status=none | sha)" "$(sha </t/data/plant2.bin)"
check "deactivate ux/r" lvm lvchange -an ux/r

# ---- k: the kernel's resync stopped by a deactivation, for lvx's daemon to resume
check "LVM2 lvcreate --type raid1 -m1 -L 32m -R 512k --maxrecoveryrate 1m ux/k" \
    lvm lvcreate -q -y -Wn -Zn --type raid1 -m1 -L 32m -R 512k --maxrecoveryrate 1m -n k ux
check "4 MiB written at the start of ux/k during its resync" \
    dd if=/t/data/khead.bin of=/dev/ux/k bs=1M oflag=direct conv=fsync status=none
kp=0
for _ in $(seq 300); do    # until the kernel is past 6 MiB (12288 sectors)
    kp=$(progress ux-k)
    ((${kp:-0} > 12288)) && break
    sleep 0.1
done
note "ux/k before the deactivation: $(dmesg | grep -c 'md: resync') resync starts, $(dmsetup status ux-k)"
check "the kernel's resync of ux/k is past 6 MiB and not done ($kp of 65536)" \
    test "${kp:-0}" -gt 12288 -a "${kp:-0}" -lt 65536
check "LVM2 deactivates ux/k mid-resync" lvm lvchange -an ux/k
sync
guest_done
