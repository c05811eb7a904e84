#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0851-shared-vg-hosts: two lvx hosts share one sanlock VG (issue 19, step 3).
# Hosts a and b (tests/tools/sanlock_host.sh: own mount namespace and /run, so their
# own flock directory; a sanlock daemon each without watchdog, host ids 1 and 2; no
# lvmlockd) see the same two loop devices.  lvx does lvmlockd's part itself through
# each host's sanlock (meta/lockd.h):
#   - vgchange --lockstart joins the lockspace lvm_<vg> on the lvmlock LV (LVM2's
#     lines), --lockstop leaves it; a change on a host that has not started it is
#     refused with LVM2's failed-lock line, exit 5, nothing written;
#   - concurrent lvcreate loops on both hosts: every command that succeeded has its
#     LV in the VG, none that failed has, and the seqno grew by exactly the number of
#     commits (no lost update);
#   - a change held open on b (LVX_TEST_LOCKD_HOLD) makes a's change fail with LVM2's
#     "held by other host" lines, exit 5, and b's change lands;
#   - host b dies (its sanlock daemon and its lvx killed) while holding the VG lease:
#     host a's changes fail until b's lease expires, then succeed; the VG is consistent
#     (vgck) and b's unfinished change is not in it.
# sanlock's I/O timeout is 5 s (LVX_SANLOCK_IO_TIMEOUT; 2 s lost lockspaces on a loaded
# machine), so a dead host's lease expires after about 100 s (8 I/O timeouts and sanlock's
# 60 s watchdog time).  Cost: about 3-4 min (two lockspace joins and one expiry).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/sanlock_host.sh
. "$LVX_ROOT/tests/tools/sanlock_host.sh"

need_loop
need_cmd sanlock unshare nsenter cc
need_lvx
plan_later
trap 'hosts_stop; cleanup' EXIT

mapfile -t D < <(make_loops 2 384M)
[[ ${#D[@]} == 2 ]] || skip_all "cannot attach loop devices"
lvm_sandbox "${D[@]}"
host_start a 1 || skip_all "cannot start sanlock in a mount namespace"
host_start b 2 || skip_all "cannot start a second sanlock in a mount namespace"

# hx HOST ARGS...: lvx on HOST, with the host's own run directory
hx() {
    local h=$1
    shift
    mkdir -p -m 0700 "$SCRATCH/host-$h/lvxrun"
    host_run "$h" env LVX_RUN_DIR="$SCRATCH/host-$h/lvxrun" LVX_SANLOCK_IO_TIMEOUT=5 \
        "$LVX" "$@"
}
# hold_lease TAG LV SECONDS: host b runs `lvchange --addtag TAG sv/LV` that holds the
# VG lease SECONDS (LVX_TEST_LOCKD_HOLD) until b's sanlock shows the lease (60 s at
# most); $holder is its pid.  A change that ends without the lease (its lines are
# reported, through $SCRATCH/hold.diag) is tried again, twice at most, after rejoin: on a loaded machine host a's
# sanlock can release the lease of a's last change later than b's retries last.
hold_lease() {
    local try _
    for try in 1 2 3; do
        host_run b env LVX_RUN_DIR="$SCRATCH/host-b/lvxrun" LVX_TEST_LOCKD_HOLD="$3" \
            "$LVX" lvchange --addtag "$1" "sv/$2" >"$SCRATCH/hold.out" 2>&1 &
        holder=$!
        for _ in $(seq 300); do
            # held: listed without ADD (an acquire under way) or REM (a release)
            host_run b sanlock client status 2>/dev/null |
                awk '/^r lvm_sv:VGLK:/ && $NF != "ADD" && $NF != "REM" {f = 1} END {exit !f}' &&
                return 0
            kill -0 "$holder" 2>/dev/null || break
            sleep 0.2
        done
        diag "try $try: b's lvchange --addtag $1 did not hold the lease: $(cat "$SCRATCH/hold.out")" \
            "b's sanlock: $(host_run b sanlock client status 2>&1)" >>"$SCRATCH/hold.diag"
        pkill -f -- "lvchange --addtag $1 sv/$2" 2>/dev/null
        wait "$holder" 2>/dev/null
        rejoin b >>"$SCRATCH/hold.diag"
    done
    return 1
}
# rejoin HOST: the host's lockspace is still joined, or it is joined again.  sanlock
# drops a lockspace whose delta lease it could not renew for 8 I/O timeouts (40 s
# here): on a machine loaded by other tests a loop device can stall that long.  The
# steps below are about lease contention between live hosts, so a lost lockspace is
# reported (with sanlock's own lines) and the host joins again.
rejoin() {
    host_run "$1" sanlock client status 2>/dev/null | grep -q '^s lvm_sv:' && return 0
    diag "host $1 lost its lockspace lvm_sv; sanlock's log:" \
        "$(grep -iE 'renew|fail|kill|error' "$SCRATCH/host-$1/sanlock.log" | tail -8)"
    hx "$1" vgchange --lockstart sv >/dev/null 2>&1
}
seqno() { hx a vgs --noheadings -o vg_seqno sv 2>/dev/null | tr -d ' '; }
lv_names() { hx a lvs --noheadings -o lv_name sv 2>/dev/null | tr -d ' ' | sort; }

test_ok "host a: vgcreate --shared" hx a vgcreate --shared sv "${D[@]}"
before=$(sha_devs "${D[@]}")
rc=0
hx a lvcreate -an -Zn -l1 -n early sv >"$SCRATCH/o" 2>"$SCRATCH/e" || rc=$?
test_eq "lockspace not started: lvcreate refused, LVM2's failed-lock line, exit 5" \
    "$rc $(cat "$SCRATCH/e")" "5   Cannot access VG sv due to failed lock."
test_eq "... nothing written" "$(sha_devs "${D[@]}")" "$before"

hx a vgchange --lockstart sv >"$SCRATCH/o" 2>&1
test_eq "host a: vgchange --lockstart prints LVM2's lines" "$(cat "$SCRATCH/o")" \
"  VG sv starting sanlock lockspace
  Starting locking.  Waiting for sanlock may take 20 sec to 3 min..."
test_eq "host a: sanlock has joined lvm_sv as host 1" \
    "$(host_run a sanlock client status 2>/dev/null | awk '$1 == "s" {split($2, f, ":"); print f[1], f[2]}')" \
    "lvm_sv 1"
test_ok "host b: vgchange --lockstart" hx b vgchange --lockstart sv
test_eq "host b: sanlock has joined lvm_sv as host 2" \
    "$(host_run b sanlock client status 2>/dev/null | awk '$1 == "s" {split($2, f, ":"); print f[1], f[2]}')" \
    "lvm_sv 2"
test_ok "host a: vgchange --lockstart again (already joined)" hx a vgchange --lockstart sv

# ---- concurrent changes from both hosts
N=${LVX_T0851_ROUNDS:-10}
s0=$(seqno)
pids=()
for h in a b; do
    (
        for i in $(seq "$N"); do
            r=0
            hx "$h" lvcreate -an -Zn -l1 -n "$h$i" sv >/dev/null 2>>"$SCRATCH/loop-$h.err" || r=$?
            echo "$h$i $r"
        done >"$SCRATCH/loop-$h.rc"
    ) &
    pids+=($!)
done
wait "${pids[@]}"
ok_names=$(cat "$SCRATCH"/loop-[ab].rc | awk '$2 == 0 {print $1}' | sort)
failed=$(cat "$SCRATCH"/loop-[ab].rc | awk '$2 != 0' | wc -l)
diag "concurrent lvcreate: $(grep -c . <<<"$ok_names") of $((2 * N)) succeeded, $failed failed"
((failed == 0)) || diag "their errors: $(sort "$SCRATCH"/loop-[ab].err | uniq -c | head -5)"
test_eq "every lvcreate that succeeded is in the VG, and only those" "$(lv_names)" "$ok_names"
test_eq "the seqno grew by one per successful commit" \
    "$(seqno)" "$((s0 + $(grep -c . <<<"$ok_names")))"
test_eq "both hosts read the same LVs" \
    "$(hx b lvs --noheadings -o lv_name sv 2>/dev/null | tr -d ' ' | sort)" "$(lv_names)"
test_ok "vgck on host b" hx b vgck sv

# ---- a change held on b: a is refused
# the LVs the next steps change are made here: which lvcreates of the race above won
# depends on timing (under load a1 or a2 may have lost, and their changes then fail)
for n in held1 dead1; do
    lvx_rc=0
    hx a lvcreate -an -Zn -l1 -n "$n" sv >/dev/null 2>&1 || lvx_rc=$?
    test_eq "host a: lvcreate $n" "$lvx_rc" "0"
done
rejoin b
s1=$(seqno)
test_ok "host b holds the VG lease during its change" hold_lease held held1 30
[[ -s $SCRATCH/hold.diag ]] && cat "$SCRATCH/hold.diag" && rm "$SCRATCH/hold.diag"
rc=0
hx a lvcreate -an -Zn -l1 -n blocked sv >"$SCRATCH/o" 2>"$SCRATCH/e" || rc=$?
test_eq "while b holds the VG lease: a's lvcreate fails with LVM2's lines, exit 5" \
    "$rc $(cat "$SCRATCH/e")" \
    "5   VG sv lock failed: held by other host.
  Cannot access VG sv due to failed lock."
wait "$holder"
test_eq "b's change landed, a's did not" \
    "$(hx a lvs --noheadings -o lv_tags sv/held1 2>/dev/null | tr -d ' ') $(lv_names | grep -c '^blocked$')" "held 0"
test_eq "... one commit" "$(seqno)" "$((s1 + 1))"

# ---- host b dies holding the lease
rejoin b
s2=$(seqno)
hold_lease dead dead1 600
[[ -s $SCRATCH/hold.diag ]] && cat "$SCRATCH/hold.diag"
kill -9 "$(cat "$SCRATCH/host-b/sanlock.pid")" 2>/dev/null
pkill -9 -f -- "lvchange --addtag dead sv/dead1" 2>/dev/null
wait "$holder" 2>/dev/null
t0=$SECONDS
first=""
done_ok=1
while ((SECONDS - t0 < 300)); do
    rc=0
    hx a lvcreate -an -Zn -l1 -n after sv >/dev/null 2>"$SCRATCH/e" || rc=$?
    [[ -z $first ]] && first="$rc $(head -1 "$SCRATCH/e")"
    if [[ $rc == 0 ]]; then
        done_ok=0
        break
    fi
    sleep 2
done
diag "host a got the lease $((SECONDS - t0)) s after host b died"
test_eq "right after b died its lease still holds: a refused" "$first" \
    "5   VG sv lock failed: held by other host."
_tap_result "$done_ok" "after b's lease expired, a's lvcreate succeeds"
test_eq "b's unfinished change is not in the VG, a's is, one commit" \
    "$(hx a lvs --noheadings -o lv_tags sv/dead1 2>/dev/null | tr -d ' ') $(lv_names | grep -c '^after$') $(seqno)" \
    " 1 $((s2 + 1))"
test_ok "vgck on host a" hx a vgck sv
# ---- an LVM2 host (lvmlockd) and an lvx host change the VG at once
if command -v lvmlockd >/dev/null && command -v lvm >/dev/null; then
    # LVM2 reaches the lvmlock LV through /dev/mapper/sv-lvmlock: a loop device over its
    # extents (the first 256 MiB of the first PV's data area, pe_start 1 MiB)
    test_eq "lvx's lvmlock LV is at the start of the first PV" \
        "$(hx a lvs -a --noheadings -o lv_name,seg_pe_ranges sv 2>/dev/null | awk '$1 == "[lvmlock]" {print $2}')" \
        "${D[0]}:0-63"
    LK=$(attach_loop "$(loop_backing "${D[0]}")" -o 1048576 --sizelimit 268435456)
    host_start c 3 lvmlockd && host_link c sv-lvmlock "$LK"
    test_ok "LVM2 host c: vgchange --lockstart of lvx's VG" host_run c vgchange --lockstart sv
    s3=$(seqno)
    pids=()
    for h in a c; do
        (
            for i in $(seq "$N"); do
                r=0
                if [[ $h == a ]]; then
                    hx a lvcreate -an -Zn -l1 -n "m$h$i" sv >/dev/null 2>>"$SCRATCH/mix-$h.err" || r=$?
                else
                    host_run c lvcreate -an -Zn -l1 -n "m$h$i" sv >/dev/null 2>>"$SCRATCH/mix-$h.err" || r=$?
                fi
                echo "m$h$i $r"
            done >"$SCRATCH/mix-$h.rc"
        ) &
        pids+=($!)
    done
    wait "${pids[@]}"
    ok_names=$(cat "$SCRATCH"/mix-[ac].rc | awk '$2 == 0 {print $1}' | sort)
    diag "lvx and LVM2 at once: $(grep -c . <<<"$ok_names") of $((2 * N)) lvcreate succeeded" \
        "(lvx $(awk '$2 == 0' "$SCRATCH/mix-a.rc" | wc -l), LVM2 $(awk '$2 == 0' "$SCRATCH/mix-c.rc" | wc -l))"
    test_eq "every lvcreate of either tool that succeeded is in the VG, and only those" \
        "$(lv_names | grep '^m')" "$ok_names"
    test_eq "the seqno grew by one per successful commit of either tool" \
        "$(seqno)" "$((s3 + $(grep -c . <<<"$ok_names")))"
    test_eq "LVM2 reads the same LVs" \
        "$(host_run c lvs --noheadings -o lv_name sv 2>/dev/null | tr -d ' ' | grep '^m' | sort)" \
        "$ok_names"
    args=$(host_run c lvs --noheadings -o lv_name,lv_lockargs sv 2>/dev/null | awk 'NF == 2 {print $2}')
    test_eq "every LV (made by lvx or LVM2) has its own lease slot in lock_args" \
        "$(sort <<<"$args" | uniq | wc -l) $(grep -c '^1\.0\.0:[0-9]*$' <<<"$args")" \
        "$(grep -c . <<<"$args") $(grep -c . <<<"$args")"
    test_ok "LVM2 vgck accepts the VG" host_run c vgck sv
    made=$(awk '$2 == 0 {print $1; exit}' "$SCRATCH/mix-a.rc")   # one that lvx made
    test_ok "LVM2 changes an LV lvx made (lvchange --addtag sv/${made:-none})" \
        host_run c lvchange --addtag fromlvm "sv/${made:-none}"
    test_eq "lvx reads LVM2's change" \
        "$(hx a lvs --noheadings -o lv_tags "sv/${made:-none}" 2>/dev/null | tr -d ' ')" "fromlvm"
    test_ok "LVM2 host c: vgchange --lockstop" host_run c vgchange --lockstop sv
else
    test_skip "the mixed LVM2 + lvx part" "no lvmlockd or lvm"
fi
test_ok "host a: vgchange --lockstop" hx a vgchange --lockstop sv
test_eq "host a: lockspace left" \
    "$(host_run a sanlock client status 2>/dev/null | awk '$1 == "s"' | wc -l)" "0"

done_testing
