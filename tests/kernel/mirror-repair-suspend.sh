#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/mirror-repair-suspend.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0794-kernel-mirror-repair-suspend.sh) with 1 virtio disk, lvx at /t/lvx.
# Prints TAP.  The same live repair twelve times: a 2-leg mirror (disk log, 64 MiB),
# its second leg's PV (a dm linear slice) switched to `error` under a 16 MiB O_DIRECT
# writer, then `lvx lvconvert --repair --use-policies` by hand (mirror_image_fault_policy
# remove: the LV becomes linear over the survivor, reloaded with a noflush suspend).
# Half the rounds fail the leg right after lvcreate (the initial resync running), half
# once the mirror is in sync.  Before lvx issued its suspends from a thread of their own
# (dev/dm_ioctl.c), the command's closed io_uring interrupted the suspend after
# dm-mirror's presuspend had stopped its recovery, and the restarted suspend blocked for
# good in mirror_presuspend -> dm_rh_stop_recovery: 4 of 32 such repairs hung.  A round
# whose command has not ended after 30 s is reported (D-state tasks' kernel stacks) and
# ends the script, its devices being stuck.
# shellcheck disable=SC2086
. /t/guest-tap.sh

export LVX_ACTIVATION_BACKEND=dm LVM_SYSTEM_DIR=/tmp/lvmsys
mkdir -p $LVM_SYSTEM_DIR
cat >$LVM_SYSTEM_DIR/lvm.conf <<C
devices { hints = "none" }
activation { monitoring = 0 mirror_image_fault_policy = "remove" }
C
SIZE=64
SL=$(((SIZE + 8) * 2048))   # sectors of a slice: the LV's extents and the log's
slices() {
    local i
    for i in 1 2 3; do
        dmsetup create "s$i" --table "0 $SL linear /dev/vda $((i * SL))" || return 1
    done
}
fail_slice() { dmsetup suspend "$1" && dmsetup load "$1" --table "0 $SL error" && dmsetup resume "$1"; }
in_sync() { dmsetup status vg-m | awk '{ split($(5 + $4), a, "/"); exit !(a[1] == a[2]) }'; }
leg_failed() { dmsetup status vg-m | awk '{ exit !($(7 + $4) ~ /D/) }'; }
wait_for() {  # wait_for TENTHS CMD...: CMD succeeds within TENTHS tenths of a second
    local t n=$1
    shift
    for ((t = 0; t < n; t++)); do
        "$@" && return 0
        sleep 0.1
    done
    return 1
}
sum() { dd if="$1" bs=1M count=16 iflag=direct status=none | sha256sum | cut -d' ' -f1; }
stuck_report() {  # the mirror's status, the kernel stacks of the tasks in D state
    local s
    note "$(dmsetup status vg-m)"
    for s in $(grep -l '^State:.*D' /proc/[0-9]*/status 2>/dev/null); do
        note "D: $(tr '\0' ' ' <"${s%/status}/cmdline")"$'\n'"$(cat "${s%/status}/stack" 2>/dev/null)"
    done
}
setup() {
    slices && wipefs -qa /dev/mapper/s1 /dev/mapper/s2 /dev/mapper/s3 &&
        $LVX pvcreate -qq -y /dev/mapper/s1 /dev/mapper/s2 /dev/mapper/s3 &&
        $LVX vgcreate -qq vg /dev/mapper/s1 /dev/mapper/s2 /dev/mapper/s3 &&
        $LVX lvcreate -qq -y --type mirror -m1 -L ${SIZE}m -n m vg
}
cleanup() {
    $LVX vgremove -ff -y vg >/dev/null 2>&1
    local d
    for d in $(dmsetup ls | awk '/^vg-/ { print $1 }'); do dmsetup remove $d; done
    dmsetup remove s1 s2 s3
}

dd if=/dev/urandom of=/tmp/D bs=1M count=16 2>/dev/null
D=$(sha256sum </tmp/D | cut -d' ' -f1)
for round in $(seq 1 12); do
    mode=resyncing
    ((round % 2 == 0)) && mode="in sync"
    r="round $round ($mode)"
    out=$(setup 2>&1) || { fail "$r: slices, PVs, VG, mirror"; note "$out"; break; }
    pass "$r: slices, PVs, VG, mirror"
    [[ $mode == resyncing ]] || check "$r: the mirror reaches sync" wait_for 600 in_sync
    note "before the failure: $(dmsetup status vg-m)"
    check "$r: the second leg's PV fails (error target)" fail_slice s2
    dd if=/tmp/D of=/dev/vg/m bs=64k oflag=direct conv=fsync status=none &
    w=$!
    check "$r: dm-mirror reports the failed leg" wait_for 100 leg_failed
    $LVX lvconvert --repair --use-policies vg/m >/tmp/out 2>&1 &
    c=$!
    if ! wait_for 300 sh -c "! kill -0 $c 2>/dev/null"; then
        fail "$r: lvconvert --repair --use-policies ended within 30 s"
        stuck_report
        break
    fi
    pass "$r: lvconvert --repair --use-policies ended within 30 s"
    rc=0
    wait $c || rc=$?
    check_eq "$r: lvconvert's exit status" "$rc" 0
    rc=0
    wait $w || rc=$?
    check_eq "$r: the writer's exit status" "$rc" 0
    check_eq "$r: vg-m is linear" "$(dmsetup table vg-m | awk '{ print $3 }')" linear
    check_eq "$r: the LV reads the data" "$(sum /dev/vg/m)" "$D"
    check "$r: VG and slices removed" cleanup
done
guest_done
