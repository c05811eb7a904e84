#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/pvmove-kill.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0719-kernel-pvmove.sh, the second part of its guest-parts.sh) with virtio
# disks vda-vdc (of 128 MiB; more may be there, blank), lvx at /t/lvx.  VG "kr" (vda
# vdb vdc) with a 2-stripe LV (vda vdb) and a linear one (vda), active in the kernel.
# RUNS runs (/t/kill-runs, else 10), moving vda->vdc and back in turn: `lvx pvmove`
# starts, a writer puts a new random 4 MiB chunk at a random place of each LV, the
# mover is SIGKILLed after a random delay (the first run 0-0.4 s after pvmove0 is live,
# so one kill always lands mid-copy; the others 0.6-3 s: at its setup, while the kernel
# copies, at a checkpoint or at its end), the LVs are read back (the data as written, pvmove0 or not), `lvx pvmove`
# without arguments resumes and finishes the move; then the data is checked again,
# pvmove0 is gone and LVM2's vgck accepts the VG.
# shellcheck disable=SC2086
. /t/guest-tap.sh

VG=kr
check "lvx makes VG kr, s2 (-i2 vda vdb, 96 MiB) and lin (vda, 32 MiB), active" sh -c \
    "$LVX pvcreate -q /dev/vda /dev/vdb /dev/vdc && $LVX vgcreate -q $VG /dev/vda /dev/vdb /dev/vdc &&
     $LVX lvcreate -q -y -i2 -I64k -L 96m -n s2 $VG /dev/vda /dev/vdb &&
     $LVX lvcreate -q -y -L 32m -n lin $VG /dev/vda"
check "random data on both (copies kept in /tmp)" sh -c \
    "dd if=/dev/urandom of=/tmp/s2 bs=1M count=96 2>/dev/null && dd if=/tmp/s2 of=/dev/$VG/s2 bs=1M oflag=direct 2>/dev/null &&
     dd if=/dev/urandom of=/tmp/lin bs=1M count=32 2>/dev/null && dd if=/tmp/lin of=/dev/$VG/lin bs=1M oflag=direct 2>/dev/null"
same() { cmp -s /tmp/s2 /dev/$VG/s2 && cmp -s /tmp/lin /dev/$VG/lin; }
# put a random 4 MiB chunk at a random MiB of LV $1 (size $2 MiB), and in its copy
chunk() {
    local at=$((RANDOM % ($2 - 4)))
    dd if=/dev/urandom of=/tmp/c bs=1M count=4 2>/dev/null
    dd if=/tmp/c of=/dev/$VG/$1 bs=1M seek=$at oflag=direct conv=notrunc 2>/dev/null &&
        dd if=/tmp/c of=/tmp/$1 bs=1M seek=$at conv=notrunc 2>/dev/null
}
RANDOM=$(od -An -N2 -tu2 /dev/urandom)
KILLED=0 MID=0 EARLY=0 FIRST_MID=0
# how many runs: /t/kill-runs (t0719 puts $LVX_PVMOVE_KILL_RUNS there: CI runs 3), else 10
RUNS=$(cat /t/kill-runs 2>/dev/null || echo 10)
for run in $(seq "$RUNS"); do
    if [ $((run % 2)) = 1 ]; then src=vda dst=vdc; else src=vdc dst=vda; fi
    delay=$((600 + RANDOM % 2400))
    $LVX pvmove -i0 /dev/$src /dev/$dst >/tmp/mv.log 2>&1 &
    mover=$!
    (chunk s2 96 && chunk lin 32) &
    writer=$!
    if [ "$run" = 1 ]; then
        # the first run is killed while the kernel copies, whatever the machine's speed:
        # once pvmove0 is live, after 0-0.4 s more
        for _ in $(seq 400); do dmsetup ls | grep -q pvmove && break; sleep 0.05; done
        delay="pvmove0 + $((RANDOM % 400))"
        sleep "0.$(printf %03d $((RANDOM % 400)))"
    else
        sleep "$((delay / 1000)).$(printf %03d $((delay % 1000)))"
    fi
    if kill -9 $mover 2>/dev/null; then KILLED=$((KILLED + 1)); fi
    wait $mover 2>/dev/null
    wait $writer
    inprog=$(dmsetup ls | grep -c pvmove || true)
    [ "$inprog" != 0 ] && MID=$((MID + 1))
    [ "$run" = 1 ] && [ "$inprog" != 0 ] && FIRST_MID=1
    check "run $run ($src->$dst, killed after ${delay} ms, pvmove0 devices: $inprog): data read back as written" same
    if [ "$($LVX lvs -a --noheadings -o name $VG | grep -c pvmove)" != 0 ]; then
        check "run $run: lvx pvmove (no arguments) resumes and finishes" $LVX pvmove -i0
    elif [[ $(dmsetup table $VG-s2) == *" $(devnum /dev/$src) "* ]]; then
        EARLY=$((EARLY + 1))     # killed before its setup commit: no move to resume
        check "run $run: killed before the setup; lvx pvmove $src $dst" $LVX pvmove -i0 /dev/$src /dev/$dst
    else
        pass "run $run: the move had ended before the kill"
    fi
    check_eq "run $run: no pvmove0 left" "$(dmsetup ls | grep -c pvmove || true)" "0"
    check_match "run $run: s2 on $dst" "$(dmsetup table $VG-s2)" "striped 2 128 $(devnum /dev/$dst) "
    check "run $run: data as written after the end" same
    check "run $run: LVM2's vgck accepts the VG" lvm vgck $VG
done
note "movers SIGKILLed while running: $KILLED of $RUNS; moves left in progress (pvmove0 live): $MID; killed before the setup commit: $EARLY"
check "the first run's kill left the move in progress (pvmove0 live)" test "$FIRST_MID" = 1
# with the 10 runs (random delays) most kills land while a move runs; fewer
# runs (CI's 3) are too few for that to hold every time
[ "$RUNS" -ge 10 ] && check "most kills hit a running move" test "$((2 * KILLED))" -ge "$RUNS"
guest_done
