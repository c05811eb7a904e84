#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/guest-parts.sh - runs INSIDE a kvm-dm-test guest: the guest scripts named
# in $GUEST_PARTS (put in /t by the t07NN file), one after another, in one TAP stream: one
# guest instead of one each (a guest's start, from the host's payload to the script's
# first line, is 6-13 s of the guest lane, whose guests run one at a time).  Each part
# runs as in a guest of its own: its own bash, the disks blank (every dm device removed,
# the first MiB of every disk zeroed: labels, metadata areas) and no lvx/lvm/dmsetup
# process left from the part before.  One check more per part: it ran to its end (its
# guest_done), and the disks were reset after it.
# shellcheck disable=SC2034,SC2317  # N, FAILS: guest-tap.sh's counters; reset_disks called through check
# shellcheck source=tests/kernel/guest-tap.sh
. /t/guest-tap.sh

reset_disks() {
    local p d
    for p in $(pidof lvx lvm dmsetup); do kill -9 "$p" 2>/dev/null; done
    umount -a -t xfs,ext4 2>/dev/null
    dmsetup remove_all --force >/dev/null 2>&1
    ! dmsetup ls 2>/dev/null | grep -v -q '^No devices found' || return 1
    for d in $KDT_DISKS; do
        dd if=/dev/zero of="$d" bs=1M count=1 oflag=direct 2>/dev/null || return 1
    done
}

for part in ${GUEST_PARTS:?}; do
    rm -f /tmp/part-done
    rc=0
    GUEST_TAP_PART=1 bash "/t/$part" </dev/null || rc=$?
    N=$(grep -c -E '^(not )?ok ' "$TAP")
    FAILS=$(grep -c '^not ok ' "$TAP")
    if [ -e /tmp/part-done ] && [ "$rc" = 0 ]; then
        pass "$part ran to its end"
    else
        fail "$part ran to its end (exit status $rc)"
    fi
    check "after $part: no dm device left, the disks' first MiB zeroed" reset_disks
done
guest_done
