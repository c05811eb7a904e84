#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0852-shared-vg-lv-locks: LV locks of a shared sanlock VG at activation, and lease
# slots freed at lvremove (issue 19).  Hosts a and b run lvx (user-space activation:
# the lvx daemon of the host holds the LV's sanlock lease while it serves the LV),
# host c runs LVM2 with lvmlockd (tests/tools/sanlock_host.sh; its lvm.conf has
# activation off, lvmlockd still takes the LV lock).  Checked:
#   - lvchange -aey on a: a's sanlock holds the LV's lease (resource named by the LV
#     UUID at its lock_args offset); -aey, -ay and -asy on b refused with LVM2's lines
#     ("LV locked by other host", "Failed to lock logical volume"), exit 5, and the
#     same refusal from LVM2 on c;
#   - lvchange -an on a releases it: b activates, then c is refused while b holds it;
#   - -asy on a and b at once; LVM2's -aey on c refused meanwhile;
#   - the other way round: LVM2 (c) holds an LV exclusively, lvx on a is refused;
#   - lvremove of an LV active on another host refused (LVM2's line), nothing removed;
#   - lvcreate of an active LV takes the new LV's lease exclusively;
#   - the global lock (GLLK in sv, the first sanlock VG): lvx's vgextend holds it, lvx's
#     and LVM2's pvcreate are refused meanwhile with LVM2's line;
#   - a removed LV's slot is freed ("#unused", lvmlockd's free_lv) and the next
#     lvcreate gets it again, whichever of lvx and LVM2 removed and creates.
# No lease expiry is waited for: about 4 min on 2 busy cores (three lockspace joins).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/sanlock_host.sh
. "$LVX_ROOT/tests/tools/sanlock_host.sh"

need_loop
need_cmd sanlock unshare nsenter cc
need_lvx
[[ -e /dev/fuse ]] || skip_all "no /dev/fuse for the lvx daemon"
plan_later

# hx HOST ARGS...: lvx on HOST, its own run directory, /dev links and the user backend
hx() {
    local h=$1
    shift
    mkdir -p -m 0700 "$SCRATCH/host-$h/lvxrun" "$SCRATCH/host-$h/dev"
    host_run "$h" env LVX_RUN_DIR="$SCRATCH/host-$h/lvxrun" LVX_SANLOCK_IO_TIMEOUT=5 \
        LVX_ACTIVATION_BACKEND=user DM_DEV_DIR="$SCRATCH/host-$h/dev" "$LVX" "$@"
}
stop_all() {
    local h
    for h in a b; do
        [[ -s $SCRATCH/host-$h/ns.pid ]] || continue
        hx "$h" vgchange -an sv >/dev/null 2>&1
        hx "$h" daemon stop -f >/dev/null 2>&1
    done
    [[ -s $SCRATCH/host-c/ns.pid ]] && host_run c timeout 60 lvm vgchange -an sv >/dev/null 2>&1
    hosts_stop
    [[ -n ${LK:-} ]] && losetup -d "$LK" 2>/dev/null
    cleanup
}
trap stop_all EXIT

mapfile -t D < <(make_loops 3 384M)
[[ ${#D[@]} == 3 ]] || skip_all "cannot attach loop devices"
lvm_sandbox "${D[@]}"
host_start a 1 || skip_all "cannot start sanlock in a mount namespace"
host_start b 2 || skip_all "cannot start a second sanlock in a mount namespace"
for h in a b; do     # lvx hosts activate (the user backend); LVM2's host c does not
    sed -i 's/^\([[:space:]]*activation[[:space:]]*=[[:space:]]*\)0/\11/' \
        "$SCRATCH/host-$h/lvm/lvm.conf"
done

# held HOST: the LV resources HOST's sanlock holds, "<name>:<offset>" (lvm_sv's)
held() {
    host_run "$1" sanlock client status 2>/dev/null |
        awk '$1 == "r" {n = split($2, f, ":"); if (f[1] == "lvm_sv" && f[2] != "VGLK") print f[2] ":" f[n - 1]}' |
        sort
}
uuid_of() { hx a lvs --noheadings -o lv_uuid "sv/$1" 2>/dev/null | tr -d ' '; }
args_of() { hx a lvs --noheadings -o lv_lockargs "sv/$1" 2>/dev/null | tr -d ' '; }
active_on() { hx "$1" lvs --noheadings -o lv_active "sv/$2" 2>/dev/null | tr -d ' '; }
# refused CMD...: "rc stderr" of a command expected to fail
refused() {
    local rc=0
    "$@" >/dev/null 2>"$SCRATCH/e" || rc=$?
    printf '%s %s' "$rc" "$(grep -v 'WARNING: \|Reading VG' "$SCRATCH/e")"
}
locked_lines() {
    printf '5   LV locked by other host: sv/%s\n  Failed to lock logical volume sv/%s.' "$1" "$1"
}

test_ok "host a: vgcreate --shared" hx a vgcreate --shared sv "${D[0]}" "${D[1]}"
test_ok "host a: vgchange --lockstart" hx a vgchange --lockstart sv
test_ok "host b: vgchange --lockstart" hx b vgchange --lockstart sv
for n in 1 2 3; do
    test_ok "host a: lvcreate -an lv$n" hx a lvcreate -an -Zn -l4 -n "lv$n" sv
done
U1=$(uuid_of lv1)
A1=$(args_of lv1)
# lvx gives sanlock the lvmlock LV as its PV and byte offset: the LV starts at the first
# PV's pe_start (1 MiB); LVM2 gives it /dev/mapper/sv-lvmlock, offset as in lock_args
OFF1=$((${A1#1.0.0:} + 1048576))

# ---- exclusive on a
test_ok "host a: lvchange -aey sv/lv1" hx a lvchange -aey sv/lv1
test_eq "host a's sanlock holds lv1's lease (its UUID at its lock_args offset)" \
    "$(held a)" "$U1:$OFF1"
holder=$(host_run a sanlock client status 2>/dev/null | awk '$1 == "p" && $2 > 0 {print $2}' | head -1)
test_eq "... held by the lvx daemon (a process of its own, not the command)" \
    "$(tr '\0' ' ' <"/proc/$holder/cmdline" 2>/dev/null)" "lvx daemon run "
test_eq "host a: lv1 active" "$(active_on a lv1)" "active"
test_eq "host b: lvchange -aey sv/lv1 refused with LVM2's lines, exit 5" \
    "$(refused hx b lvchange -aey sv/lv1)" "$(locked_lines lv1)"
test_eq "host b: plain -ay is exclusive in a shared VG: refused" \
    "$(refused hx b lvchange -ay sv/lv1)" "$(locked_lines lv1)"
test_eq "host b: -asy refused too" "$(refused hx b lvchange -asy sv/lv1)" "$(locked_lines lv1)"
test_eq "host b: lv1 not active there, b holds no lease" "$(active_on b lv1) $(held b)" " "
test_eq "host b: vgchange -ay refuses lv1 (and activates lv2, lv3)" \
    "$(refused hx b vgchange -ay sv)" "$(locked_lines lv1)"
test_eq "... b holds lv2's and lv3's leases" "$(held b | wc -l)" "2"
test_ok "host b: vgchange -an" hx b vgchange -an sv
test_eq "... b's leases released" "$(held b | wc -l)" "0"
test_eq "host b: lvremove of lv1 (active on a) refused, exit 5" \
    "$(refused hx b lvremove -y sv/lv1)" "5   LV locked by other host: sv/lv1"
test_eq "... lv1 still in the VG" "$(hx b lvs --noheadings -o lv_name sv/lv1 2>/dev/null | tr -d ' ')" "lv1"

# ---- deactivation releases
test_ok "host a: lvchange -an sv/lv1" hx a lvchange -an sv/lv1
test_eq "... a's sanlock holds no LV lease" "$(held a)" ""
test_ok "host b: lvchange -aey sv/lv1 now succeeds" hx b lvchange -aey sv/lv1
test_eq "... b holds it" "$(held b)" "$U1:$OFF1"
test_eq "host a: now refused" "$(refused hx a lvchange -aey sv/lv1)" "$(locked_lines lv1)"
test_ok "host b: lvchange -an sv/lv1" hx b lvchange -an sv/lv1

# ---- shared
test_ok "host a: lvchange -asy sv/lv1" hx a lvchange -asy sv/lv1
test_ok "host b: lvchange -asy sv/lv1 at the same time" hx b lvchange -asy sv/lv1
test_eq "lv1 active on both hosts" "$(active_on a lv1) $(active_on b lv1)" "active active"
test_eq "both hold the lease (shared)" "$(held a | wc -l) $(held b | wc -l)" "1 1"
for h in a b; do hx "$h" lvchange -an sv/lv1 >/dev/null 2>&1; done
test_eq "both released" "$(held a)$(held b)" ""

# ---- thin LVs: no lease of their own, the pool's (as lvmlockd)
test_ok "host a: lvcreate a thin pool" hx a lvcreate -an -Zn -L 64m -T sv/pool
for t in t1 t2; do
    test_ok "host a: lvcreate thin LV $t" hx a lvcreate -an -V 32m -T sv/pool -n "$t"
done
AP=$(args_of pool)
test_eq "lock_args: the pool has a lease slot, the thin LVs none" \
    "$(grep -c '^1\.0\.0:[0-9]*$' <<<"$AP") [$(args_of t1)$(args_of t2)]" "1 []"
POOL_LEASE="$(uuid_of pool):$((${AP#1.0.0:} + 1048576))"
test_ok "host a: lvchange -aey sv/t1" hx a lvchange -aey sv/t1
test_eq "... a's sanlock holds the pool's lease" "$(held a)" "$POOL_LEASE"
test_ok "host a: lvchange -aey sv/t2 (the same pool)" hx a lvchange -aey sv/t2
test_eq "... still the one lease" "$(held a)" "$POOL_LEASE"
test_eq "host b: -aey of t2 refused, the pool's lease named" \
    "$(refused hx b lvchange -aey sv/t2)" \
    "5   LV locked by other host: sv/pool
  Failed to lock logical volume sv/t2."
test_eq "host b: -asy of a thin LV refused as lvmlockd does (no shared thin)" \
    "$(refused hx b lvchange -asy sv/t1)" \
    "5   Shared activation not compatible with LV type thin-pool of sv/pool
  Failed to lock logical volume sv/t1."
test_ok "host a: lvchange -an sv/t1" hx a lvchange -an sv/t1
test_eq "... the lease stays (t2 still active on a)" "$(held a)" "$POOL_LEASE"
test_eq "host b: still refused" "$(refused hx b lvchange -aey sv/t1)" \
    "5   LV locked by other host: sv/pool
  Failed to lock logical volume sv/t1."
test_ok "host a: lvchange -an sv/t2" hx a lvchange -an sv/t2
# the pool came up with its thin LVs and stays active until deactivated itself: its
# lease goes with it (lvmlockd: unlocked when the pool is no longer active)
test_eq "... the lease stays while the pool is active on a" \
    "$(active_on a pool) $(held a)" "active $POOL_LEASE"
test_ok "host a: lvchange -an sv/pool" hx a lvchange -an sv/pool
test_eq "... released with the pool" "$(held a)" ""
test_ok "host b: lvchange -aey sv/t1 now succeeds" hx b lvchange -aey sv/t1
test_eq "... b holds the pool's lease" "$(held b)" "$POOL_LEASE"
test_ok "host b: lvchange -an sv/t1" hx b lvchange -an sv/t1
test_ok "host a: lvremove the thin LVs and the pool" hx a lvremove -y sv/t1 sv/t2 sv/pool

# ---- the LVM2 host
if command -v lvmlockd >/dev/null && command -v lvm >/dev/null; then
    LK=$(attach_loop "$(loop_backing "${D[0]}")" -o 1048576 --sizelimit 268435456)
    host_start c 3 lvmlockd && host_link c sv-lvmlock "$LK"
    test_ok "LVM2 host c: vgchange --lockstart" host_run c vgchange --lockstart sv
    test_ok "host a: lvchange -aey sv/lv1" hx a lvchange -aey sv/lv1
    lvm_refusal=$(refused host_run c lvchange -aey sv/lv1)
    test_eq "LVM2 (activation off, lvmlockd) refuses -aey of lvx's active LV: the lines lvx prints" \
        "$lvm_refusal" "$(locked_lines lv1)"
    test_eq "LVM2 refuses -asy too" "$(refused host_run c lvchange -asy sv/lv1)" "$(locked_lines lv1)"
    test_ok "host a: lvchange -an sv/lv1" hx a lvchange -an sv/lv1
    test_ok "LVM2 host c: lvchange -aey sv/lv1 (lvmlockd takes the lease)" \
        host_run c lvchange -aey sv/lv1
    test_eq "... c's sanlock holds the same resource lvx took" "$(held c)" "$U1:${A1#1.0.0:}"
    test_eq "host a: lvx refused while LVM2 holds it" \
        "$(refused hx a lvchange -aey sv/lv1)" "$(locked_lines lv1)"
    test_eq "host a: lvx -asy refused too" "$(refused hx a lvchange -asy sv/lv1)" "$(locked_lines lv1)"
    test_ok "LVM2 host c: lvchange -an sv/lv1" host_run c lvchange -an sv/lv1
    test_ok "host a: then lvx activates it" hx a lvchange -aey sv/lv1
    hx a lvchange -an sv/lv1 >/dev/null 2>&1

    # slot reuse: LVM2 frees, lvx reuses
    A3=$(args_of lv3)
    test_ok "LVM2 host c: lvremove sv/lv3" host_run c lvremove -y sv/lv3
    test_ok "host a: lvcreate lv4" hx a lvcreate -an -Zn -l4 -n lv4 sv
    test_eq "lvx's new LV gets the slot LVM2 freed" "$(args_of lv4)" "$A3"
    # lvx frees, LVM2 creates: lvmlockd searches from where its last init_lv stopped
    A2=$(args_of lv2)
    test_ok "host a: lvremove sv/lv2" hx a lvremove -y sv/lv2
    test_ok "LVM2 host c: lvcreate lv6" host_run c lvcreate -an -Zn -l4 -n lv6 sv
    test_eq "LVM2's new LV gets the slot lvx freed" "$(args_of lv6)" "$A2"
    test_eq "LVM2's new LV has a slot of its own" \
        "$(hx a lvs --noheadings -o lv_lockargs sv 2>/dev/null | awk 'NF' | sort | uniq -d | wc -l)" "0"

    # the global lock: lvx's vgextend on b holds it (and the VG lease) for a while
    host_run b env LVX_RUN_DIR="$SCRATCH/host-b/lvxrun" LVX_TEST_LOCKD_HOLD=40 \
        "$LVX" vgextend sv "${D[2]}" >/dev/null 2>"$SCRATCH/ext.err" &
    extender=$!
    got=1
    for _ in $(seq 100); do
        held_gl=$(host_run b sanlock client status 2>/dev/null | awk '$1 == "r" {split($2, f, ":"); print f[1] ":" f[2]}' | grep -c '^lvm_sv:GLLK$')
        [[ $held_gl == 1 ]] && { got=0; break; }
        sleep 0.2
    done
    _tap_result "$got" "lvx's vgextend holds the global lock (GLLK of sv, the first sanlock VG)"
    rc=0
    host_run c pvcreate "${D[2]}" >/dev/null 2>"$SCRATCH/e" || rc=$?
    test_eq "LVM2 host c: pvcreate refused meanwhile (after its 3 retries), exit 5" \
        "$rc $(grep -c '^  Global lock failed: held by other host\.$' "$SCRATCH/e")" "5 1"
    grep -q 'Global lock failed' "$SCRATCH/e" || diag "LVM2's pvcreate: $(tr '\n' '|' <"$SCRATCH/e")"
    test_eq "host a: lvx pvcreate refused too, LVM2's line, exit 5" \
        "$(refused hx a pvcreate "${D[2]}")" "5   Global lock failed: held by other host."
    wait "$extender"
    test_eq "b's vgextend landed" "$(hx a vgs --noheadings -o pv_count sv 2>/dev/null | tr -d ' ')" "3"
    test_eq "... and b released the global lock" \
        "$(host_run b sanlock client status 2>/dev/null | grep -c 'GLLK')" "0"
    host_run c vgchange --lockstop sv >/dev/null 2>&1
else
    test_skip "the LVM2 host part" "no lvmlockd or lvm"
fi

# ---- lvcreate activates (exclusively) after giving the new LV its lease
test_ok "host a: lvcreate lv7 (active)" hx a lvcreate -Zn -l4 -n lv7 sv
test_eq "... a holds lv7's lease" "$(held a | cut -d: -f1)" "$(uuid_of lv7)"
test_eq "host b: lvchange -asy sv/lv7 refused" \
    "$(refused hx b lvchange -asy sv/lv7)" "$(locked_lines lv7)"
test_ok "host a: lvremove -f of the active lv7 (deactivated first)" hx a lvremove -f sv/lv7
test_eq "... no lease held, none left named by it" "$(held a)" ""

# ---- slot reuse: lvx frees, lvx reuses
A5=$(args_of lv1)
test_ok "host a: lvremove sv/lv1" hx a lvremove -y sv/lv1
test_eq "... its slot is \"#unused\" again (lvmlockd's free_lv)" \
    "$(host_run a sanlock direct read_leader -r "lvm_sv:x:${D[0]}:$OFF1" 2>&1 | tee "$SCRATCH/leader" |
       grep -c '#unused')" "1"
test_ok "host b: lvcreate lv5" hx b lvcreate -an -Zn -l4 -n lv5 sv
test_eq "the next LV gets lv1's freed slot" "$(args_of lv5)" "$A5"
test_eq "every LV has its own slot" \
    "$(hx a lvs --noheadings -o lv_lockargs sv 2>/dev/null | awk 'NF' | sort | uniq -d | wc -l)" "0"
test_ok "vgck" hx a vgck sv

done_testing
