#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0984-dm-watch-requests: the watch entries of the lvx daemon that the dm backend asks
# for (daemon/dm_watch.c, activate/dm_watch.c), driven on this host through the control
# socket (the requests the dm backend sends; the watch of a real kernel device is
# t0738, in a guest).  Checked: "watch VG LV pool|snapshot|mirror|raid DMNAME DMUUID DEVDIR" is "ok"
# and logged as dmeventd's "Monitoring thin pool NAME." / "Monitoring snapshot NAME.";
# "watched" answers 1, and 0 for another LV; a second watch of the same device logs
# nothing new; a kind other than pool|snapshot|mirror|raid and missing words are refused (errno 22,
# the usage); "unwatch" ends it ("No longer monitoring ..."), also when not watched; the
# worker keeps running and answers after its monitor thread looked (no device-mapper
# here: nothing read, nothing dropped).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_lvx
[[ -e /dev/fuse ]] || skip_all "no /dev/fuse for the lvx daemon"
plan_later
export LVXD_MONITOR_INTERVAL=1
LOG=$LVX_RUN_DIR/lvxd.log
req() { python3 "$LVX_ROOT/tests/tools/lvxd_request.py" "$1"; }
U=LVM-abcdefghijklmnopqrstuvwxyzABCDEF0123456789abcdefghijklmnopqrstuv

test_ok "lvx daemon start" "$LVX" daemon start
test_eq "watch of a pool's -tpool device" "$(req "watch vgw pool pool vgw-pool-tpool $U-tpool /dev")" "ok"
test_eq "watched vgw pool" "$(req "watched vgw pool")" "ok 1"
test_eq "watched vgw other" "$(req "watched vgw other")" "ok 0"
test_ok "lvxd.log: Monitoring thin pool vgw-pool-tpool." grep -q "^.*Monitoring thin pool vgw-pool-tpool\.$" "$LOG"
test_eq "the same watch again" "$(req "watch vgw pool pool vgw-pool-tpool $U-tpool /dev")" "ok"
test_eq "... logged once" "$(grep -c "Monitoring thin pool vgw-pool-tpool\." "$LOG")" 1
test_eq "watch of a snapshot" "$(req "watch vgw snap snapshot vgw-snap $U /dev")" "ok"
test_ok "lvxd.log: Monitoring snapshot vgw-snap." grep -q "Monitoring snapshot vgw-snap\.$" "$LOG"
test_eq "a kind other than pool|snapshot|mirror|raid refused" "$(req "watch vgw x thin vgw-x $U /dev")" \
    "err 22 usage: watch VG LV pool|snapshot|mirror|raid DMNAME DMUUID DEVDIR"
test_eq "missing words refused" "$(req "watch vgw x pool vgw-x")" \
    "err 22 usage: watch VG LV pool|snapshot|mirror|raid DMNAME DMUUID DEVDIR"
test_eq "watched without an LV refused" "$(req "watched vgw")" "err 22 usage: watched VG LV"
sleep 2   # two looks of the monitor thread
test_eq "still watched after the monitor looked" "$(req "watched vgw snap")" "ok 1"
test_eq "unwatch vgw pool" "$(req "unwatch vgw pool")" "ok"
test_eq "watched vgw pool after unwatch" "$(req "watched vgw pool")" "ok 0"
test_ok "lvxd.log: No longer monitoring thin pool vgw-pool-tpool." \
    grep -q "No longer monitoring thin pool vgw-pool-tpool\.$" "$LOG"
test_eq "unwatch of what is not watched" "$(req "unwatch vgw pool")" "ok"
test_eq "... logs nothing" "$(grep -c "No longer monitoring thin pool vgw-pool-tpool" "$LOG")" 1
test_eq "unwatch vgw snap" "$(req "unwatch vgw snap")" "ok"
test_ok "the worker answers ping" sh -c "python3 '$LVX_ROOT/tests/tools/lvxd_request.py' ping | grep -q '^ok '"
test_ok "lvx daemon stop" "$LVX" daemon stop
done_testing
