#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1006-user-raid-rate-live: lvchange --maxrecoveryrate/--minrecoveryrate (LVM2's
# _lvchange_recovery_rate) on a RAID LV served by the lvx daemon in the middle of its
# background resync: the metadata takes the new rates (LVM2 reads them back), the active
# LV is reloaded and the daemon's resync goes on from its recorded offset at the new
# pace (its log says which), without starting again.  Two 64 MiB loop devices, LVM2
# (activation off) as the oracle:
#   - refusals as LVM2's (lines and exit code, nothing committed): a linear LV, a
#     minimum above the maximum;
#   - raid1 r (32 MiB, 512 KiB regions, --maxrecoveryrate 1m): "resync paced at 1024
#     KiB/s"; once the superblock records progress, --maxrecoveryrate 128k: LVM2's
#     "changed" line, the rate in both tools' reports, "paced at 128 KiB/s" and "resync
#     resumed at sector N" with N > 0 in the daemon's log;
#   - --minrecoveryrate 64k --maxrecoveryrate 0: "not paced", the resync ends
#     (sync_percent 100, polled), both legs equal, the superblocks in sync.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

VG=vgrl$$
uspace_test_loops "$VG" 2 64M
source "$LVX_ROOT/tests/tools/raid-pvread.sh"
MIB=1048576
LOG=$LVX_RUN_DIR/lvxd.log

lvsf() { lvx lvs --noheadings -o "$2" "$VG/$1" 2>/dev/null | tr -d ' '; }
lvsl() { lvm2 lvs --noheadings -o "$2" "$VG/$1" 2>/dev/null | tr -d ' '; }
seqno() { lvx vgs --noheadings -o vg_seqno "$VG" 2>/dev/null | tr -d ' '; }
wait_log() {  # wait_log TEXT: polls the daemon's log for TEXT
    for _ in $(seq 100); do grep -q "$1" "$LOG" && return 0; sleep 0.1; done
    return 1
}
# same_refusal: tests/lib.sh

uspace_run_ok "pvcreate, vgcreate" sh -c "$LVX pvcreate ${DEVS[*]} && $LVX vgcreate $VG ${DEVS[*]}"
: >"$LOG"
uspace_run_ok "lvcreate --type raid1 -m1 -L 32m -R 512k --maxrecoveryrate 1m (resync in the background)" \
    lvx lvcreate -Zn --type raid1 -m1 -L 32m -R 512k --maxrecoveryrate 1m -n r "$VG"
uspace_run_ok "lvcreate -an -L 4m lin (linear)" lvx lvcreate -an -Zn -L 4m -n lin "$VG"
test_ok "the daemon paces the resync at 1024 KiB/s (logged)" wait_log "r: resync paced at 1024 KiB/s per device"
s0=$(seqno)
same_refusal "--maxrecoveryrate on a linear LV" lvchange --maxrecoveryrate 2m "$VG/lin"
test_eq "... exit 5" "$(cat "$SCRATCH/x.rc")" 5
same_refusal "--minrecoveryrate 2m above the maximum 1m" lvchange --minrecoveryrate 2m "$VG/r"
test_eq "... exit 5" "$(cat "$SCRATCH/x.rc")" 5
test_eq "the refusals committed nothing (seqno $s0)" "$(seqno)" "$s0"
test_eq "r's rates unchanged (lvx: min max)" "$(lvsf r raid_min_recovery_rate) $(lvsf r raid_max_recovery_rate)" \
    "$(lvsl r raid_min_recovery_rate) $(lvsl r raid_max_recovery_rate)"

report r_rmeta_0
first=$(sb_wait_dirty r_rmeta_0 0)   # until a checkpoint cleared the first regions' bits
test_ok "the bitmap records resync progress before the change (first dirty region $first)" \
    test "$first" -gt 0
: >"$LOG"
out=$(lvx lvchange --maxrecoveryrate 128k "$VG/r" 2>&1)
test_eq "lvchange --maxrecoveryrate 128k of the active r: exit 0, LVM2's line" \
    "$?|$(grep -v 'NOT backed up' <<<"$out")" "0|  Logical volume $VG/r changed."
test_eq "lvx reports the new maximum as LVM2 reads the metadata" \
    "$(lvsf r raid_max_recovery_rate)" "$(lvsl r raid_max_recovery_rate)"
test_eq "... 128 (KiB/s)" "$(lvsf r raid_max_recovery_rate)" "128"
test_ok "the daemon took the new rate at once: paced at 128 KiB/s (logged)" \
    wait_log "r: resync paced at 128 KiB/s per device"
test_ok "the resync went on from its offset (resumed at sector N > 0, logged)" \
    grep -Eq "r: resync resumed at sector [1-9][0-9]*\$" "$LOG"
test_ok "... not started again (no full initial sync logged)" sh -c "! grep -q 'full initial sync' '$LOG'"
: >"$LOG"
uspace_run_ok "lvchange --minrecoveryrate 64k --maxrecoveryrate 0 (no limit)" \
    lvx lvchange --minrecoveryrate 64k --maxrecoveryrate 0 "$VG/r"
test_eq "rates as LVM2 reads them (min max)" \
    "$(lvsf r raid_min_recovery_rate) $(lvsf r raid_max_recovery_rate)" \
    "$(lvsl r raid_min_recovery_rate) $(lvsl r raid_max_recovery_rate)"
test_eq "... 64 and no maximum" "$(lvsf r raid_min_recovery_rate)|$(lvsf r raid_max_recovery_rate)" "64|"
test_ok "the daemon's resync is not paced any more (logged)" wait_log "r: resync not paced"
test_ok "sync_percent reaches 100.00 (polled)" wait_synced r
uspace_run_ok "deactivate" lvx lvchange -an "$VG/r"
report r_rimage_0
report r_rimage_1
test_eq "both rimages hold the same 32 MiB (read from the PVs)" \
    "$(pv_sum r_rimage_1 0 $((32 * MIB)))" "$(pv_sum r_rimage_0 0 $((32 * MIB)))"
test_eq "r_rmeta_0: in sync after the clean stop" \
    "$(sb_field r_rmeta_0 resync) $(sb_field r_rmeta_0 dirty)" "ffffffffffffffff 0"
done_testing
