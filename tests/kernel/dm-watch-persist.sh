#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/dm-watch-persist.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0754-kernel-dm-watch-persist.sh) with 2 virtio disks, lvx at /t/lvx.  The
# lvx daemon's watches of dm devices (activate/dm_watch.c, daemon/dm_watch.c) outlive
# its worker and follow lvrename:
#   * a watched thin pool: its "watch" line in the daemon's state file; the worker killed
#     (SIGKILL), the supervisor starts a new one, which watches the pool again
#     (seg_monitor "monitored", "Monitoring thin pool" logged once more) and grows it when
#     a dd fills it (the -tpool device longer, the data reads back);
#   * a watched COW snapshot renamed (lvrename): the watch follows (seg_monitor of the new
#     name "monitored", the state file names the new LV and device, not the old), the
#     snapshot grows while its origin is rewritten and stays valid;
#   * deactivation ends the watches (no watch line left in the state file).
# The daemon looks every second (LVXD_MONITOR_INTERVAL=1).
# shellcheck disable=SC2086
. /t/guest-tap.sh

VG=vgwp
RUN=/run/lvx
LOG=$RUN/lvxd.log
STATE=$RUN/state
export LVXD_MONITOR_INTERVAL=1 LVX_ACTIVATION_BACKEND=dm
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
sectors() { dmsetup table "$1" | awk '{ s += $2 } END { print s + 0 }'; }
worker() { $LVX daemon status 2>/dev/null | sed -n 's/.*worker \([0-9]*\).*/\1/p'; }
wait_for() {
    local t=$1
    shift
    while ! "$@" >/dev/null 2>&1; do
        t=$((t - 1))
        [ $t -le 0 ] && return 1
        sleep 1
    done
}
grown() { [ "$(mib "$1")" -gt "$2" ]; }
new_worker() { local w; w=$(worker); [ -n "$w" ] && [ "$w" != "$1" ]; }

dd if=/dev/urandom of=/tmp/R48 bs=1M count=48 2>/dev/null
dd if=/dev/urandom of=/tmp/A bs=1M count=12 2>/dev/null
dd if=/dev/urandom of=/tmp/B bs=1M count=12 2>/dev/null
check "lvx makes $VG" sh -c "$LVX pvcreate -q /dev/vda /dev/vdb && $LVX vgcreate -q $VG /dev/vda /dev/vdb"

# ---------------------------------------------------------------- the worker dies
check "lvcreate -T -L 32m $VG/pool, -V 128m thin" sh -c \
    "$LVX lvcreate -q -T -L 32m $VG/pool && $LVX lvcreate -q -V 128m -T $VG/pool -n thin"
check_eq "seg_monitor of the active pool" "$(mon pool)" "monitored"
check "the state file holds the pool's watch" grep -q "^watch $VG pool pool $VG-pool-tpool " $STATE
w=$(worker)
check "the daemon's worker ($w) killed" kill -9 "$w"
check "a new worker runs" wait_for 30 new_worker "$w"
note "worker $w -> $(worker)"
check_eq "seg_monitor after the worker's restart" "$(mon pool)" "monitored"
check_eq "lvxd.log: 'Monitoring thin pool' twice (before and after)" \
    "$(grep -c "Monitoring thin pool $VG-pool-tpool." $LOG)" 2
before=$(sectors $VG-pool-tpool)
check "48 MiB into the thin LV by one dd (the new worker grows the pool)" \
    timeout 200 dd if=/tmp/R48 of=/dev/$VG/thin bs=1M oflag=direct conv=fsync
after=$(sectors $VG-pool-tpool)
note "pool: $before -> $after sectors"
check "the thin-pool device grew to hold the 48 MiB" test "$after" -ge 98304
check "the thin LV reads back the 48 MiB" cmp -n $((48 << 20)) /tmp/R48 /dev/$VG/thin
check "lvchange -an $VG/thin $VG/pool" $LVX lvchange -an $VG/thin $VG/pool
check "no watch of the pool left in the state file" sh -c "! grep -q '^watch $VG pool ' $STATE"

# ---------------------------------------------------------------- lvrename
check "lvcreate -L 16m -n orig, pattern A, lvcreate -s -L 8m -n snap" sh -c \
    "$LVX lvcreate -q -L 16m -n orig $VG && dd if=/tmp/A of=/dev/$VG/orig bs=1M oflag=direct conv=fsync 2>/dev/null &&
     $LVX lvcreate -q -s -L 8m -n snap $VG/orig"
check_eq "seg_monitor of the snapshot" "$(mon snap)" "monitored"
check "lvrename $VG snap snap2" $LVX lvrename $VG snap snap2
check_eq "seg_monitor of snap2" "$(mon snap2)" "monitored"
check "the state file watches snap2 ($VG-snap2), not snap" sh -c \
    "grep -q '^watch $VG snap2 snapshot $VG-snap2 ' $STATE && ! grep -q '^watch $VG snap ' $STATE"
ok=0
for i in $(seq 0 11); do
    dd if=/tmp/B of=/dev/$VG/orig bs=1M skip=$i seek=$i count=1 oflag=direct conv=fsync \
        2>/dev/null || ok=1
    sleep 1
done
check_eq "pattern B over orig, 1 MiB a second" "$ok" 0
note "snap2: $($LVX lvs --noheadings -o lv_size,snap_percent,lv_attr $VG/snap2)"
check "snap2 grew past 8 MiB" grown snap2 8
check_eq "snap2 is valid (no I in lv_attr)" "$($LVX lvs --noheadings -o lv_attr $VG/snap2 | trim | cut -c5)" "a"
check "snap2 reads pattern A" cmp -n $((12 << 20)) /tmp/A /dev/$VG/snap2
check "vgchange -an $VG" $LVX vgchange -an $VG
check "no watch line left in the state file" sh -c "! grep -q '^watch ' $STATE"
note "$(grep -E 'onitoring|exited|gone|worker' $LOG | tail -n 20)"
guest_done
