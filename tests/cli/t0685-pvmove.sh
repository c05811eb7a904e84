#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0685-pvmove: lvx pvmove (issue 18) on loop devices, LVM2 as the oracle.
#   1. the setup metadata: LVM2's pvmove (activation off here: it writes the setup and
#      stops, "Interrupted: No longer active") and lvx's pvmove stopped right after
#      its setup commit (LVX_TEST_CRASH_AFTER_WRITE = the writes before the first data
#      write) on twin VGs: the same backup text (ids, times, names aside), for a whole
#      PV, a PE range, -n LV, and a destination PV list; reports side by side there;
#   2. lvx finishes the move LVM2 set up: the same final metadata as lvx's own move on
#      the twin, the LVs' data intact (known random contents, read through the
#      segment mapping before and after);
#   3. crash at every commit of a move (setup, each checkpoint, both end commits) and at
#      random writes (data copy included): LVM2 reads the VG each time (vgs, lvs -a,
#      vgck), `lvx pvmove` without arguments resumes and finishes, data intact; a real
#      SIGKILL of a background copy, resumed;
#   4. --abort: by lvx of a move it crashed in (copied segments stay moved, data
#      intact); by LVM2 of a move lvx started (LVM2 without device-mapper skips the
#      inactive pvmove LV: the VG is left as it was and lvx then finishes it);
#   5. -i progress lines, -b, bad input side by side with LVM2, an active LV (user-space
#      backend) moved.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/side.sh"
source "$LVX_ROOT/tests/tools/pvmove-lib.sh"
pvmove_loops

# ---------------------------------------------------------------- 1 + 2: twins
# twin NAME ARGS...: the move "pvmove ARGS" (device names as A/B/C) on twin VGs made
# alike: LVM2 on vl (D0-2), lvx on vx (D3-5), lvx's full move on vf (D6-8)
twin() {
    local name=$1
    shift
    mkvg vl "${D[0]}" "${D[1]}" "${D[2]}"
    mkvg vx "${D[3]}" "${D[4]}" "${D[5]}"
    mkvg vf "${D[6]}" "${D[7]}" "${D[8]}"
    fill_all vl
    fill_all vf
    [[ $name != "whole PV" ]] || test_eq "the PVs' data start at 1 MiB (the maps rely on it)" \
        "$PE_START" "$(lvx pvs --noheadings --units b --nosuffix -o pe_start "${D[0]}" | tr -d ' ')"
    # shellcheck disable=SC2046
    lvm2 pvmove $(sub "${D[0]}" "${D[1]}" "${D[2]}" "$@") >"$SCRATCH/l.pm" 2>&1
    grep -q "Interrupted: No longer active" "$SCRATCH/l.pm"
    _tap_result $? "$name: LVM2 sets the move up and stops (no device-mapper)"
    # shellcheck disable=SC2046
    LVX_TEST_IO_LOG=$SCRATCH/io.log lvx pvmove -i 0 $(sub "${D[6]}" "${D[7]}" "${D[8]}" "$@") \
        >"$SCRATCH/f.pm" 2>&1
    test_eq "$name: lvx's full move on a twin: exit 0" "0" "$?"
    local n
    n=$(setup_writes "$SCRATCH/io.log")
    rm -f "$SCRATCH/io.log"
    # shellcheck disable=SC2046
    LVX_TEST_CRASH_AFTER_WRITE=$n lvx pvmove $(sub "${D[3]}" "${D[4]}" "${D[5]}" "$@") >/dev/null 2>&1
    test_eq "$name: lvx stopped after its setup commit ($n writes)" "99" "$?"
    backup vl "$SCRATCH/l.vg"
    backup vx "$SCRATCH/x.vg"
    test_eq "$name: lvx's setup metadata is LVM2's" "$(norm "$SCRATCH/l.vg" vl)" "$(norm "$SCRATCH/x.vg" vx)"
    for vg in vl vx; do
        side lvs -a -o lv_name,lv_attr,devices,seg_pe_ranges,move_pv,copy_percent "$vg"
        cmp -s "$SCRATCH/l.out" "$SCRATCH/x.out" && cmp -s "$SCRATCH/l.err" "$SCRATCH/x.err"
        _tap_result $? "$name: lvs -a -o +move_pv,copy_percent on $vg: lvx = LVM2"
    done
    # 2: lvx finishes LVM2's move
    twin_end "$name" "the move LVM2 set up"
}
twin "whole PV" A
twin "to a named PV" A C
twin "PE range" A:2-4 C
twin "-n two" -n two A
twin "--alloc anywhere" --alloc anywhere A B

# ---------------------------------------------------------------- 3: crashes
VG=vk
K=("${D[0]}" "${D[1]}" "${D[2]}")
mkvg $VG "${K[@]}"
fill_all $VG
backup $VG "$SCRATCH/k0.vg"
LVX_TEST_IO_LOG=$SCRATCH/k.log lvx pvmove -i 0 "${K[0]}" >/dev/null 2>&1
# the last write of each commit: metadata writes come in groups between data writes;
# the first group is the setup commit, every group is a whole number of such commits
mapfile -t CKPT < <(awk '$1 == "write" { n++; data = ($3 >= 1048576 && $4 >= 65536)
                           if (!data && !inm) { s = n; inm = 1 }
                           if (data && inm) { g[++ng] = s " " (n - 1); inm = 0 } }
                         END { if (inm) g[++ng] = s " " n
                               split(g[1], f, " "); c = f[2] - f[1] + 1
                               for (i = 1; i <= ng; i++) { split(g[i], f, " ")
                                   for (e = f[1] - 1 + c; e <= f[2]; e += c) print e } }' "$SCRATCH/k.log")
mapfile -t DATAW < <(awk '$1 == "write" { n++; if ($3 >= 1048576 && $4 >= 65536) print n }' "$SCRATCH/k.log")
TOTAL=$(awk '$1 == "write"' "$SCRATCH/k.log" | wc -l)
rm -f "$SCRATCH/k.log"
diag "a move: $TOTAL writes, data writes ${#DATAW[@]}, commit ends: ${CKPT[*]}"
test_eq "the move has 6 commits: setup, 3 checkpoints, 2 at the end" "${#CKPT[@]}" "6"

restore_k() {   # back to the VG before the move (the source extents still hold the data)
    lvm2 vgcfgrestore -f "$SCRATCH/k0.vg" $VG >/dev/null 2>&1
}
crash_at() {    # crash_at N LABEL
    restore_k
    LVX_TEST_CRASH_AFTER_WRITE=$1 lvx pvmove -i 0 "${K[0]}" >/dev/null 2>"$SCRATCH/c.err"
    local rc=$?
    local ok=0 why=""
    [[ $rc == 99 ]] || { ok=1; why+="exit $rc (expected the crash, 99); "; }
    lvm2 vgs $VG >/dev/null 2>"$SCRATCH/v.err" || { ok=1; why+="LVM2 vgs failed; "; }
    lvm2 lvs -a $VG >/dev/null 2>>"$SCRATCH/v.err" || { ok=1; why+="LVM2 lvs failed; "; }
    lvm2 vgck $VG >/dev/null 2>>"$SCRATCH/v.err" || { ok=1; why+="LVM2 vgck failed; "; }
    # inside a commit the copies may differ until the next commit (LVM2 takes the
    # newest and says so); at a commit's end LVM2 has nothing to say
    local allow="Activation disabled"
    [[ " ${CKPT[*]} " == *" $1 "* ]] ||
        allow+="|WARNING: ignoring metadata seqno|WARNING: Inconsistent metadata found|See vgck --updatemetadata"
    grep -Ev "$allow" "$SCRATCH/v.err" | grep -q . &&
        { ok=1; why+="LVM2 warned: $(grep -Ev "$allow" "$SCRATCH/v.err" | head -2); "; }
    lvx pvmove -i 0 >"$SCRATCH/r.out" 2>&1 || { ok=1; why+="resume failed: $(head -3 "$SCRATCH/r.out"); "; }
    # a crash inside the setup commit may leave the old version (no move): start again
    if [[ $1 -le ${CKPT[0]} ]] && lvm2 lvs --noheadings -o devices $VG 2>/dev/null | grep -q "${K[0]}"; then
        lvx pvmove -i 0 "${K[0]}" >"$SCRATCH/r.out" 2>&1 || { ok=1; why+="the new move failed; "; }
    fi
    [[ -z $(lvm2 lvs -a --noheadings -o lv_name $VG 2>/dev/null | grep pvmove) ]] ||
        { ok=1; why+="pvmove LV left; "; }
    [[ $(sums_now $VG) == "$(cat "$SCRATCH/$VG.sums")" ]] || { ok=1; why+="data differs; "; }
    [[ -z $(lvm2 lvs --noheadings -o devices $VG 2>/dev/null | grep "${K[0]}") ]] ||
        { ok=1; why+="extents left on the source; "; }
    _tap_result $ok "crash after write $1 ($2): LVM2 reads the VG, lvx resumes, data intact"
    [[ $ok == 0 ]] || diag "$why"
}
i=0
for n in "${CKPT[@]}"; do
    i=$((i + 1))
    crash_at "$n" "end of commit $i"
done
for r in 1 2 3 4 5 6; do
    n=$(( (RANDOM % (TOTAL - 1)) + 1 ))
    crash_at "$n" "random point $r"
done
# twice in a row: crash the resume too
restore_k
LVX_TEST_CRASH_AFTER_WRITE=${DATAW[2]} lvx pvmove -i 0 "${K[0]}" >/dev/null 2>&1
LVX_TEST_CRASH_AFTER_WRITE=3 lvx pvmove -i 0 >/dev/null 2>&1
test_eq "a crashed resume: crashed too (99)" "99" "$?"
test_ok "... the next resume finishes" lvx pvmove -i 0
test_eq "... data intact" "$(cat "$SCRATCH/$VG.sums")" "$(sums_now $VG)"

# a real SIGKILL of a background copy (slowed down: its writes are delayed)
restore_k
lvx pvmove -b "${K[0]}" >/dev/null 2>&1
test_eq "pvmove -b returns at once (exit 0)" "0" "$?"
killed=0
for _ in $(seq 1 50); do
    pid=$(pgrep -f "lvx pvmove .*${K[0]}" | head -1)
    if [[ -n $pid ]]; then kill -9 "$pid" 2>/dev/null && killed=1; break; fi
    sleep 0.05
done
diag "background copier killed: $killed"
test_ok "after a SIGKILL of the copier: lvx pvmove resumes" lvx pvmove -i 0
test_eq "... no pvmove LV left, data intact" "$(cat "$SCRATCH/$VG.sums")" "$(sums_now $VG)"

# ---------------------------------------------------------------- 4: --abort
restore_k
LVX_TEST_CRASH_AFTER_WRITE=${CKPT[1]} lvx pvmove -i 0 "${K[0]}" >/dev/null 2>&1   # 1 segment copied
backup $VG "$SCRATCH/mid.vg"
test_eq "crash after the first checkpoint: extents_moved of the segments (LVM2's backup)" \
    "$(grep -o 'extents_moved = [0-9]*' "$SCRATCH/mid.vg" | tr '\n' ' ')" \
    "extents_moved = 2 extents_moved = 0 extents_moved = 0 "
same "lvs -a -o +move_pv,copy_percent at a checkpoint (LVM2: no Cpy%Sync for an inactive move)" \
    lvs -a -o +devices,move_pv,copy_percent $VG
lvm2 pvmove --abort >"$SCRATCH/la.out" 2>&1
test_eq "LVM2's pvmove --abort of lvx's move: exit 0" "0" "$?"
grep -q "Skipping inactive LV" "$SCRATCH/la.out"
_tap_result $? "... LVM2 skips it (inactive pvmove LV, no device-mapper here)"
backup $VG "$SCRATCH/mid2.vg"
test_eq "... and leaves the VG as it was" "$(norm "$SCRATCH/mid.vg" $VG)" "$(norm "$SCRATCH/mid2.vg" $VG)"
lvx pvmove --abort >"$SCRATCH/a.out" 2>&1
test_eq "lvx pvmove --abort: exit 0" "0" "$?"
test_eq "... no pvmove LV left" "" "$(lvm2 lvs -a --noheadings -o lv_name $VG 2>/dev/null | grep pvmove)"
test_eq "... the copied segment stays moved (one), the rest not (two, four)" \
    "four ${K[0]}(5)
one ${K[1]}(2)
one ${K[1]}(1)
three ${K[1]}(0)
two ${K[0]}(2)" \
    "$(lvm2 lvs --noheadings -o lv_name,devices $VG 2>/dev/null | awk '{print $1, $2}')"
test_eq "... data intact" "$(cat "$SCRATCH/$VG.sums")" "$(sums_now $VG)"
test_ok "... LVM2's vgck" lvm2 vgck $VG
same "... reports: lvs -a" lvs -a -o +devices,seg_pe_ranges $VG
same "... reports: pvs" pvs -o +pv_used "${K[@]}"
lvx pvmove --abort "${K[0]}" >"$SCRATCH/a.out" 2>&1
test_eq "lvx pvmove --abort PV with no move: LVM2's line" \
    "  ${K[0]}: No pvmove in progress - already finished or aborted." "$(cat "$SCRATCH/a.out")"

# ---------------------------------------------------------------- 5: options, bad input
restore_k
lvx pvmove -i 1 "${K[0]}" "${K[2]}" >"$SCRATCH/p.out" 2>&1
test_eq "pvmove -i 1: exit 0" "0" "$?"
grep -Eq "^  ${K[0]}: Moved: [0-9]+\.[0-9]{2}%$" "$SCRATCH/p.out" &&
    test "$(tail -1 "$SCRATCH/p.out")" = "  ${K[0]}: Moved: 100.00%"
_tap_result $? "... progress lines as LVM2's (\"DEV: Moved: NN.NN%\"), 100.00% last"
test_eq "... data intact" "$(cat "$SCRATCH/$VG.sums")" "$(sums_now $VG)"

restore_k
lvx pvmove -b -i 0 "${K[0]}" >"$SCRATCH/b.out" 2>&1
# (backups are off in the sandbox: LVM2's warning for the setup commit, then nothing)
test_eq "pvmove -b: exit 0, only the backup warning printed" \
    "0:  WARNING: This metadata update is NOT backed up." "$?:$(cat "$SCRATCH/b.out")"
lvx pvmove -i 1 >"$SCRATCH/w.out" 2>&1
test_eq "pvmove (no arguments) beside the background copier: waits for it, exit 0" "0" "$?"
diag "$(cat "$SCRATCH/w.out")"
for _ in $(seq 1 200); do
    [[ -z $(lvm2 lvs -a --noheadings -o lv_name $VG 2>/dev/null | grep pvmove) ]] && break
    sleep 0.1
done
test_eq "... the background copy finishes" "" "$(lvm2 lvs -a --noheadings -o lv_name $VG 2>/dev/null | grep pvmove)"
test_eq "... data intact" "$(cat "$SCRATCH/$VG.sums")" "$(sums_now $VG)"

# --maxrecoveryrate RATE (an lvx extension: LVM2's pvmove has no rate limit; bench/pvmove
# measures how well the rate holds): the move keeps the data, and a background copier
# is started with the rate on its command line
restore_k
lvx pvmove -i 0 --maxrecoveryrate 64m "${K[0]}" >"$SCRATCH/r.out" 2>&1
test_eq "pvmove --maxrecoveryrate 64m: exit 0" "0" "$?"
test_eq "... data intact" "$(cat "$SCRATCH/$VG.sums")" "$(sums_now $VG)"
restore_k
lvx pvmove -b -i 0 --maxrecoveryrate 1m "${K[0]}" >/dev/null 2>&1
copier=
for _ in $(seq 1 50); do
    copier=$(pgrep -f -- "--maxrecoveryrate 2048s ${K[0]}" || true)
    [[ -n $copier ]] && break
    sleep 0.1
done
test_ok "... with -b: the background copier carries the rate (2048 sectors a second)" test -n "$copier"
lvx pvmove --abort >/dev/null 2>&1
test_eq "... --abort stops the slow copier: no pvmove LV left" "" \
    "$(lvm2 lvs -a --noheadings -o lv_name $VG 2>/dev/null | grep pvmove)"
test_eq "... data intact" "$(cat "$SCRATCH/$VG.sums")" "$(sums_now $VG)"
# the race CI once lost: --abort ended the move before the background copier (this
# program again, `lvx pvmove SRC`, told the move's uuid in LVX_PVMOVE_RESUME_UUID) got
# going; the late copier must find its move gone and exit, not set up a new move
restore_k
lvx pvmove -b -i 0 --maxrecoveryrate 1m "${K[0]}" >/dev/null 2>&1
mv_uuid=$(lvm2 lvs -a --noheadings -o lv_uuid,lv_name $VG 2>/dev/null | awk '/pvmove/ {print $1}')
lvx pvmove --abort >/dev/null 2>&1
late=$(LVX_PVMOVE_RESUME_UUID=${mv_uuid//-/} "$LVX_PLAIN" pvmove -i 0 "${K[0]}" 2>&1; echo "rc=$?")
test_eq "a copier that starts after --abort ended its move: LVM2's line, exit 0" \
    "  ${K[0]}: No pvmove in progress - already finished or aborted.
rc=0" "$late"
test_eq "... and no new move set up" "" \
    "$(lvm2 lvs -a --noheadings -o lv_name $VG 2>/dev/null | grep pvmove)"
test_eq "... data intact" "$(cat "$SCRATCH/$VG.sums")" "$(sums_now $VG)"
MAX_RATE_BAD=$(lvx pvmove --maxrecoveryrate bogus "${K[0]}" 2>&1; echo "rc=$?")
test_ok "--maxrecoveryrate bogus: refused with exit 3" grep -q "rc=3" <<<"$MAX_RATE_BAD"

restore_k
sum0=$(sha_devs "${K[@]}")
same "no data on the PV: refused" pvmove "${K[2]}"
same "-n unknown LV: refused" pvmove -n nope "${K[0]}"
same "-n VG/LV of another VG: refused" pvmove -n other/one "${K[0]}"
same "--alloc bogus: refused" pvmove --alloc bogus "${K[0]}"
same "-i -1: refused" pvmove -i -1 "${K[0]}"
same "an unknown device: refused" pvmove /dev/nonexistent-pv
same "--abort without a move" pvmove --abort "${K[1]}"
test_eq "... nothing written" "$sum0" "$(sha_devs "${K[@]}")"

# an active LV (user-space backend): moved while active (t0687 does it under load)
mkdir -p "$SCRATCH/udev"
UA=(env LVX_ACTIVATION_BACKEND=user DM_DEV_DIR=$SCRATCH/udev)
if "${UA[@]}" "$LVX" lvchange --config 'global/activation=1' -ay $VG/two >/dev/null 2>&1; then
    lsum=$(sha256sum <"$SCRATCH/udev/$VG/two")
    "${UA[@]}" "$LVX" pvmove --config 'global/activation=1' "${K[0]}" >/dev/null 2>"$SCRATCH/e"
    test_eq "pvmove of an active LV (user backend): done, exit 0" "0" "$?"
    test_eq "... the LV reads the same through the daemon" "$lsum" "$(sha256sum <"$SCRATCH/udev/$VG/two")"
    "${UA[@]}" "$LVX" lvchange --config 'global/activation=1' -an $VG/two >/dev/null 2>&1
    test_eq "... no pvmove LV left" "" "$("$LVX" lvs -a --noheadings -o lv_name $VG | grep pvmove)"
else
    test_skip "user-space activation unavailable here" 3
fi
"$LVX" daemon stop >/dev/null 2>&1 || true

rmvg $VG "${K[@]}"
done_testing
