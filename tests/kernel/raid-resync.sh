#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/raid-resync.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0745-kernel-raid-resync.sh) on 2 virtio disks kept on the host: VG "ux"
# with raid1 r (32 MiB, 512 KiB regions, --maxrecoveryrate 1m) made by lvx and stopped
# by lvx's daemon in the middle of its initial resync (the superblocks record the
# offset, /t/data/offset, in sectors; the legs still differ above it; 4 MiB of data,
# /t/data/head.bin, at its start): LVM2 + dm-raid finish the resync, the data reads
# back and the legs agree above the offset (whether md copied the regions below it
# again is noted).
# Prints TAP (also to /out/result.tap when /out is shared).
# shellcheck disable=SC2317,SC2086
# shellcheck source=tests/kernel/guest-tap.sh
. /t/guest-tap.sh
sha() { sha256sum | cut -d' ' -f1; }
off=$(cat /t/data/offset)

check "LVM2 lvchange --maxrecoveryrate 0 ux/r (no limit here)" lvm lvchange -q --maxrecoveryrate 0 ux/r
check "LVM2 activates ux/r (stopped mid-resync by lvx's daemon)" lvm lvchange -ay ux/r
# a 4 KiB difference was planted on the host below the offset (/t/data/plant.bin in
# rimage_1 at 4 MiB + 4 KiB): whether md copies it over says whether it resumed
insync=""
for _ in $(seq 600); do
    [[ $(lvm lvs --noheadings -o sync_percent ux/r | trim) == 100.00 ]] && { insync=1; break; }
    sleep 0.2
done
check "the kernel finishes the resync (sync_percent 100.00, polled)" test -n "$insync"
check_eq "ux/r holds the data lvx's daemon wrote" \
    "$(dd if=/dev/ux/r bs=1M count=4 iflag=direct status=none | sha)" "$(sha </t/data/head.bin)"
check_eq "above the offset both rimages hold the same bytes after the resync" \
    "$(dd if=/dev/mapper/ux-r_rimage_1 bs=1M iflag=direct,skip_bytes skip=$((off * 512)) status=none | sha)" \
    "$(dd if=/dev/mapper/ux-r_rimage_0 bs=1M iflag=direct,skip_bytes skip=$((off * 512)) status=none | sha)"
# whether md copied the regions below the offset again (it did in the 2026-12-03 runs
# on 6.12: the planted bytes were overwritten; safe, but not a resume): told, not checked
if [[ $(dd if=/dev/mapper/ux-r_rimage_1 bs=4096 skip=1025 count=1 iflag=direct status=none | sha) == "$(sha </t/data/plant.bin)" ]]; then
    note "below the offset md copied nothing again (the planted 4 KiB survived)"
else
    note "below the offset md copied again (the planted 4 KiB was overwritten)"
fi
check "deactivate ux" lvm vgchange -an ux
sync
guest_done
