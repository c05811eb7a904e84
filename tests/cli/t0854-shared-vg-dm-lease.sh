#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0854-shared-vg-dm-lease: the lease-only entries of the lvx daemon that the dm
# backend uses for LVs of shared VGs (daemon/leases.c, activate/daemon_lease.c), driven
# on this host without device-mapper: the requests the dm backend sends
# ("lease VG LV UUID FLAGS DEV...", "unlease VG LV") go straight to the control socket
# of each host's daemon (tests/tools/sanlock_host.sh: hosts a and b, each with its own
# sanlock and lvx daemon).  Checked:
#   - a's lease: "ok new", the LV's resource held by a's worker pid; again: "ok held";
#   - b's lease refused with LVM2's "LV locked by other host: sv/lv1" (errno 11), also
#     shared; `lvx daemon stop` on a refused while it holds the lease;
#   - unlease releases it: b gets it; shared on both at once;
#   - SIGKILL of a's worker releases a's lease (sanlock frees a dead pid's leases).
# The dm table load itself needs a kernel with device-mapper: t0722 (guest).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/sanlock_host.sh
. "$LVX_ROOT/tests/tools/sanlock_host.sh"

need_loop
need_cmd sanlock unshare nsenter cc python3
need_lvx
[[ -e /dev/fuse ]] || skip_all "no /dev/fuse for the lvx daemon"
plan_later

hx() {
    local h=$1
    shift
    mkdir -p -m 0700 "$SCRATCH/host-$h/lvxrun"
    host_run "$h" env LVX_RUN_DIR="$SCRATCH/host-$h/lvxrun" LVX_SANLOCK_IO_TIMEOUT=5 \
        LVX_ACTIVATION_BACKEND=user "$LVX" "$@"
}
stop_all() {
    local h
    for h in a b; do
        [[ -s $SCRATCH/host-$h/ns.pid ]] && hx "$h" daemon stop -f >/dev/null 2>&1
    done
    hosts_stop
    cleanup
}
trap stop_all EXIT

mapfile -t D < <(make_loops 2 320M)
[[ ${#D[@]} == 2 ]] || skip_all "cannot attach loop devices"
lvm_sandbox "${D[@]}"
host_start a 1 || skip_all "cannot start sanlock in a mount namespace"
host_start b 2 || skip_all "cannot start a second sanlock in a mount namespace"

# req HOST REQUEST: the reply line of HOST's daemon ("ok ..." or "err N message")
req() {
    LVX_RUN_DIR="$SCRATCH/host-$1/lvxrun" python3 "$LVX_ROOT/tests/tools/lvxd_request.py" "$2"
}
# the LV's resource lines in HOST's sanlock: "r lvm_sv:UUID:PATH:OFFSET:LVER p PID"
lease_pid() {
    local p
    p=$(host_run "$1" sanlock client status 2>/dev/null | awk -v u="lvm_sv:$UUID:" \
        '$1 == "r" && index($2, u) == 1 { print $NF }')
    echo "${p:-no lease}"
}
worker() {
    local w
    w=$(hx "$1" daemon status 2>/dev/null | sed -n 's/.*worker \([0-9]*\).*/\1/p')
    echo "${w:-no worker}"
}

test_ok "a: lvx vgcreate --shared sv" hx a vgcreate -q --shared sv "${D[@]}"
test_ok "a: lvx vgchange --lockstart sv (host_id 1)" hx a vgchange --lockstart sv
test_ok "b: lvx vgchange --lockstart sv (host_id 2)" hx b vgchange --lockstart sv
test_ok "a: lvx lvcreate -L 16m -n lv1 sv (activation off: no lease)" \
    hx a lvcreate -q -y -L 16m -n lv1 sv
UUID=$(hx a lvs --noheadings -o lv_uuid sv/lv1 2>/dev/null | tr -d ' ')
RAW=${UUID//-/}
test_ok "a: lvx daemon start" hx a daemon start
test_ok "b: lvx daemon start" hx b daemon start
DEVS="${D[*]}"
# another UUID: RAW with its first character changed (never to itself)
if [[ ${RAW:0:1} == x ]]; then OTHER=y${RAW:1}; else OTHER=x${RAW:1}; fi

test_eq "a: lease (exclusive): new" "$(req a "lease sv lv1 $RAW 0 $DEVS")" "ok new"
test_eq "a: the LV's lease is held by a's worker" "$(lease_pid a)" "$(worker a)"
test_eq "a: lease again: held" "$(req a "lease sv lv1 $RAW 0 $DEVS")" "ok held"
test_eq "b: lease refused: LVM2's line, EAGAIN" "$(req b "lease sv lv1 $RAW 0 $DEVS")" \
    "err 11 LV locked by other host: sv/lv1"
test_eq "b: shared lease refused too" "$(req b "lease sv lv1 $RAW 4 $DEVS")" \
    "err 11 LV locked by other host: sv/lv1"
test_eq "b: holds nothing" "$(lease_pid b)" "no lease"
test_eq "a: the held LV named with another UUID: refused (ESTALE)" \
    "$(req a "lease sv lv1 $OTHER 0 $DEVS" | cut -c1-7)" "err 116"
test_eq "b: another UUID than the devices': refused (ESTALE)" \
    "$(req b "lease sv lv1 $OTHER 0 $DEVS" | cut -c1-7)" "err 116"
rc=0
out=$(hx a daemon stop 2>&1) || rc=$?
test_eq "a: lvx daemon stop refused while the lease is held" "$rc $out" \
    "5   1 logical volume(s) still active (deactivate them first)."

test_eq "a: unlease" "$(req a "unlease sv lv1")" "ok"
test_eq "a: the lease is released" "$(lease_pid a)" "no lease"
test_eq "b: lease: new" "$(req b "lease sv lv1 $RAW 0 $DEVS")" "ok new"
test_eq "b: held by b's worker" "$(lease_pid b)" "$(worker b)"
test_eq "a: refused now" "$(req a "lease sv lv1 $RAW 0 $DEVS")" \
    "err 11 LV locked by other host: sv/lv1"
test_eq "b: unlease" "$(req b "unlease sv lv1")" "ok"

test_eq "a: shared lease: new" "$(req a "lease sv lv1 $RAW 4 $DEVS")" "ok new"
test_eq "b: shared lease at the same time: new" "$(req b "lease sv lv1 $RAW 4 $DEVS")" "ok new"
test_eq "b: shared, held by b's worker" "$(lease_pid b)" "$(worker b)"
test_eq "b: unlease" "$(req b "unlease sv lv1")" "ok"
test_eq "a: unlease" "$(req a "unlease sv lv1")" "ok"

test_eq "a: lease (exclusive) again: new" "$(req a "lease sv lv1 $RAW 0 $DEVS")" "ok new"
W=$(worker a)
test_eq "a: held by worker $W" "$(lease_pid a)" "$W"
kill -9 "$W"
for _ in $(seq 50); do
    [[ $(lease_pid a) == "no lease" ]] && break
    sleep 0.2
done
test_eq "SIGKILL of a's worker: sanlock released the lease" "$(lease_pid a)" "no lease"
test_eq "b: lease now: new" "$(req b "lease sv lv1 $RAW 0 $DEVS")" "ok new"
test_eq "b: unlease" "$(req b "unlease sv lv1")" "ok"

for h in a b; do hx "$h" daemon stop -f >/dev/null 2>&1; done
hx a vgchange --lockstop sv >/dev/null 2>&1
hx b vgchange --lockstop sv >/dev/null 2>&1
done_testing
