#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/dm-events.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0755-kernel-dm-events.sh) with 2 virtio disks, lvx at /t/lvx.  The lvx
# daemon waits for the kernel's device-mapper events on the devices it watches
# (daemon/dm_events.c, dm_watch.c) instead of reading their status at every tick:
#   * a thin pool, threshold 70: its table's low water mark is the free blocks at 70%
#     (LVM2's); with a poll tick of 600 s, a dd of 48 MiB into a thin LV of the 32 MiB
#     pool ends with the pool grown: the kernel's low water mark events
#     ("Event N on VG-pool-tpool.") made the daemon read the status ("read (event") and
#     run lvextend, no tick did;
#   * while the pool is idle, no status of it is read;
#   * lvchange --monitor n drops the only watched device: the daemon closes its
#     /dev/mapper/control at once (no device-mapper event needed to wake its event
#     thread); --monitor y opens it again;
#   * a daemon started again with a tick of 1 s: an idle watched COW snapshot has no
#     status read at the ticks (its underlying devices did not write), and when its
#     origin is rewritten the ticks do read it ("read (poll": a snapshot filling raises
#     no event) and it grows past its 8 MiB, valid.
# shellcheck disable=SC2086
. /t/guest-tap.sh

VG=vgev
RUN=/run/lvx
LOG=$RUN/lvxd.log
export LVXD_MONITOR_INTERVAL=600 LVX_ACTIVATION_BACKEND=dm
export LVM_SYSTEM_DIR=/tmp/lvmsys
mkdir -p $LVM_SYSTEM_DIR
cat >$LVM_SYSTEM_DIR/lvm.conf <<'CONF'
devices { hints = "none" }
activation {
    monitoring = 1
    thin_pool_autoextend_threshold = 70
    thin_pool_autoextend_percent = 20
    snapshot_autoextend_threshold = 70
    snapshot_autoextend_percent = 20
}
CONF
mib() { $LVX lvs --noheadings --units m --nosuffix -o lv_size "$VG/$1" | trim | cut -d. -f1; }
mon() { $LVX lvs --noheadings -o seg_monitor "$VG/$1" | sed 's/^ *//;s/ *$//'; }
reads() { grep -c "Status of $1 read (${2:-}" $LOG; }
wait_for() {
    local t=$1
    shift
    while ! "$@" >/dev/null 2>&1; do
        t=$((t - 1))
        [ $t -le 0 ] && return 1
        sleep 1
    done
}
logged() { grep -q "$1" $LOG; }

dd if=/dev/urandom of=/tmp/R48 bs=1M count=48 2>/dev/null
dd if=/dev/urandom of=/tmp/A bs=1M count=12 2>/dev/null
dd if=/dev/urandom of=/tmp/B bs=1M count=12 2>/dev/null
check "lvx makes $VG" sh -c "$LVX pvcreate -q /dev/vda /dev/vdb && $LVX vgcreate -q $VG /dev/vda /dev/vdb"

# ---------------------------------------------------------------- a thin pool: events
check "lvcreate -T -L 32m $VG/pool, -V 128m thin" sh -c \
    "$LVX lvcreate -q -T -L 32m $VG/pool && $LVX lvcreate -q -V 128m -T $VG/pool -n thin"
check_eq "seg_monitor of the active pool" "$(mon pool)" "monitored"
# 32 MiB of 64 KiB chunks: 512 blocks, 30% of them free at the threshold of 70
check_eq "the pool's table: low water mark 153 blocks (LVM2's, at 70%)" \
    "$(dmsetup table $VG-pool-tpool | awk '{ print $7 }')" 153
check "the daemon read the new pool's status once" wait_for 30 logged "Status of $VG-pool-tpool read (new"
n0=$(reads $VG-pool-tpool)
sleep 4
check_eq "idle pool: no status read in 4 s" "$(reads $VG-pool-tpool)" "$n0"
check "48 MiB into the thin LV by one dd (events grow the pool)" \
    timeout 300 dd if=/tmp/R48 of=/dev/$VG/thin bs=1M oflag=direct conv=fsync
note "pool: $($LVX lvs --noheadings -o lv_size,data_percent $VG/pool)"
check "lvs: the pool grew past 48 MiB" test "$(mib pool)" -ge 48
check "lvxd.log: the kernel raised events on $VG-pool-tpool" logged "Event [0-9]* on $VG-pool-tpool."
check "lvxd.log: the status was read for an event" logged "Status of $VG-pool-tpool read (event"
check_eq "lvxd.log: no status read of the pool at a poll tick" "$(reads $VG-pool-tpool poll)" 0
check "lvxd.log: lvextend ran and exited 0" logged "lvextend $VG/pool exited with status 0."
check "the thin LV reads back the 48 MiB" cmp -n $((48 << 20)) /tmp/R48 /dev/$VG/thin
n0=$(reads $VG-pool-tpool)
sleep 4
check_eq "idle pool after the writes: no status read in 4 s" "$(reads $VG-pool-tpool)" "$n0"
# descriptors of the control device in any process, by device number (the daemon's
# mount namespace may name it otherwise)
CTL_DEV=$(stat -c %t:%T /dev/mapper/control)
ctl() {
    local f n=0
    for f in /proc/[0-9]*/fd/*; do
        [ "$(stat -L -c %t:%T "$f" 2>/dev/null)" = "$CTL_DEV" ] && n=$((n + 1))
    done
    echo $n
}
no_ctl() { [ "$(ctl)" = 0 ]; }
some_ctl() { [ "$(ctl)" != 0 ]; }
check "the daemon holds /dev/mapper/control while the pool is watched" some_ctl
check "lvchange --monitor n $VG/pool (the only watched device)" $LVX lvchange --monitor n $VG/pool
check "... /dev/mapper/control closed within 10 s, no event needed" wait_for 10 no_ctl
check "lvchange --monitor y $VG/pool" $LVX lvchange --monitor y $VG/pool
check "... /dev/mapper/control open again" wait_for 10 some_ctl
check "vgchange -an $VG" $LVX vgchange -an $VG
check "lvx daemon stop" $LVX daemon stop

# ---------------------------------------------------------------- a snapshot: the tick
export LVXD_MONITOR_INTERVAL=1
check "lvcreate -L 16m -n orig, pattern A, lvcreate -s -L 8m -n snap (daemon ticks every 1 s)" sh -c \
    "$LVX lvcreate -q -L 16m -n orig $VG && dd if=/tmp/A of=/dev/$VG/orig bs=1M oflag=direct conv=fsync 2>/dev/null &&
     $LVX lvcreate -q -s -L 8m -n snap $VG/orig"
check_eq "seg_monitor of the snapshot" "$(mon snap)" "monitored"
check "the daemon read the new snapshot's status" wait_for 30 logged "Status of $VG-snap read (new"
sleep 2
n0=$(reads $VG-snap)
sleep 5
n1=$(reads $VG-snap)
check_eq "idle snapshot: no status read in 5 ticks" "$n1" "$n0"
ok=0
for i in $(seq 0 11); do
    dd if=/tmp/B of=/dev/$VG/orig bs=1M skip=$i seek=$i count=1 oflag=direct conv=fsync \
        2>/dev/null || ok=1
    sleep 1
done
check_eq "pattern B over orig, 1 MiB a second" "$ok" 0
note "snap: $($LVX lvs --noheadings -o lv_size,snap_percent,lv_attr $VG/snap)"
check "the ticks read the writing snapshot's status" test "$(reads $VG-snap poll)" -gt 0
check "snap grew past 8 MiB" test "$(mib snap)" -gt 8
check_eq "snap is valid (no I in lv_attr)" "$($LVX lvs --noheadings -o lv_attr $VG/snap | trim | cut -c5)" "a"
check "snap reads pattern A" cmp -n $((12 << 20)) /tmp/A /dev/$VG/snap
check "vgchange -an $VG" $LVX vgchange -an $VG
note "$(grep -E 'Event|Status of|exited|onitoring' $LOG | tail -n 40)"
guest_done
