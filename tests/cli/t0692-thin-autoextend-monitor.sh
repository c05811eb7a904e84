#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0692-thin-autoextend-monitor: automatic extension of monitored thin pools and COW
# snapshots in the user-space backend, as LVM2's dmeventd does: the lvx daemon watches
# the pool or snapshot it serves and, past the policy's threshold, runs
# `lvx lvextend --use-policies VG/LV` (lvm.conf activation/thin_pool_autoextend_* and
# snapshot_autoextend_*), logging dmeventd's lines in lvxd.log.
#   * LVM2 as the oracle where it runs without device-mapper: lvchange --monitor of an
#     inactive LV, --monitor with --ignoremonitoring, vgchange --monitor, seg_monitor;
#   * threshold 80, percent 20: a plain dd fills a 32 MiB pool; the pool grows while it
#     writes (the writes that found it full wait for the extension), the data reads
#     back, seg_monitor "monitored", dmeventd's WARNING lines and the command's output
#     in the log; a snapshot written past 80% grows the same way and stays valid;
#   * lvchange --monitor n: seg_monitor "not monitored", the pool is left alone
#     (--errorwhenfull y: the write that finds it full fails at once);
#     --ignoremonitoring at activation: not monitored either;
#   * threshold 100: monitored, the policy does nothing;
#   * a VG without free extents: the command fails, the failure is logged, the pool
#     stops (writes fail), the daemon keeps serving;
#   * a worker restart keeps the monitoring (the state file).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_loop
need_lvx
[[ -e /dev/fuse ]] || skip_all "no /dev/fuse"
plan_later

mapfile -t D < <(make_loops 3 100M)
[[ ${#D[@]} == 3 ]] || { _tap_result 1 "loop devices"; done_testing; }
lvm_sandbox "${D[@]}"
LOG=$LVX_RUN_DIR/lvxd.log

# ---------------------------------------------------------------- LVM2 as the oracle
# (activation off: both tools see no active LV)
lvm2 pvcreate -q "${D[2]}" >/dev/null 2>&1 && lvm2 vgcreate -q vgo "${D[2]}" >/dev/null 2>&1 &&
    lvm2 lvcreate -q -L 4m -n lv vgo >/dev/null 2>&1
# same DESCRIPTION ARGS...: exit code, stdout and stderr as LVM2's (without the
# sandbox's notes: no activation, no backup; LVM2 runs first, on a copy of the VG's
# state the command may change: lvx then runs on the devices as LVM2 left them
# only for commands that change nothing)
quiet() { grep -v -e 'NOT backed up' -e 'Activation disabled' -e 'not zeroed' -e 'zeroing and wip' "$1"; }
same() {
    local d=$1
    shift
    both "$@"
    test_eq "$d: as LVM2 (exit $(cat "$SCRATCH/l.rc"))" \
        "$(cat "$SCRATCH/x.rc"; cat "$SCRATCH/x.out"; quiet "$SCRATCH/x.err")" \
        "$(cat "$SCRATCH/l.rc"; cat "$SCRATCH/l.out"; quiet "$SCRATCH/l.err")"
}
same "lvchange --monitor y of an inactive LV" lvchange --monitor y vgo/lv
same "lvchange --monitor n of an inactive LV" lvchange --monitor n vgo/lv
same "--monitor with --ignoremonitoring" lvchange --monitor y --ignoremonitoring vgo/lv
same "vgchange --monitor y, nothing active" vgchange --monitor y vgo
same "vgchange -an --monitor n" vgchange -an --monitor n vgo
same "lvs -o seg_monitor, nothing active" lvs -o name,seg_monitor vgo
same "... with activation/monitoring = 0" lvs -o name,seg_monitor --config 'activation/monitoring=0' vgo
rc=0
lvx lvcreate -q --ignoremonitoring -L 4m -n x vgo >/dev/null 2>&1 || rc=$?
rcl=0
lvm2 lvcreate -q --ignoremonitoring -L 4m -n x2 vgo >/dev/null 2>&1 || rcl=$?
test_eq "lvcreate --ignoremonitoring: made, as LVM2" "$rc $(lvm2 lvs --noheadings -o name vgo/x 2>/dev/null | tr -d ' ')" \
    "$rcl $(lvm2 lvs --noheadings -o name vgo/x2 2>/dev/null | tr -d ' ' | tr -d 2)"
same "lvcreate --monitor y --ignoremonitoring" lvcreate -q --monitor y --ignoremonitoring -L 4m -n y vgo
both lvextend --ignoremonitoring -L+4m vgo/lv
test_eq "lvextend takes no --ignoremonitoring: exit 3 as LVM2" "$(cat "$SCRATCH/x.rc")" "$(cat "$SCRATCH/l.rc")"
lvm2 vgremove -q -f vgo >/dev/null 2>&1

# ---------------------------------------------------------------- the user backend
# lvm.conf with activation on and POLICY (threshold, percent): what the daemon's
# lvextend reads
policy() {
    sed -i '/^activation {/,$d; s/activation = 0/activation = 1/' "$SCRATCH/lvm/lvm.conf"
    printf 'activation {\n    thin_pool_autoextend_threshold = %s\n    thin_pool_autoextend_percent = %s\n    snapshot_autoextend_threshold = %s\n    snapshot_autoextend_percent = %s\n}\n' \
        "$1" "$2" "$1" "$2" >>"$SCRATCH/lvm/lvm.conf"
}
policy 80 20
DEVS="${D[0]},${D[1]}"
mkdir -p "$SCRATCH/dev"
U() { DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user lvx "$@" --devices "$DEVS"; }
field() { U lvs -a --noheadings --units m --nosuffix -o "$1" "vgt/$2" 2>/dev/null | tr -d ' '; }
ext() { U lvs -a --noheadings -o seg_size_pe "vgt/$1" 2>/dev/null | awk '{ n += $1 } END { print n + 0 }'; }
head -c $((64 << 20)) /dev/urandom >"$SCRATCH/data"

setup() {
    lvx pvcreate -q "${D[0]}" "${D[1]}" && lvx vgcreate -q vgt "${D[0]}" "${D[1]}" &&
        U lvcreate -q -T -L 32m vgt/pool >/dev/null 2>&1 && U lvcreate -q -V 120m -T vgt/pool -n thin >/dev/null 2>&1
}
test_ok "vgt, a 32 MiB pool (8 extents) and a 120 MiB thin LV (user backend)" setup
test_eq "seg_monitor of the pool: monitored" "$(field seg_monitor pool)" monitored
test_eq "... of the thin LV: \"\" (not watched)" "$(field seg_monitor thin)" ""
test_eq "... lvdisplay -m of the pool: Monitoring monitored" \
    "$(U lvdisplay -m vgt/pool 2>/dev/null | grep -E '^ +Monitoring' | tr -s ' \t' ' ')" " Monitoring monitored"
test_eq "... lvxd.log: dmeventd's line" "$(grep -c 'Monitoring thin pool vgt-pool-tpool\.' "$LOG")" 1
test_ok "dd writes 60 MiB (the pool is 32 MiB)" dd if="$SCRATCH/data" of="$SCRATCH/dev/vgt/thin" bs=1M count=60 oflag=direct conv=fsync status=none
n=$(ext pool_tdata)
diag "pool_tdata: $n extents, Data% $(field data_percent pool)"
test_ok "... the pool grew from 8 extents ($n)" test "$n" -gt 15
test_ok "... the data reads back" cmp -n $((60 << 20)) "$SCRATCH/data" "$SCRATCH/dev/vgt/thin"
test_ok "... lvxd.log: dmeventd's warning" grep -Eq 'WARNING: Thin pool vgt-pool-tpool data is now [0-9]+\.[0-9]{2}% full\.' "$LOG"
test_ok "... the command's own lines" grep -q 'lvextend vgt/pool:   Logical volume vgt/pool successfully resized\.' "$LOG"
diag "$(grep -E 'WARNING|onitoring|lvextend|writes wait|data blocks now' "$LOG")"

# wait_log PATTERN [N]: until lvxd.log has N (default 1) lines matching PATTERN
wait_log() {
    local i
    for ((i = 0; i < 120; i++)); do
        (($(grep -Ec "$1" "$LOG") >= ${2:-1})) && return 0
        sleep 0.5
    done
    return 1
}
# wait_ext LV OLD: until LV has more extents than OLD
wait_ext() {
    local i
    for ((i = 0; i < 120; i++)); do
        (($(ext "$1") > $2)) && return 0
        sleep 0.5
    done
    return 1
}

# ---------------------------------------------------------------- a snapshot
snap() { U lvcreate -q -L 20m -n orig vgt >/dev/null 2>&1 && U lvcreate -q -s -L 8m -n snap vgt/orig >/dev/null 2>&1; }
test_ok "a 20 MiB LV with an 8 MiB COW snapshot" snap
test_eq "seg_monitor of the snapshot: monitored" "$(field seg_monitor snap)" monitored
test_eq "... of the origin: \"\"" "$(field seg_monitor orig)" ""
test_ok "6 MiB written to the origin (75% of the COW)" dd if="$SCRATCH/data" of="$SCRATCH/dev/vgt/orig" bs=1M count=6 oflag=direct conv=fsync status=none
test_ok "... the policy ran" wait_log 'lvextend vgt/snap exited with status 0'
sleep 1     # the checks of the steps up to 75% done
test_eq "... and left the snapshot as it is (below 80%)" "$(ext snap)" 2
test_ok "1 MiB more (over 80%)" dd if="$SCRATCH/data" of="$SCRATCH/dev/vgt/orig" bs=1M seek=6 skip=6 count=1 oflag=direct conv=fsync status=none
test_ok "... the snapshot grows from 2 extents" wait_ext snap 2
test_ok "... lvxd.log: dmeventd's warning" wait_log 'WARNING: Snapshot vgt-snap is now [0-9]+\.[0-9]{2}% full\.'
test_ok "4 MiB more (11 MiB: more than the first COW)" dd if="$SCRATCH/data" of="$SCRATCH/dev/vgt/orig" bs=1M seek=7 skip=7 count=4 oflag=direct conv=fsync status=none
wait_ext snap 3
test_eq "... the snapshot valid and active" "$(field lv_attr snap)" swi-a-s---
test_ok "... it still reads the old (zero) data" cmp -n $((11 << 20)) /dev/zero "$SCRATCH/dev/vgt/snap"

# ---------------------------------------------------------------- --monitor n
# (first: the reload of a change monitors the pool again, as LVM2's resume does)
test_ok "--errorwhenfull y (a write that finds the pool full fails at once)" U lvchange -q --errorwhenfull y vgt/pool
test_ok "lvchange --monitor n vgt/pool" U lvchange --monitor n vgt/pool
test_eq "... seg_monitor: not monitored" "$(U lvs --noheadings -o seg_monitor vgt/pool 2>/dev/null | sed 's/^ *//')" "not monitored"
test_ok "... lvxd.log: dmeventd's line" grep -q 'No longer monitoring thin pool vgt-pool-tpool\.' "$LOG"
n=$(ext pool_tdata)
test_fail "dd past the pool's end fails" dd if="$SCRATCH/data" of="$SCRATCH/dev/vgt/thin" bs=1M seek=60 count=60 oflag=direct status=none
sleep 1
test_eq "... the pool is left alone ($n extents)" "$(ext pool_tdata)" "$n"

# ---------------------------------------------------------------- threshold 100
policy 100 20
c=$(grep -c 'lvextend vgt/pool exited with status 0' "$LOG")
test_ok "threshold 100: lvchange --monitor y vgt/pool" U lvchange --monitor y vgt/pool
test_eq "... seg_monitor: monitored" "$(field seg_monitor pool)" monitored
test_fail "... dd into the full pool fails" dd if="$SCRATCH/data" of="$SCRATCH/dev/vgt/thin" bs=1M seek=110 count=1 oflag=direct status=none
test_ok "... the policy ran (lvxd.log)" wait_log 'lvextend vgt/pool exited with status 0' $((c + 1))
test_eq "... and did nothing ($n extents)" "$(ext pool_tdata)" "$n"

# ---------------------------------------------------------------- no free space
policy 80 20
test_ok "the VG's free space taken by another LV" U lvcreate -q -l 100%FREE -n filler vgt
test_ok "lvchange --monitor y vgt/pool (the watch starts again)" U lvchange --monitor y vgt/pool
test_fail "dd into the full pool fails" dd if="$SCRATCH/data" of="$SCRATCH/dev/vgt/thin" bs=1M seek=110 count=1 oflag=direct status=none
test_ok "... lvxd.log: the failure (dmeventd's line)" wait_log 'Failed command for vgt-pool-tpool\.'
test_ok "... and the command's reason" grep -q 'lvextend vgt/pool:   Volume group "vgt" has insufficient free space (0 extents)' "$LOG"
test_eq "... the pool unchanged ($n extents)" "$(ext pool_tdata)" "$n"
test_ok "... the daemon serves on: the data reads back" cmp -n $((60 << 20)) "$SCRATCH/data" "$SCRATCH/dev/vgt/thin"
test_eq "... the pool still active and monitored" "$(field lv_active,seg_monitor pool)" "activemonitored"

# ---------------------------------------------------------------- a worker restart
# (the state file keeps the monitoring of the LVs the new worker serves again)
sup=$(cat "$LVX_RUN_DIR/lvxd.pid")
worker=$(cat "/proc/$sup/task/$sup/children" 2>/dev/null)
m=$(grep -c 'Monitoring thin pool vgt-pool-tpool\.' "$LOG")
test_ok "the worker of this test's daemon killed" kill -9 "$worker"
# the new worker restores the monitoring from the state file after it starts: wait for
# that (up to 30 s; a loaded CI machine with the sanitized build is slow), not for lvs
for ((i = 0; i < 300; i++)); do
    w2=$(cat "/proc/$sup/task/$sup/children" 2>/dev/null)
    [[ -n $w2 && $w2 != "$worker" && $(field seg_monitor pool 2>/dev/null) == monitored ]] && break
    sleep 0.1
done
test_eq "... a new worker: the pool still monitored" "$(field seg_monitor pool)" monitored
test_ok "... watched again (lvxd.log)" test "$(grep -c 'Monitoring thin pool vgt-pool-tpool\.' "$LOG")" -gt "$m"
test_fail "no sanitizer finding in the commands the daemon ran (their output is in lvxd.log)" \
    sanitizer_report "$LOG"
diag "$(grep -E 'WARNING|onitoring|lvextend|Failed|writes wait|data blocks now' "$LOG" | tail -n 20)"
done_testing
