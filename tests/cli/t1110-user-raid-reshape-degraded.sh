#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1110-user-raid-reshape-degraded: a raid5/6 reshape in progress in lvx's user-space
# daemon with legs lost, and the commands refused while it reshapes (docs/reshape-user.md
# step 7, §3.6, §3.8).  md's half-done state is built on the PVs as t1107/t1108 build it.
#   A. raid5_ls -i4 r, 64k -> 128k forward recorded at 8192, served frozen
#      (LVX_TEST_RESHAPE_FROZEN): lvextend ("Can't resize reshaping LV", LVM2's
#      lvresize check), lvreduce, --type raid6 (takeover), --type raid5_n and --stripes 5
#      (another reshape: LVM2's "not in-sync" lines before the user backend's own),
#      --repair, --replace, --syncaction check|repair: each exit 5, LVM2's lines, the
#      VG's seqno unchanged; lvextend of the inactive LV as LVM2 (activation off) says it.
#   B. the same LV walked (--maxrecoveryrate 256k) with every op on leg 2's PV failing
#      after a few (LVX_TEST_DP_FAULT kind=eio): the leg is marked failed, the walk goes
#      on degraded (A's chunks of leg 2 rebuilt from parity), writes land, a deactivation
#      records the position on the live legs (leg 2's superblock left behind, marked
#      failed in the others'); reactivated with the PV healthy again the leg is behind:
#      left out, the walk resumes degraded from the record to its end; the next
#      activation rebuilds leg 2 in B.  Then every superblock is md's finished state and
#      every row and parity on the PVs is B's.
#   C. raid6_zr -i3 r, 64k -> 128k forward recorded at 7680, activated with leg 1's PV
#      missing (--activationmode degraded) and leg 3's PV failing mid-walk: two legs
#      lost, the walk ends, the bytes are right; with both PVs back both legs are rebuilt.
# On the code before step 7, 30 of its 69 checks fail (the lvextend/lvresize and reshape
# refusals, the checkpoint after the failure: the walk stopped, every degraded activation).
# shellcheck disable=SC2317  # the helpers below are called through test_ok / uspace_run_ok
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/uspace-env.sh
source "$LVX_ROOT/tests/tools/uspace-env.sh"
: "${PYTHON:=python3}"
need_cmd "$PYTHON"
VG=vgrsd$$
uspace_test_loops "$VG" 6 64M
source "$LVX_ROOT/tests/tools/raid-pvread.sh"
# shellcheck source=tests/tools/raid-reshaped.sh
source "$LVX_ROOT/tests/tools/raid-reshaped.sh"
plan_later
M=1048576
LOG=$LVX_RUN_DIR/lvxd.log
R=$DM_DEV_DIR/$VG/r
ROWS=$LVX_ROOT/tests/tools/reshape_rows.py
GEO=$LVX_ROOT/tests/tools/reshape_geo.py
IMGS=("$SCRATCH"/img{0,1,2,3,4})
FIVE=("${DEVS[@]:0:5}")

seqno() { "$LVX" vgs --noheadings -o seqno "$VG" 2>/dev/null | xargs; }
# refused DESC EXPECTED CMD...: exit 5, its lines (WARNINGs aside, joined with |) EXPECTED,
# the VG's seqno unchanged
refused() {
    local desc=$1 want=$2 s0 out rc
    shift 2
    s0=$(seqno)
    out=$("$LVX" "$@" </dev/null 2>&1)
    rc=$?
    test_eq "$desc: exit 5, LVM2's lines, seqno $s0 kept" \
        "$rc $(printf '%s\n' "$out" | grep -v '^  WARNING' | sed 's/^  //' | tr '\n' '|') $(seqno)" \
        "5 $want $s0"
}
# put MIB KIB: random bytes written through r at MIB MiB and into the reference
put() {
    head -c $(($2 * 1024)) /dev/urandom >"$SCRATCH/w.bin" &&
        dd if="$SCRATCH/w.bin" of="$R" bs=64k seek=$(($1 * 16)) oflag=direct conv=fsync status=none &&
        dd if="$SCRATCH/w.bin" of="$SCRATCH/ref" bs=64k seek=$(($1 * 16)) conv=notrunc status=none
}
restart_daemon() {  # restart_daemon [FAULT]: the daemon stopped, started (with FAULT)
    "$LVX" daemon stop >/dev/null 2>&1
    for _ in $(seq 50); do [[ -z $(uspace_daemon_pids) ]] && break; sleep 0.1; done
    : >"$LOG"
    env ${1:+LVX_TEST_DP_FAULT=$1} "$LVX" daemon start >/dev/null 2>&1
}

# rebuilt_end MIB FIN: after the rebuilds, in sync, the first MIB MiB the reference, every
# superblock FIN with no leg failed, the images read from the PVs into IMGS
rebuilt_end() {
    test_ok "in sync (polled)" wait_synced r
    test_eq "r reads the reference" "$(lv_sum "$R" 0 $(($1 * M)))" "$(fsum "$SCRATCH/ref")"
    uspace_run_ok "deactivated" lvx lvchange -an "$VG/r"
    test_eq "every superblock: md's finished state, no failed leg" \
        "$(sb_fin_fields 0 1 2 3 4) $(sb_field r_rmeta_0 failed)" "$2 0"
    for i in 0 1 2 3 4; do pv_get "r_rimage_$i" 0 $((8 * M)) "$SCRATCH/img$i"; done
}

uspace_run_ok "PVs, VG; raid5 -i4 -I 64k -L 32m r on the first five" sh -c \
    "$LVX pvcreate -q ${DEVS[*]} && $LVX vgcreate -q $VG ${DEVS[*]} &&
     $LVX lvcreate -q -y -Zn --type raid5 -i4 -I 64k -L 32m -n r $VG ${FIVE[*]}"
test_ok "in sync (polled)" in_sync
uspace_run_ok "deactivated, --maxrecoveryrate 256k" sh -c \
    "$LVX lvchange -an $VG/r && $LVX lvchange --maxrecoveryrate 256k $VG/r"
for i in 0 1 2 3 4; do report "r_rimage_$i"; report "r_rmeta_$i"; done
test_ok "metadata: RESHAPE flags, reshape_count 1, stripe size 128k" reshaped_meta 256
test_ok "A's rows (64k at 8192), B's below 8192 (128k at 0) built" reshaping_rows 8192
test_ok "superblocks: RESHAPE_ACTIVE at 8192, data 8192 -> 0" reshaping_sb 8192
cp "$SCRATCH/d16" "$SCRATCH/ref"

# ---- A. refusals while reshaping
lvm2_lines() {  # LVM2's lines (activation off on the host: its device-mapper lines left out)
    lvm2 "$@" </dev/null 2>&1 | grep -v '^  WARNING\|mapper/control\|device-mapper\|libdevmapper' |
        sed 's/^  //' | tr '\n' '|'
}
want=$(lvm2_lines lvextend -L +4m "$VG/r")
refused "lvextend of the inactive reshaping LV: LVM2's lines (${want:-none})" "$want" lvextend -L +4m "$VG/r"
restart_daemon
uspace_run_ok "served frozen (LVX_TEST_RESHAPE_FROZEN)" env LVX_TEST_RESHAPE_FROZEN=1 sh -c \
    "$LVX daemon stop >/dev/null 2>&1; sleep 0.5; $LVX daemon start >/dev/null && $LVX lvchange -ay $VG/r"
NS="Unable to convert $VG/r while it is not in-sync."
refused "lvextend -L +4m" "Rounding size 4.00 MiB (1 extents) up to stripe boundary size 16.00 MiB (4 extents).|Using stripesize of last segment 128.00 KiB|Can't resize reshaping LV $VG/r.|" \
    lvextend -L +4m "$VG/r"
refused "lvresize -y -L +16m" "Using stripesize of last segment 128.00 KiB|Can't resize reshaping LV $VG/r.|" \
    lvresize -y -L +16m "$VG/r"
refused "lvreduce -L -4m" "RAID module does not support shrinking.|" lvreduce -y -L -4m "$VG/r"
refused "lvconvert --type raid6 (a takeover)" "Using default stripesize 64.00 KiB.|Replaced LV type raid6 (same as raid6_zr) with possible type raid6_ls_6.|Repeat this command to convert to raid6 after an interim conversion has finished.|$NS|" \
    lvconvert -y --type raid6 "$VG/r"
refused "lvconvert --type raid5_n (another reshape)" "Using default stripesize 64.00 KiB.|$NS|Reshape request failed on LV $VG/r.|" \
    lvconvert -y --type raid5_n "$VG/r"
refused "lvconvert --stripes 5 (another reshape)" "Using default stripesize 64.00 KiB.|$NS|Reshape request failed on LV $VG/r.|" \
    lvconvert -y --stripes 5 "$VG/r"
refused "lvconvert --repair" "Unable to replace devices in $VG/r while it is not in-sync.|Failed to replace faulty devices in $VG/r.|" \
    lvconvert -y --repair "$VG/r"
refused "lvconvert --replace" "Unable to replace devices in $VG/r while it is not in-sync.|" \
    lvconvert -y --replace "${DEVS[1]}" "$VG/r" "${DEVS[5]}"
for a in check repair; do
    refused "lvchange --syncaction $a" "$VG/r state is currently \"frozen\".  Unable to switch to \"$a\".|" \
        lvchange --syncaction $a "$VG/r"
done
test_eq "r reads the reference (nothing changed)" "$(lv_sum "$R" 0 $((16 * M)))" "$(fsum "$SCRATCH/ref")"
uspace_run_ok "deactivated" lvx lvchange -an "$VG/r"

# ---- B. leg 2 lost mid-walk
restart_daemon "pv=${DEVS[2]},kind=eio,after=20"
uspace_run_ok "activated read-write (leg 2's PV fails after 20 ops)" lvx lvchange -ay "$VG/r"
test_ok "the walk resumed at 8192" grep -q "$VG/r: reshape resumed at sector 8192 of 32768 (forward)" "$LOG"
test_ok "leg 2 failed mid-walk (logged)" logged "$VG/r: RAID leg 2 failed"
test_ok "the walk goes on degraded: status reshape, 0 < sync_percent < 100" moving
test_eq "lvs: health refresh needed" "$("$LVX" lvs --noheadings -o lv_health_status "$VG/r" | xargs)" "refresh needed"
refused "lvchange --syncaction check while walking" "$VG/r state is currently \"reshape\".  Unable to switch to \"check\".|" \
    lvchange --syncaction check "$VG/r"
put_two() { put 1 512 && put 14 512; }
uspace_run_ok "512 KiB written at 1 MiB (moved side) and at 14 MiB (not moved yet), degraded" put_two
uspace_run_ok "deactivated mid-walk" lvx lvchange -an "$VG/r"
stopped=$(sed -n "s|.*$VG/r: reshape stopped at sector \([0-9]*\) (recorded)|\1|p" "$LOG" | tail -1)
test_ok "the stop recorded a position: 8192 < ${stopped:-none} < 32768" \
    test "${stopped:-0}" -gt 8192 -a "${stopped:-0}" -lt 32768
test_eq "the live legs' superblocks at it" "$(for i in 0 1 3 4; do pos_of $i; echo; done | sort -u | xargs)" "${stopped:-none}"
test_eq "leg 2 marked failed in the others' superblocks (bit 2)" "$(sb_field r_rmeta_0 failed)" 4
test_ok "leg 2's own superblock behind (events)" \
    test "$(sb_field r_rmeta_2 events)" -lt "$(sb_field r_rmeta_0 events)"
restart_daemon
uspace_run_ok "reactivated, leg 2's PV healthy again" lvx lvchange -ay "$VG/r"
test_ok "leg 2 is behind: left out, the reshape goes on degraded (logged)" \
    grep -q "$VG/r: image 2 is behind: the reshape goes on degraded, the image is rebuilt after its end" "$LOG"
test_ok "the walk resumed from the record" grep -q "$VG/r: reshape resumed at sector ${stopped:-none} of 32768" "$LOG"
test_eq "r reads the reference mid-walk (degraded)" "$(lv_sum "$R" 0 $((16 * M)))" "$(fsum "$SCRATCH/ref")"
test_ok "the reshape ends (logged)" logged "$VG/r: reshape done after [0-9]* steps: 5 legs, chunk 256, data at 0"
test_eq "r reads the reference after the end" "$(lv_sum "$R" 0 $((16 * M)))" "$(fsum "$SCRATCH/ref")"
uspace_run_ok "deactivated; --maxrecoveryrate 0" sh -c "$LVX lvchange -an $VG/r && $LVX lvchange --maxrecoveryrate 0 $VG/r"
FIN="devices=5 level=5 stripe=256 flags=0 reshape=ffffffffffffffff delta_disks=0 data_offset=0 new_data_offset=0 sectors=8192 recovery=ffffffffffffffff resync=ffffffffffffffff "
test_eq "the live legs' superblocks: md's finished state" "$(sb_fin_fields 0 1 3 4)" "$FIN"
test_eq "leg 2's superblock still records the reshape (not written since it failed)" "$(sb_field r_rmeta_2 flags)" 1
: >"$LOG"
uspace_run_ok "activated: leg 2 rebuilt" lvx lvchange -ay "$VG/r"
test_ok "its rebuild logged" grep -q "$VG/r: RAID leg 2 is rebuilt from the others" "$LOG"
rebuilt_end 16 "$FIN"
test_ok "on the PVs: every row and parity in B (128k chunks at 0), leg 2's too" \
    "$PYTHON" "$ROWS" verify "$SCRATCH/ref" 32768 128 8192 256 0 "${IMGS[@]}"
uspace_run_ok "r removed" lvx lvremove -q -y "$VG/r"

# ---- C. raid6: leg 1's PV missing at the activation, leg 3's failing mid-walk
uspace_run_ok "raid6 -i3 -I 64k -L 24m r: in sync, deactivated, paced 256k" sh -c \
    "$LVX lvcreate -q -y -Zn --type raid6 -i3 -I 64k -L 24m -n r $VG ${FIVE[*]} >/dev/null &&
     for _ in \$(seq 100); do [ \"\$($LVX lvs --noheadings -o sync_percent $VG/r | xargs)\" = 100.00 ] && break; sleep 0.2; done &&
     $LVX lvchange -an $VG/r && $LVX lvchange --maxrecoveryrate 256k $VG/r"
for i in 0 1 2 3 4; do report "r_rimage_$i"; report "r_rmeta_$i"; done
test_ok "metadata: RESHAPE flags, reshape_count 1, stripe size 128k" reshaped_meta 256
rows6() {
    local i
    head -c $((12 * M)) /dev/urandom >"$SCRATCH/ref" || return 1
    for i in "${IMGS[@]}"; do : >"$i"; truncate -s $((8 * M)) "$i"; done
    "$PYTHON" "$GEO" plant "$SCRATCH/ref" 0 24576 raid6_zr 128 8192 "${IMGS[@]}" &&
        "$PYTHON" "$GEO" plant "$SCRATCH/ref" 0 7680 raid6_zr 256 0 "${IMGS[@]}" || return 1
    for i in 0 1 2 3 4; do pv_put "r_rimage_$i" 0 "$SCRATCH/img$i"; done
}
test_ok "A's rows and P/Q (64k at 8192), B's below 7680 (128k at 0) built" rows6
test_ok "superblocks: RESHAPE_ACTIVE at 7680, data 8192 -> 0" \
    sb_set flags=1 reshape=7680 new_stripe=256 delta_disks=0 array_sectors=24576 \
    data_offset=8192 new_data_offset=0 sectors=16384 bm_sync_size=8192
HIDE="--devices=${DEVS[0]},${DEVS[2]},${DEVS[3]},${DEVS[4]},${DEVS[5]}"
restart_daemon "pv=${DEVS[3]},kind=eio,after=20"
uspace_run_ok "activated with leg 1's PV missing (--activationmode degraded)" \
    lvx lvchange -ay --activationmode degraded "$HIDE" "$VG/r"
test_ok "leg 1 missing: the reshape goes on degraded (logged)" \
    grep -q "$VG/r: image 1 is missing: the reshape goes on degraded" "$LOG"
test_ok "the walk resumed at 7680" grep -q "$VG/r: reshape resumed at sector 7680 of 24576 (forward)" "$LOG"
test_ok "leg 3 failed mid-walk too (logged)" logged "$VG/r: RAID leg 3 failed"
put6() { put 1 512 && put 10 512; }
uspace_run_ok "512 KiB written at 1 MiB and at 10 MiB, two legs down" put6
test_eq "r reads the reference mid-walk (two legs rebuilt from P and Q)" \
    "$(lv_sum "$R" 0 $((12 * M)))" "$(fsum "$SCRATCH/ref")"
test_ok "the reshape ends (logged)" logged "$VG/r: reshape done after [0-9]* steps: 5 legs, chunk 256, data at 0"
test_eq "r reads the reference after the end" "$(lv_sum "$R" 0 $((12 * M)))" "$(fsum "$SCRATCH/ref")"
uspace_run_ok "deactivated; --maxrecoveryrate 0" sh -c \
    "$LVX lvchange -an $HIDE $VG/r && $LVX lvchange --maxrecoveryrate 0 $VG/r"
FIN6="devices=5 level=6 stripe=256 flags=0 reshape=ffffffffffffffff delta_disks=0 data_offset=0 new_data_offset=0 sectors=8192 recovery=ffffffffffffffff resync=ffffffffffffffff "
test_eq "legs 0, 2, 4: md's finished state, legs 1 and 3 marked failed" \
    "$(sb_fin_fields 0 2 4) $(sb_field r_rmeta_0 failed)" "$FIN6 10"
restart_daemon
uspace_run_ok "activated with every PV: legs 1 and 3 rebuilt" lvx lvchange -ay "$VG/r"
rebuilt_end 12 "$FIN6"
test_ok "on the PVs: every row and P/Q in B (raid6_zr, 128k chunks at 0)" \
    "$PYTHON" "$GEO" verify "$SCRATCH/ref" 0 24576 raid6_zr 256 0 "${IMGS[@]}"
lvx daemon stop >/dev/null 2>&1
done_testing
