#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1043-user-merge-background: lvconvert -b --merge returns once the merge has started
# and a detached `lvx lvpoll --polloperation merge` finishes it, as LVM2's background
# poller (LVM2's snapshot-merge-thin.sh:60 wants lv_merging "merging" right after -b;
# lvx polled in the foreground, holding the VG's lock, so the next lvs waited for the
# end).  User-space backend; the daemon's reads of the COW's PV and writes of the
# origin's delayed 400 ms each (LVX_TEST_DP_FAULT) so that the merge lasts a few seconds.
#   - org (4 MiB, data A) on D0, snapshot s (4 MiB COW) on D1, 2 MiB of B over org;
#   - lvconvert -b --merge VG/s: exit 0 within a few seconds, LVM2's lines, the poller
#     detached (its own session); meanwhile lvs answers (not blocked by a VG lock) with
#     lv_merging "merging", and `lvx lvpoll --polloperation merge -i 1 VG/org` waits
#     for the end next to the background poller (they take turns on the lock);
#   - at the end: s gone (LVM2 reads the VG: org alone), org reads A again, no poller
#     left; lvpoll of an LV with nothing to merge exits 0 at once; lvpoll's refusals.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

VG=vgmbg$$
uspace_test_loops "$VG" 2 32M
MIB=1048576
ORG=$DM_DEV_DIR/$VG/org

uspace_run_ok "pvcreate, vgcreate" sh -c "$LVX pvcreate -q ${DEVS[*]} && $LVX vgcreate -q $VG ${DEVS[*]}"
uspace_run_ok "org: 4 MiB on D0" lvx lvcreate -q -Zn -L 4m -n org "$VG" "${DEVS[0]}"
head -c $((4 * MIB)) /dev/urandom >"$SCRATCH/A"
head -c $((2 * MIB)) /dev/urandom >"$SCRATCH/B"
uspace_run_ok "A written to org" dd if="$SCRATCH/A" of="$ORG" bs=1M oflag=direct conv=fsync status=none
uspace_run_ok "snapshot s (4 MiB COW on D1)" lvx lvcreate -q -s -L 4m -n s "$VG/org" "${DEVS[1]}"
uspace_run_ok "2 MiB of B written over org" dd if="$SCRATCH/B" of="$ORG" bs=1M oflag=direct conv=fsync status=none
uspace_run_ok "the VG deactivated" lvx vgchange -q -an "$VG"
uspace_stop_daemon "$VG"
LVX_TEST_DP_FAULT="pv=${DEVS[1]},op=read,kind=delay=400;pv=${DEVS[0]},op=write,kind=delay=400" \
    lvx vgchange -q -ay "$VG" >"$SCRATCH/o" 2>&1
_tap_result $? "the VG activated by a daemon whose reads of D1 (the COW) and writes of D0 take 400 ms more"

start=$(date +%s%N)
rc=0; lvx lvconvert -b --merge "$VG/s" >"$SCRATCH/m.out" 2>&1 || rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
test_eq "lvconvert -b --merge: exit 0, 'Merging of volume $VG/s started.', no progress line" \
    "$rc $(grep -c "Merging of volume $VG/s started." "$SCRATCH/m.out") $(grep -c 'Merged:' "$SCRATCH/m.out")" "0 1 0" ||
    diag "$(cat "$SCRATCH/m.out")"
test_eq "lv_merging of org right after: merging (lvs not held up by the poller)" \
    "$(field "$VG/org" lv_merging)" "merging"
# (the poller is forked, then execs: on a loaded machine its command line can appear
# after lvconvert returned)
for _ in $(seq 20); do
    poller=$(pgrep -f "lvpoll --polloperation merge .*$VG/org" | head -1)
    [ -n "$poller" ] && break
    sleep 0.5
done
test_ok "a detached poller runs: lvx lvpoll, outside this test's session" \
    sh -c "[ -n '$poller' ] && [ \"\$(ps -o sid= -p $poller | tr -d ' ')\" != \"\$(ps -o sid= -p $$ | tr -d ' ')\" ]"
diag "lvconvert -b returned after $ms ms"
rc=0; timeout 300 "$LVX" lvpoll --polloperation merge -i 1 "$VG/org" >"$SCRATCH/p.out" 2>&1 || rc=$?
test_eq "lvpoll --polloperation merge -i 1 VG/org waits for the end: exit 0" "$rc" "0" ||
    diag "$(cat "$SCRATCH/p.out")"
for _ in $(seq 100); do [[ -z $(pgrep -f "lvpoll --polloperation merge .*$VG/org") ]] && break; sleep 0.1; done
test_eq "no poller left" "$(pgrep -fc "lvpoll --polloperation merge .*$VG/org")" "0"
test_eq "s gone: LVM2 reads the VG with org alone; org not merging" \
    "$(lvm2 lvs --noheadings -o lv_name "$VG" 2>/dev/null | xargs) $(field "$VG/org" lv_merging)" "org "
test_eq "org reads A again" "$(dd if="$ORG" bs=1M iflag=direct status=none | sha256sum | cut -d' ' -f1)" "$(fsum "$SCRATCH/A")"
rc=0; out=$(lvx lvpoll --polloperation merge -i 1 "$VG/org" 2>&1) || rc=$?
test_eq "lvpoll of an LV with nothing to merge: exit 0, silent" "$rc $out" "0 "
rc=0; out=$(lvx lvpoll "$VG/org" 2>&1) || rc=$?
test_eq "lvpoll without --polloperation: exit 3" "$rc" "3"
rc=0; out=$(lvx lvpoll --polloperation pvmove "$VG/org" 2>&1) || rc=$?
test_eq "lvpoll --polloperation pvmove: exit 5, says where pvmove goes on" "$rc $(grep -c '`pvmove`' <<<"$out")" "5 1"
uspace_run_ok "the VG deactivated" lvx vgchange -q -an "$VG"
done_testing
