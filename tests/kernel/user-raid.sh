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
#            (/t/data/LV.mism): the kernel's check must count the same;
#            raid1 ro (now ux_ro.bin) with the daemon's COW snapshot rs (ux_rs.bin,
#            usage rs.pct); raid1 rt (ux_rt.bin) whose rt_rimage_1 was split with
#            --trackchanges (ux_rt0.bin) and is tracked, 4 KiB planted on it in a region
#            not written meanwhile (ux_rt1.bin; ux_rt1m.bin: after a partial resync)
#   vdf-vdj  empty: VG "kx" with the same LVs is made here by LVM2, synced by the
#            kernel and written through dm-raid (data: /t/data/kx_LV.bin: ux's
#            data of the other LV; r5, r6*: kx_LV.bin), for the host's
#            daemon to read back.
# Checks: the kernel's dm-raid activates the daemon's LVs in sync at once (health all
# "A", sync ratio complete, action idle: no resync), reads the daemon's bytes, and a
# `--syncaction check` finds no mismatch; it reads ro and rs, LVM2 reports rs valid with
# lvx's usage and merges it into ro (both legs); dm-raid takes rt with the tracked slot,
# LVM2 merges rt_rimage_1 back, the kernel resyncs its dirty region only (the bytes
# planted elsewhere stay, a check counts them, a repair fixes them: both rimages then hold
# rt's bytes); then LVM2's own LVs are written and deactivated cleanly.  Prints TAP
# (also to /out/result.tap).
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
# the daemon's COW snapshot of a raid1: read, reported, merged by the kernel
check_eq "ux/ro: the kernel reads the origin the daemon wrote after the snapshot" \
    "$(sha /dev/ux/ro)" "$(sha /t/data/ux_ro.bin)"
check_eq "ux/rs: the kernel reads the daemon's snapshot (its COW store)" \
    "$(sha /dev/ux/rs)" "$(sha /t/data/ux_rs.bin)"
check_eq "ux/rs: a valid snapshot, LVM2's snap_percent as lvx's ($(dmsetup status ux-rs | cut -d' ' -f4-))" \
    "$(lvm lvs --noheadings -o lv_attr,snap_percent ux/rs | awk '{ print substr($1, 1, 1) substr($1, 5, 1), $2 }')" \
    "sa $(cat /t/data/rs.pct)"
check "LVM2's lvconvert --merge -i 1 ux/rs (the kernel merges the daemon's store)" \
    lvm lvconvert --merge -i 1 ux/rs
check_fail "ux/rs is gone" "Failed to find logical volume" lvm lvs ux/rs
check_eq "ux/ro reads the snapshot's bytes after the merge" "$(sha /dev/ux/ro)" "$(sha /t/data/ux_rs.bin)"
check "ux/ro: lvchange --syncaction check" lvm lvchange --syncaction check ux/ro
wait_idle ux-ro
set -- $(raid_status ux-ro)
check_eq "ux/ro: the merge reached both legs (check: no mismatch)" "$1 $3 $4" "AA idle 0"

# the daemon's raid1 with a tracked image: activated, merged back by the kernel
set -- $(raid_status ux-rt)
check_eq "ux/rt: dm-raid takes the daemon's superblocks with the tracked slot (${1:-?} ${2:-?} ${3:-?})" \
    "${1:0:1} ${2%/*} $3" "A ${2#*/} idle"
check_eq "ux/rt reads the bytes the daemon wrote while tracking" "$(sha /dev/ux/rt)" "$(sha /t/data/ux_rt.bin)"
check_eq "ux/rt_rimage_1 reads the bytes of the split (with 4 KiB planted at 1 MiB)" \
    "$(sha /dev/ux/rt_rimage_1)" "$(sha /t/data/ux_rt1.bin)"
check "LVM2's lvconvert --merge ux/rt_rimage_1" lvm lvconvert --merge ux/rt_rimage_1
for _ in $(seq 300); do
    set -- $(raid_status ux-rt)
    [ "$1 $3" = "AA idle" ] && [ "${2%/*}" = "${2#*/}" ] && break
    sleep 0.2
done
check_eq "ux/rt: the kernel resynced the image ($*)" "$1 $3 ${2%/*}" "AA idle ${2#*/}"
rimage_sha() { dd if=/dev/mapper/ux-rt_rimage_$1 bs=1M count=4 iflag=direct status=none | sha256sum | cut -d' ' -f1; }
check_eq "ux/rt_rimage_0 holds rt's bytes" "$(rimage_sha 0)" "$(sha /t/data/ux_rt.bin)"
check_eq "ux/rt_rimage_1: the dirty region resynced, the clean one not (the planted bytes stay)" \
    "$(rimage_sha 1)" "$(sha /t/data/ux_rt1m.bin)"
check "ux/rt: lvchange --syncaction check" lvm lvchange --syncaction check ux/rt
wait_idle ux-rt
set -- $(raid_status ux-rt)
check_eq "ux/rt: the check counts the planted bytes only (${4:-?} sectors)" \
    "$3 $([ "${4:-0}" -gt 0 ] && [ "${4:-0}" -le 128 ] && echo some)" "idle some"
check "ux/rt: lvchange --syncaction repair" lvm lvchange --syncaction repair ux/rt
wait_idle ux-rt
for i in 0 1; do
    check_eq "ux/rt_rimage_$i holds rt's bytes after the repair" "$(rimage_sha $i)" "$(sha /t/data/ux_rt.bin)"
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
