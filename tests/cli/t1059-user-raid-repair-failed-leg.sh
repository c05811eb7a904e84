#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1059-user-raid-repair-failed-leg: `lvconvert --repair` of an active raid1 LV whose leg
# failed while in use, its PV still present (a transient failure: LVM2's
# lvconvert-repair-raid.sh:52-57, where the leg's device is replaced by the error target),
# in the user-space backend: the daemon marks the leg dead ('D', lv_health_status
# "refresh needed"); as LVM2's lv_check_transient the repair takes the dead image for a
# failed one and replaces it on the PV named (lvx said "does not contain devices
# specified to replace" and kept the dead leg); the new leg is rebuilt from the live one,
# the data verifies through the LV and on the new leg's PV, the old leg's extents are
# free again; a repair of a healthy LV still says it has nothing to replace (exit 0,
# nothing written).  And a raid5 whose PV went missing: `vgreduce --removemissing
# --force` leaves its image as error segments, the daemon serves it degraded, the repair
# rebuilds it on another PV (LVM2's lvconvert-repair-raid.sh:95-100).
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

need_loop
need_lvx
need_cmd lvm dd sha256sum
[[ -c /dev/fuse ]] || skip_all "no /dev/fuse"

VG=vgrpl$$
DEVS=()
for i in 0 1 2 3; do DEVS+=("$(make_loop 64M)"); done
uspace_test_env "$VG" "${DEVS[@]}"
MIB=1048576
source "$LVX_ROOT/tests/tools/raid-pvread.sh"
seqno() { lvx vgs --noheadings -o vg_seqno "$VG" 2>/dev/null | tr -d ' '; }
health() { lvx lvs --noheadings -o lv_health_status "$VG/r1" 2>/dev/null | tr -d ' '; }
on_pv() { lvx lvs -a --noheadings -o devices ${2:+"$2"} "$VG/$1" 2>/dev/null | tr -d ' ' | sed 's/(.*//'; }

uspace_run_ok "pvcreate, vgcreate" sh -c "$LVX pvcreate -q ${DEVS[*]} && $LVX vgcreate -q $VG ${DEVS[*]}"
uspace_run_ok "lvcreate --type raid1 -m1 -L 16m on D0 D1" \
    lvx lvcreate -q -Zn --type raid1 -m1 -L 16m -n r1 "$VG" "${DEVS[0]}" "${DEVS[1]}"
R1=$DM_DEV_DIR/$VG/r1
test_ok "r1 in sync" wait_synced r1

rc=0; before=$(seqno)
lvx lvconvert -y --repair "$VG/r1" "${DEVS[2]}" >"$SCRATCH/o" 2>&1 || rc=$?
test_eq "a repair of the healthy r1: exit 0, LVM2's line, nothing written" \
    "$rc $(tr -s ' ' <"$SCRATCH/o" | sed 's/^ //') $(seqno)" "0 $VG/r1 does not contain devices specified to replace. $before"

uspace_run_ok "deactivate r1, stop the daemon (the next one takes the fault)" sh -c "
    $LVX lvchange -q -an $VG/r1 && $LVX daemon stop >/dev/null"
for _ in $(seq 100); do [[ -z $(uspace_daemon_pids) ]] && break; sleep 0.1; done
LVX_TEST_DP_FAULT="pv=${DEVS[1]},op=write,kind=eio,after=6" lvx lvchange -ay "$VG/r1" >"$SCRATCH/o" 2>&1
_tap_result $? "activate r1 with writes to D1 failing after 6"
head -c $((16 * MIB)) /dev/urandom >"$SCRATCH/d1"
uspace_run_ok "16 MiB written to r1 (leg 1 fails on the way)" \
    dd if="$SCRATCH/d1" of="$R1" bs=1M oflag=direct conv=fsync status=none
test_eq "lv_health_status: refresh needed (leg 1 dead, its PV present)" "$(health)" "refreshneeded"
test_eq "rimage_1 is on D1" "$(on_pv r1_rimage_1)" "${DEVS[1]}"

rc=0; before=$(seqno)
lvx lvconvert -y --repair "$VG/r1" "${DEVS[2]}" >"$SCRATCH/o" 2>&1 || rc=$?
test_eq "lvconvert -y --repair VG/r1 D2: exit 0" "$rc" 0
test_ok "... LVM2's line" grep -qF "Faulty devices in $VG/r1 successfully replaced." "$SCRATCH/o"
test_ok "... committed (seqno $before -> $(seqno))" test "$(seqno)" -gt "$before"
test_eq "... rimage_1 and rmeta_1 on D2 now" "$(on_pv r1_rimage_1) $(on_pv r1_rmeta_1)" \
    "${DEVS[2]} ${DEVS[2]}"
test_eq "... rimage_0 stays on D0" "$(on_pv r1_rimage_0)" "${DEVS[0]}"
test_eq "... D1's extents are free again" \
    "$(lvx pvs --noheadings -o pv_used "${DEVS[1]}" 2>/dev/null | tr -d ' ')" "0"
test_eq "... the LVs: no extracted image left" \
    "$(lvx lvs -a --noheadings -o lv_name "$VG" 2>/dev/null | tr -d ' ' | sort | paste -sd' ')" \
    "[r1_rimage_0] [r1_rimage_1] [r1_rmeta_0] [r1_rmeta_1] r1"
test_ok "r1 in sync again (the new leg rebuilt)" wait_synced r1
test_eq "lv_health_status empty (both legs live)" "$(health)" ""
test_eq "r1 reads what was written" "$(lv_sum "$R1" 0 $((16 * MIB)))" "$(fsum "$SCRATCH/d1")"
report r1_rimage_1
test_eq "the new leg holds it on D2 (read from the PV)" "$(pv_sum r1_rimage_1 0 $((16 * MIB)))" \
    "$(fsum "$SCRATCH/d1")"
uspace_run_ok "deactivate, activate again (no fault)" \
    sh -c "$LVX lvchange -q -an $VG/r1 && $LVX lvchange -q -ay $VG/r1"
test_eq "r1 still reads it" "$(lv_sum "$R1" 0 $((16 * MIB)))" "$(fsum "$SCRATCH/d1")"
uspace_run_ok "deactivate, stop the daemon (the next one has no fault)" sh -c "
    $LVX lvchange -q -an $VG/r1 && $LVX daemon stop >/dev/null"
for _ in $(seq 100); do [[ -z $(uspace_daemon_pids) ]] && break; sleep 0.1; done

# ---- a raid5 whose PV went missing: vgreduce --removemissing --force keeps its image as
# error segments (LVM2's lv_raid_remove_missing), the daemon serves it degraded, and
# lvconvert --repair rebuilds it on another PV (LVM2's lvconvert-repair-raid.sh:95-100)
uspace_run_ok "raid5 -i2 -L 16m on D0 D1 D2" \
    lvx lvcreate -q -Zn --type raid5 -i2 -L 16m -n r5 "$VG" "${DEVS[0]}" "${DEVS[1]}" "${DEVS[2]}"
R5=$DM_DEV_DIR/$VG/r5
test_ok "r5 in sync" wait_synced r5
head -c $((16 * MIB)) /dev/urandom >"$SCRATCH/d5"
uspace_run_ok "16 MiB written to r5" dd if="$SCRATCH/d5" of="$R5" bs=1M oflag=direct conv=fsync status=none
uspace_run_ok "r5 deactivated" lvx lvchange -q -an "$VG/r5"
HIDE="--devices=${DEVS[0]},${DEVS[1]},${DEVS[3]}"
uspace_run_ok "D2 missing: vgreduce --removemissing --force" lvx vgreduce -q --removemissing --force "$HIDE" "$VG"
test_eq "... r5_rimage_2 and r5_rmeta_2 are error segments" \
    "$(lvx lvs -a --noheadings -o segtype "$HIDE" "$VG/r5_rimage_2" "$VG/r5_rmeta_2" 2>/dev/null | tr -d ' ' | paste -sd' ')" \
    "error error"
uspace_run_ok "r5 activated (degraded: one image is the error target)" lvx lvchange -q -ay "$HIDE" "$VG/r5"
test_eq "... reads what was written" "$(lv_sum "$R5" 0 $((16 * MIB)))" "$(fsum "$SCRATCH/d5")"
rc=0; lvx lvconvert -y --repair "$HIDE" "$VG/r5" "${DEVS[3]}" >"$SCRATCH/o" 2>&1 || rc=$?
test_eq "lvconvert -y --repair VG/r5 D3: exit 0" "$rc" 0
[[ $rc == 0 ]] || _diag_file output "$SCRATCH/o"
test_eq "... rimage_2 and rmeta_2 on D3" "$(on_pv r5_rimage_2 "$HIDE") $(on_pv r5_rmeta_2 "$HIDE")" \
    "${DEVS[3]} ${DEVS[3]}"
test_ok "r5 in sync again" wait_synced r5
test_eq "r5 reads what was written" "$(lv_sum "$R5" 0 $((16 * MIB)))" "$(fsum "$SCRATCH/d5")"
uspace_run_ok "deactivate, activate again" \
    sh -c "$LVX lvchange -q -an $HIDE $VG/r5 && $LVX lvchange -q -ay $HIDE $VG/r5"
test_eq "r5 still reads it (from the rebuilt image too)" "$(lv_sum "$R5" 0 $((16 * MIB)))" "$(fsum "$SCRATCH/d5")"

# ---- snapshots of RAID LVs are served (t1083); a linear origin made raid1 under its
# snapshot too (t1093): converted live, the snapshot kept
uspace_run_ok "lvcreate -s of the repaired raid5 LV, then lvremove of the snapshot" sh -c "
    $LVX lvcreate -q -s -L 4m -n s5 $HIDE $VG/r5 && $LVX lvremove -q -f $HIDE $VG/s5"
uspace_run_ok "lin (linear, D0) and its snapshot ls" sh -c "
    $LVX lvcreate -q -L 4m -n lin $HIDE $VG ${DEVS[0]} && $LVX lvcreate -q -s -L 4m -n ls $HIDE $VG/lin"
uspace_run_ok "4 MiB written to lin (copied out for ls)" \
    dd if="$SCRATCH/d5" of="$DM_DEV_DIR/$VG/lin" bs=1M count=4 oflag=direct status=none
ls_before=$(lv_sum "$DM_DEV_DIR/$VG/ls" 0 $((4 * MIB)))
rc=0; before=$(seqno)
lvx lvconvert -y -m 1 "$HIDE" "$VG/lin" >"$SCRATCH/o" 2>&1 || rc=$?
test_eq "lvconvert -m 1 of the origin lin: exit 0, LVM2's line, committed" \
    "$rc $(grep -c "Logical volume $VG/lin successfully converted." "$SCRATCH/o") $(($(seqno) > before))" "0 1 1"
test_ok "lin (raid1 now) in sync" wait_synced lin
test_eq "lin reads what was written, ls what it held" \
    "$(lv_sum "$DM_DEV_DIR/$VG/lin" 0 $((4 * MIB))) $(lv_sum "$DM_DEV_DIR/$VG/ls" 0 $((4 * MIB)))" \
    "$(head -c $((4 * MIB)) "$SCRATCH/d5" | sha256sum | cut -d' ' -f1) $ls_before"
uspace_run_ok "deactivate" sh -c "$LVX lvchange -q -an $HIDE $VG/r5 && $LVX vgchange -q -an $HIDE $VG"

done_testing
