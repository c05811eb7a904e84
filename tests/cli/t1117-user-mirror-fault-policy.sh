#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1117-user-mirror-fault-policy: what LVM2's dmeventd does with its mirror and raid
# plugins, in lvx's user-space daemon: a monitored mirror or RAID LV whose leg fails
# while in use (LVX_TEST_DP_FAULT, its PV still present) gets `lvconvert --repair
# --use-policies` run by the daemon's monitor, and the manual repair treats a leg the
# daemon reports failed ('D', its PV present: LVM2's lv_check_transient) as failed:
# Monitoring on in its lvm.conf (activation/monitoring = 1: the tests' lvm.conf has it
# off, as LVM2's test suite, and t1117 turns it on as LVM2's aux prepare_dmeventd).
#   A. a 2-leg disk-log mirror, leg 1 failing during writes, monitored (the default):
#      the policy runs (logged: "Device failure in VG-a.", the repair's lines, "Repair
#      of mirrored device VG-a finished successfully."), mirror_image_fault_policy
#      "remove": the LV linear on D0, no sub-LV left, D1 free; fio's crc32c verifies;
#      LVM2 reads the metadata (vgck) and reports the same layout.
#   B. a 3-leg mirror, leg 1 failing: 2 legs left (mimage_0, mimage_2), the log kept.
#   C. mirror_image_fault_policy "allocate" (the failing D1 made not allocatable:
#      lvx's allocator, as LVM2's, may take the failed leg's freed extents): the failed
#      image replaced on D3 and resynced (in sync, legs equal), fio verifies.
#   D. --monitor n: nothing done automatically (still 2 legs, one 'D'); the manual
#      `lvconvert --repair -y` then replaces it (LVM2's lines), `-f` (remove only) on a
#      second one removes it.
#   E. raid1, raid_fault_policy "warn": the warning (dmeventd's and lvconvert's), nothing
#      changed; "allocate": the dead image replaced, rebuilt, data verified.
# On the code before (main at 1c6df060) 28 of its 84 checks fail: no monitoring of
# mirrors or RAID LVs (nothing repaired automatically: A, B, C, E's lines and layouts),
# the manual repair saying "consistent" of a mirror with a dead leg (D), and
# --use-policies of a RAID repair ignoring raid_fault_policy.
# shellcheck disable=SC2317  # helpers called through test_ok
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

need_cmd fio
VG=vgmfp$$ MIB=1048576
uspace_test_loops "$VG" 6 64M
LOG=$LVX_RUN_DIR/lvxd.log
source "$LVX_ROOT/tests/tools/raid-pvread.sh"

policy() {  # policy SETTINGS...: lvm.conf's activation section (read by the repair),
    #         monitoring on (the tests' lvm.conf has it off, as LVM2's test suite)
    uspace_activation "monitoring = 1" "$@"
}
FIO_SEED=1117
source "$LVX_ROOT/tests/tools/mirror-fault.sh"   # restart_daemon, fio_w, lvsf, subs, devs, logged
fail_leg() {  # fail_leg LV PV MONITOR: LV activated (--monitor MONITOR), PV's writes failing
    #           after 20, 8 MiB of fio's crc32c writes to it (the leg fails on the way)
    restart_daemon "pv=$2,op=write,kind=eio,after=20"
    lvx lvchange -ay --monitor "$3" "$VG/$1" >"$SCRATCH/o" 2>&1 &&
        fio_w "w$1" "$DM_DEV_DIR/$VG/$1" 8m --do_verify=0 --fsync=4
}
pv_used() { "$LVX" pvs --noheadings -o pv_used --units m --nosuffix "$1" 2>/dev/null | tr -d ' '; }

uspace_run_ok "pvcreate, vgcreate (6 PVs)" sh -c \
    "$LVX pvcreate -q ${DEVS[*]} && $LVX vgcreate -q $VG ${DEVS[*]}"

# ---- A. 2-leg mirror, leg 1 failing, monitored, policy "remove" (the default)
policy ""
restart_daemon
uspace_run_ok "lvcreate --type mirror -m1 -L 16m -R 64k a (legs D0 D1, log D2)" \
    lvx lvcreate -q -Zn --type mirror -m1 -L 16m -R 64k -n a "$VG" \
    "${DEVS[0]}" "${DEVS[1]}" "${DEVS[2]}"
test_ok "a in sync" wait_in_sync a
restart_daemon "pv=${DEVS[1]},op=write,kind=eio,after=20"
uspace_run_ok "a activated (monitored: monitoring = 1), D1's writes failing after 20" \
    lvx lvchange -ay "$VG/a"
test_ok "the daemon monitors it (dmeventd's line)" logged "Monitoring mirror device $VG-a for events."
A=$DM_DEV_DIR/$VG/a
uspace_run_ok "fio: 8 MiB crc32c-headed writes, fsync every 4 (leg 1 fails on the way)" \
    fio_w wa "$A" 8m --do_verify=0 --fsync=4
test_ok "the leg failure reported (logged)" logged "Secondary mirror device 1 of $VG-a has failed (D)."
test_ok "... 'Device failure in $VG-a.'" logged "Device failure in $VG-a."
test_ok "the repair ran: 'Mirror status: 1 of 2 images failed.'" \
    logged "Mirror status: 1 of 2 images failed."
test_ok "... 'Repair of mirrored device $VG-a finished successfully.'" \
    logged "Repair of mirrored device $VG-a finished successfully."
test_eq "a is linear on D0 now, no sub-LV left" "$(lvsf a segtype) $(devs a) '$(subs a)'" \
    "linear ${DEVS[0]} ''"
test_eq "D1 holds nothing, nor D2 (the log)" "$(pv_used "${DEVS[1]}") $(pv_used "${DEVS[2]}")" "0 0"
uspace_run_ok "fio verifies a" fio_w wa "$A" 8m --verify_only=1
test_ok "LVM2's vgck" lvm2 vgck "$VG"
test_eq "LVM2 reads the same layout" \
    "$(lvm2 lvs --noheadings -o segtype,devices "$VG/a" 2>/dev/null | tr -s ' ' | sed 's/^ //;s/([0-9]*)//g')" \
    "linear ${DEVS[0]}"
uspace_run_ok "a removed" lvx lvremove -qy "$VG/a"

# ---- B. 3-leg mirror, leg 1 failing: two legs left
restart_daemon
uspace_run_ok "lvcreate --type mirror -m2 -L 16m -R 64k b (legs D0 D1 D2, log D3)" \
    lvx lvcreate -q -Zn --type mirror -m2 -L 16m -R 64k -n b "$VG" \
    "${DEVS[0]}" "${DEVS[1]}" "${DEVS[2]}" "${DEVS[3]}"
test_ok "b in sync" wait_in_sync b
uspace_run_ok "b activated, D1's writes failing after 20, 8 MiB of fio's crc32c writes" \
    fail_leg b "${DEVS[1]}" y
B=$DM_DEV_DIR/$VG/b
test_ok "the repair ran: '1 of 3 images failed.'" \
    logged "Mirror status: 1 of 3 images failed."
test_ok "... finished successfully" logged "Repair of mirrored device $VG-b finished successfully."
test_eq "b: a mirror of mimage_0 and mimage_2 with its log" "$(lvsf b segtype) $(subs b)" \
    "mirror [b_mimage_0] [b_mimage_2] [b_mlog]"
test_eq "... on D0 D2, the log on D3" "$(devs b_mimage_0) $(devs b_mimage_2) $(devs b_mlog)" \
    "${DEVS[0]} ${DEVS[2]} ${DEVS[3]}"
test_ok "b in sync" wait_in_sync b
uspace_run_ok "fio verifies b" fio_w wb "$B" 8m --verify_only=1
test_ok "LVM2's vgck" lvm2 vgck "$VG"
uspace_run_ok "b removed" lvx lvremove -qy "$VG/b"

# ---- C. policy "allocate": the failed image replaced on a spare PV
policy 'mirror_image_fault_policy = "allocate"'
restart_daemon
uspace_run_ok "lvcreate --type mirror -m1 -L 16m -R 64k c (legs D0 D1, log D2)" \
    lvx lvcreate -q -Zn --type mirror -m1 -L 16m -R 64k -n c "$VG" \
    "${DEVS[0]}" "${DEVS[1]}" "${DEVS[2]}"
test_ok "c in sync" wait_in_sync c
uspace_run_ok "pvchange -xn D1 (no new extents on the failing disk)" lvx pvchange -qxn "${DEVS[1]}"
uspace_run_ok "c activated, D1's writes failing after 20, 8 MiB of fio's crc32c writes" \
    fail_leg c "${DEVS[1]}" y
C=$DM_DEV_DIR/$VG/c
test_ok "the repair up-converts again: 'Trying to up-convert to 2 images, 1 logs.'" \
    logged "WARNING: Trying to up-convert to 2 images, 1 logs."
test_ok "... finished successfully" logged "Repair of mirrored device $VG-c finished successfully."
test_eq "c: 2 images and its log again" "$(lvsf c segtype) $(subs c | wc -w)" "mirror 3"
test_eq "... their names" "$(subs c)" "[c_mimage_0] [c_mimage_1] [c_mlog]"
NEWPV=$(devs c_mimage_1)
test_ok "... mimage_0 on D0, the new mimage_1 on neither D0 nor D1 ($NEWPV)" \
    test "$(devs c_mimage_0)" = "${DEVS[0]}" -a -n "$NEWPV" -a "$NEWPV" != "${DEVS[0]}" \
    -a "$NEWPV" != "${DEVS[1]}"
test_ok "c in sync (the new image resynced)" wait_in_sync c
uspace_run_ok "fio verifies c" fio_w wc "$C" 8m --verify_only=1
uspace_run_ok "c deactivated" lvx lvchange -an "$VG/c"
test_eq "both images hold the same bytes (read from their PVs)" \
    "$(report c_mimage_0; pv_sum c_mimage_0 0 $((16 * MIB)))" \
    "$(report c_mimage_1; pv_sum c_mimage_1 0 $((16 * MIB)))"
uspace_run_ok "c removed" lvx lvremove -qy "$VG/c"

# ---- D. --monitor n: nothing automatic; the manual repair of the failed leg (PV present)
policy ""
restart_daemon
uspace_run_ok "pvchange -xy D1" lvx pvchange -qxy "${DEVS[1]}"
uspace_run_ok "lvcreate --type mirror -m1 -L 16m -R 64k d (legs D0 D1, log D2)" \
    lvx lvcreate -q -Zn --type mirror -m1 -L 16m -R 64k -n d "$VG" \
    "${DEVS[0]}" "${DEVS[1]}" "${DEVS[2]}"
test_ok "d in sync" wait_in_sync d
uspace_run_ok "pvchange -xn D1" lvx pvchange -qxn "${DEVS[1]}"
restart_daemon "pv=${DEVS[1]},op=write,kind=eio,after=20"
uspace_run_ok "d activated with --monitor n, D1's writes failing after 20" \
    lvx lvchange -ay --monitor n "$VG/d"
D=$DM_DEV_DIR/$VG/d
uspace_run_ok "fio: 8 MiB crc32c writes to d" fio_w wd "$D" 8m --do_verify=0 --fsync=4
test_ok "leg 1 failed (logged)" logged "$VG/d: mirror leg 1 failed"
sleep 2
test_ok "no repair ran" bash -c "! grep -q 'Device failure in $VG-d\|lvconvert $VG/d' '$LOG'"
test_eq "d still has 2 images" "$(subs d)" "[d_mimage_0] [d_mimage_1] [d_mlog]"
rc=0
lvx lvconvert --repair -y "$VG/d" >"$SCRATCH/o" 2>&1 || rc=$?
test_eq "lvconvert --repair -y: exit 0" "$rc" 0
test_ok "... 'Mirror status: 1 of 2 images failed.'" grep -qF "Mirror status: 1 of 2 images failed." "$SCRATCH/o"
test_ok "... 'Trying to up-convert to 2 images, 1 logs.'" \
    grep -qF "WARNING: Trying to up-convert to 2 images, 1 logs." "$SCRATCH/o"
test_eq "d: 2 images and its log" \
    "$(lvsf d segtype) $(subs d | wc -w)" "mirror 3"
test_ok "d in sync" wait_in_sync d
uspace_run_ok "fio verifies d" fio_w wd "$D" 8m --verify_only=1
rc=0
lvx lvconvert --repair -y "$VG/d" >"$SCRATCH/o" 2>&1 || rc=$?
test_eq "a second repair (healthy): exit 0, LVM2's line" "$rc $(sed 's/^ *//' "$SCRATCH/o")" \
    "0 Volume $VG/d is consistent. Nothing to repair."

# -f: remove only
restart_daemon "pv=${DEVS[0]},op=write,kind=eio,after=20"
uspace_run_ok "d activated with --monitor n, D0's writes failing after 20" \
    lvx lvchange -ay --monitor n "$VG/d"
uspace_run_ok "fio: 8 MiB crc32c writes to d" fio_w wd "$D" 8m --do_verify=0 --fsync=4
test_ok "leg 0 failed (logged)" logged "$VG/d: mirror leg 0 failed"
rc=0
lvx lvconvert --repair -f "$VG/d" >"$SCRATCH/o" 2>&1 || rc=$?
test_eq "lvconvert --repair -f: exit 0, 'Mirror status: 1 of 2 images failed.'" \
    "$rc $(grep -c 'Mirror status: 1 of 2 images failed.' "$SCRATCH/o")" "0 1"
test_eq "d linear now, not on D0" "$(lvsf d segtype) $(subs d | wc -w)" "linear 0"
test_ok "d's PV is not D0" test "$(devs d)" != "${DEVS[0]}"
uspace_run_ok "fio verifies d" fio_w wd "$D" 8m --verify_only=1
test_ok "LVM2's vgck" lvm2 vgck "$VG"
uspace_run_ok "d removed" lvx lvremove -qy "$VG/d"

uspace_run_ok "pvchange -xy D1" lvx pvchange -qxy "${DEVS[1]}"

# ---- E. raid1: raid_fault_policy "warn", then "allocate"
policy ""
restart_daemon
uspace_run_ok "lvcreate --type raid1 -m1 -L 16m r (D0 D1)" \
    lvx lvcreate -q -Zn --type raid1 -m1 -L 16m -n r "$VG" "${DEVS[0]}" "${DEVS[1]}"
test_ok "r in sync" wait_synced r
restart_daemon "pv=${DEVS[1]},op=write,kind=eio,after=20"
uspace_run_ok "r activated, D1's writes failing after 20" lvx lvchange -ay "$VG/r"
test_ok "monitored (dmeventd's line)" logged "Monitoring RAID device $VG-r for events."
R=$DM_DEV_DIR/$VG/r
uspace_run_ok "fio: 8 MiB crc32c writes to r" fio_w wr "$R" 8m --do_verify=0 --fsync=4
test_ok "dmeventd's warning: 'Device #1 of raid1 array, $VG-r, has failed.'" \
    logged "WARNING: Device #1 of raid1 array, $VG-r, has failed."
test_ok "policy warn: lvconvert's line" \
    logged "Use 'lvconvert --repair $VG/r' to replace failed device."
test_eq "r unchanged: rimage_1 still on D1, health 'refresh needed'" \
    "$(devs r_rimage_1) $(lvsf r lv_health_status)" "${DEVS[1]} refreshneeded"
uspace_run_ok "fio verifies r" fio_w wr "$R" 8m --verify_only=1

policy 'raid_fault_policy = "allocate"'
restart_daemon "pv=${DEVS[1]},op=write,kind=eio,after=20"
uspace_run_ok "r activated again, D1 failing after 20, policy allocate" lvx lvchange -ay "$VG/r"
uspace_run_ok "fio: 8 MiB crc32c writes to r" fio_w wr "$R" 8m --do_verify=0 --fsync=4
test_ok "the repair replaced it: 'Faulty devices in $VG/r successfully replaced.'" \
    logged "Faulty devices in $VG/r successfully replaced."
NEWPV=$(devs r_rimage_1)
test_ok "rimage_1 not on D1 now ($NEWPV)" test -n "$NEWPV" -a "$NEWPV" != "${DEVS[1]}"
test_ok "r in sync (rebuilt)" wait_synced r
test_eq "lv_health_status empty" "$(lvsf r lv_health_status)" ""
uspace_run_ok "fio verifies r" fio_w wr "$R" 8m --verify_only=1
test_ok "LVM2's vgck" lvm2 vgck "$VG"

done_testing
