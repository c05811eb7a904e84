#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/dm-monitor.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0738-kernel-dm-monitor.sh) with 2 virtio disks, lvx at /t/lvx.  Prints TAP.
# The lvx daemon monitors thin pools and COW snapshots that the kernel's device-mapper
# runs (lvx's dm backend), as LVM2's dmeventd (activate/dm_watch.c, daemon/dm_watch.c):
#
#   * a 32 MiB pool (threshold 70, percent 20) is watched from its activation
#     (seg_monitor "monitored", "Monitoring thin pool VG-pool-tpool." in lvxd.log); 48 MiB
#     written into a thin LV with one dd: the writes the full pool queues go on once the
#     daemon's lvextend --use-policies grew it (dm table of -tpool longer, dmeventd's
#     WARNING lines, the command's exit status logged), the data reads back;
#   * lvchange --monitor n: "not monitored", a pool filled past the threshold is left
#     alone; --monitor y: it grows again;
#   * a COW snapshot of 8 MiB grows while its origin is rewritten (12 MiB) and stays
#     valid with the old data;
#   * deactivation ends the watch ("No longer monitoring ..." lines).
# The daemon looks every second (LVXD_MONITOR_INTERVAL=1 in the environment it starts
# with).
# shellcheck disable=SC2086
. /t/guest-tap.sh

VG=vgmon
LOG=/run/lvx/lvxd.log
export LVXD_MONITOR_INTERVAL=1 LVX_ACTIVATION_BACKEND=dm
export LVM_SYSTEM_DIR=/tmp/lvmsys
mkdir -p $LVM_SYSTEM_DIR
cat >$LVM_SYSTEM_DIR/lvm.conf <<'EOF'
devices { hints = "none" }
activation {
    monitoring = 1
    thin_pool_autoextend_threshold = 70
    thin_pool_autoextend_percent = 20
    snapshot_autoextend_threshold = 70
    snapshot_autoextend_percent = 20
}
EOF
mib() {  # mib LV: its size in MiB (integer)
    $LVX lvs --noheadings --units m --nosuffix -o lv_size "$VG/$1" | trim | cut -d. -f1
}
mon() { $LVX lvs --noheadings -o seg_monitor "$VG/$1" | sed 's/^ *//;s/ *$//'; }
sectors() { dmsetup table "$1" | awk '{ s += $2 } END { print s + 0 }'; }
# wait_for SECONDS CMD...: CMD succeeds within SECONDS
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

dd if=/dev/urandom of=/tmp/R48 bs=1M count=48 2>/dev/null
dd if=/dev/urandom of=/tmp/A bs=1M count=12 2>/dev/null
dd if=/dev/urandom of=/tmp/B bs=1M count=12 2>/dev/null
check "lvx makes $VG" sh -c "$LVX pvcreate -q /dev/vda /dev/vdb && $LVX vgcreate -q $VG /dev/vda /dev/vdb"

# ---------------------------------------------------------------- a thin pool
check "lvcreate -T -L 32m $VG/pool" $LVX lvcreate -q -T -L 32m $VG/pool
check "lvcreate -V 128m -T $VG/pool -n thin" $LVX lvcreate -q -V 128m -T $VG/pool -n thin
check_eq "seg_monitor of the active pool" "$(mon pool)" "monitored"
check "lvxd.log: the daemon watches $VG-pool-tpool" grep -q "Monitoring thin pool $VG-pool-tpool." $LOG
before=$(sectors $VG-pool-tpool)
check_eq "the pool's thin-pool device: 32 MiB" "$before" 65536
check "48 MiB written into the thin LV by one dd (the pool grows under it)" \
    timeout 200 dd if=/tmp/R48 of=/dev/$VG/thin bs=1M oflag=direct conv=fsync
after=$(sectors $VG-pool-tpool)
note "pool: $before -> $after sectors; $($LVX lvs --noheadings -o lv_size,data_percent $VG/pool)"
check "dmsetup table: the thin-pool device grew to hold the 48 MiB" test "$after" -ge 98304
check "the thin LV reads back the 48 MiB" cmp -n $((48 << 20)) /tmp/R48 /dev/$VG/thin
check "lvxd.log: dmeventd's warning" grep -q "WARNING: Thin pool $VG-pool-tpool data is now" $LOG
check "lvxd.log: lvextend $VG/pool exited with status 0" \
    grep -q "lvextend $VG/pool exited with status 0." $LOG
check "lvxd.log: the command's own lines" grep -q "lvextend $VG/pool: .*Size of logical volume" $LOG

# ---------------------------------------------------------------- --monitor n / y
check "lvchange --monitor n $VG/pool" $LVX lvchange --monitor n $VG/pool
check_eq "seg_monitor after --monitor n" "$(mon pool)" "not monitored"
check "lvxd.log: no longer watched" grep -q "No longer monitoring thin pool $VG-pool-tpool." $LOG
size=$(mib pool)
more=$((size * 9 / 10 - 48))
check "$more MiB more into the thin LV (the pool over 70%)" \
    dd if=/dev/urandom of=/dev/$VG/thin bs=1M seek=48 count=$more oflag=direct conv=fsync
note "pool: $($LVX lvs --noheadings -o lv_size,data_percent $VG/pool)"
sleep 4
check_eq "not monitored: the pool keeps its size (MiB) after 4 looks" "$(mib pool)" "$size"
check "lvchange --monitor y $VG/pool" $LVX lvchange --monitor y $VG/pool
check_eq "seg_monitor after --monitor y" "$(mon pool)" "monitored"
check "monitored again: the pool grows within 30 s" wait_for 30 grown pool "$size"

# ---------------------------------------------------------------- a COW snapshot
check "lvcreate -L 16m -n orig" $LVX lvcreate -q -L 16m -n orig $VG
check "pattern A on orig" dd if=/tmp/A of=/dev/$VG/orig bs=1M oflag=direct conv=fsync
check "lvcreate -s -L 8m -n snap $VG/orig" $LVX lvcreate -q -s -L 8m -n snap $VG/orig
check_eq "seg_monitor of the snapshot" "$(mon snap)" "monitored"
check "lvxd.log: the daemon watches $VG-snap" grep -q "Monitoring snapshot $VG-snap." $LOG
ok=0
for i in $(seq 0 11); do
    dd if=/tmp/B of=/dev/$VG/orig bs=1M skip=$i seek=$i count=1 oflag=direct conv=fsync \
        2>/dev/null || ok=1
    sleep 1
done
check_eq "pattern B over orig, 1 MiB a second" "$ok" 0
note "snap: $($LVX lvs --noheadings -o lv_size,snap_percent,lv_attr $VG/snap)"
check "the snapshot grew past 8 MiB" grown snap 8
check_eq "the snapshot is valid (no I in lv_attr)" \
    "$($LVX lvs --noheadings -o lv_attr $VG/snap | trim | cut -c5)" "a"
check "the snapshot reads pattern A" cmp -n $((12 << 20)) /tmp/A /dev/$VG/snap
check "lvxd.log: lvextend $VG/snap exited with status 0" \
    grep -q "lvextend $VG/snap exited with status 0." $LOG

# ---------------------------------------------------------------- deactivation
check "lvchange -an $VG/thin $VG/pool" $LVX lvchange -an $VG/thin $VG/pool
check "lvxd.log: the pool no longer watched" \
    sh -c "grep 'thin pool $VG-pool-tpool' $LOG | tail -n 1 | grep -q 'No longer monitoring'"
check "vgchange -an $VG" $LVX vgchange -an $VG
check "lvxd.log: the snapshot no longer watched" grep -q "No longer monitoring snapshot $VG-snap." $LOG
check_eq "no dm device of $VG left" "$(dmsetup ls | grep -c "^$VG-")" 0
note "$(grep -E 'onitoring|WARNING|exited|gone' $LOG | tail -n 30)"
guest_done
