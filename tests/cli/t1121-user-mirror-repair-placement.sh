#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1121-user-mirror-repair-placement: where lvconvert --repair puts the replacement of a
# mirror leg that failed while its PV is still present (the daemon's 'D', LVM2's
# lv_check_transient), in lvx's user-space daemon, as LVM2 2.03.16 does:
#   A. without PVs named: LVM2 removes the failed image first (mirror_remove_missing),
#      then up-converts over every PV of the VG (use_pvh = the VG's PVs; only missing
#      PVs are "failed"), so the failing PV, its extents freed, is a candidate like any
#      other: the new image goes back onto it.  lvx does the same, and the placement
#      equals LVM2's own for that up-convert (LVM2, activation off, converting the
#      same linear LV on the same free space to a 2-image mirror with its log).
#   B. with PVs named after the LV (`lvconvert --repair -y VG/LV PV...`, LVM2's way to
#      keep the replacement off a failing disk): the new image and log only there (lvx
#      ignored the list and used D1 again); the copy completes, fio verifies, both
#      images hold the same bytes (read from their PVs); a PV not in the VG: LVM2's
#      error, exit 5, nothing written.
# (RAID: the replacement avoids every PV holding an image of the LV, the failed one
# included, as LVM2's _avoid_pvs_with_other_images_of_lv: t1117 E.)
# On the code before (h147 at fd0a3565) 5 of its 30 checks fail, all in B: the PV list
# ignored (a PV not in the VG taken, no error; the new image on the failing D1 again,
# so never in sync and the images differ).
# shellcheck disable=SC2317  # helpers called through test_ok
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

need_cmd fio
VG=vgmrp$$ MIB=1048576
uspace_test_loops "$VG" 6 64M
LOG=$LVX_RUN_DIR/lvxd.log
source "$LVX_ROOT/tests/tools/raid-pvread.sh"
FIO_SEED=1118
source "$LVX_ROOT/tests/tools/mirror-fault.sh"   # restart_daemon, fio_w, lvsf, subs, devs, logged

placement() { echo "$(devs "$1_mimage_0") $(devs "$1_mimage_1") $(devs "$1_mlog")"; }
fail_d1() {  # fail_d1 LV: LV activated with D1's writes failing after 20, 8 MiB of fio
    restart_daemon "pv=${DEVS[1]},op=write,kind=eio,after=20"
    lvx lvchange -ay "$VG/$1" >"$SCRATCH/o" 2>&1 &&
        fio_w "w$1" "$DM_DEV_DIR/$VG/$1" 8m --do_verify=0 --fsync=4
}

uspace_run_ok "pvcreate, vgcreate (6 PVs)" sh -c \
    "$LVX pvcreate -q ${DEVS[*]} && $LVX vgcreate -q $VG ${DEVS[*]}"

# ---- A. no PVs named: the failed PV is a candidate again (LVM2's allocation)
restart_daemon
uspace_run_ok "lvcreate --type mirror -m1 -L 16m -R 64k a (legs D0 D1, log D2)" \
    lvx lvcreate -q -Zn --type mirror -m1 -L 16m -R 64k -n a "$VG" \
    "${DEVS[0]}" "${DEVS[1]}" "${DEVS[2]}"
test_ok "a in sync" wait_in_sync a
uspace_run_ok "a activated, D1's writes failing after 20, 8 MiB of fio's crc32c writes" fail_d1 a
test_ok "leg 1 failed (logged)" logged "$VG/a: mirror leg 1 failed"
rc=0
lvx lvconvert --repair -y "$VG/a" >"$SCRATCH/rep.out" 2>&1 || rc=$?
test_eq "lvconvert --repair -y: exit 0, 'Mirror status: 1 of 2 images failed.'" \
    "$rc $(grep -c 'Mirror status: 1 of 2 images failed.' "$SCRATCH/rep.out")" "0 1"
XPLACE=$(placement a)
test_eq "a: 2 images and its log again" "$(subs a)" "[a_mimage_0] [a_mimage_1] [a_mlog]"
test_eq "the new image on D1 again (present, its extents freed by the removal)" \
    "$(devs a_mimage_1)" "${DEVS[1]}"
uspace_run_ok "a deactivated, the daemon stopped" uspace_stop_daemon "$VG"
# LVM2's choice from the same free space: a back to its image 0 (linear on D0, the
# image on D1 and the log freed), then converted to a 2-image mirror with a disk log
uspace_run_ok "LVM2: lvconvert -m0 a (linear on D0)" lvm2 lvconvert -y -m0 "$VG/a" "${DEVS[1]}"
test_eq "... linear on D0" "$(devs a) '$(subs a)'" "${DEVS[0]} ''"
uspace_run_ok "LVM2: lvconvert --type mirror -m1 -R 64k a" \
    lvm2 lvconvert -y --type mirror -m1 -R 64k "$VG/a"
test_eq "lvx's repair placed image and log as LVM2's up-convert does" "$(placement a)" "$XPLACE"
uspace_run_ok "a removed" lvx lvremove -qy "$VG/a"

# ---- B. PVs named: the replacement only there
restart_daemon
uspace_run_ok "lvcreate --type mirror -m1 -L 16m -R 64k b (legs D0 D1, log D2)" \
    lvx lvcreate -q -Zn --type mirror -m1 -L 16m -R 64k -n b "$VG" \
    "${DEVS[0]}" "${DEVS[1]}" "${DEVS[2]}"
test_ok "b in sync" wait_in_sync b
uspace_run_ok "b activated, D1's writes failing after 20, 8 MiB of fio's crc32c writes" fail_d1 b
B=$DM_DEV_DIR/$VG/b
test_ok "leg 1 failed (logged)" logged "$VG/b: mirror leg 1 failed"
seq0=$("$LVX" vgs --noheadings -o vg_seqno "$VG" 2>/dev/null | tr -d ' ')
rc=0
lvx lvconvert --repair -y "$VG/b" /dev/nosuchpv >"$SCRATCH/rep.out" 2>&1 || rc=$?
test_eq "a PV not in the VG: exit 5, nothing written" \
    "$rc $("$LVX" vgs --noheadings -o vg_seqno "$VG" 2>/dev/null | tr -d ' ') $(subs b | wc -w)" \
    "5 $seq0 3"
rc=0
lvm2 lvconvert --repair -y "$VG/b" /dev/nosuchpv >"$SCRATCH/rep2.out" 2>&1 || rc=$?
test_eq "... LVM2's line and exit code" "$(sed 's/^ *//' "$SCRATCH/rep.out") $rc" \
    "$(sandbox_noise <"$SCRATCH/rep2.out" | sed 's/^ *//') 5"
rc=0
lvx lvconvert --repair -y "$VG/b" "${DEVS[3]}" "${DEVS[4]}" >"$SCRATCH/rep.out" 2>&1 || rc=$?
test_eq "lvconvert --repair -y VG/b D3 D4: exit 0" "$rc" 0
test_eq "b: 2 images and its log again" "$(subs b)" "[b_mimage_0] [b_mimage_1] [b_mlog]"
test_eq "image 0 still on D0" "$(devs b_mimage_0)" "${DEVS[0]}"
NEW="$(devs b_mimage_1) $(devs b_mlog)"
test_ok "the new image and log on D3 and D4 only ($NEW)" \
    test "$NEW" = "${DEVS[3]} ${DEVS[4]}" -o "$NEW" = "${DEVS[4]} ${DEVS[3]}"
test_ok "b in sync (the new image copied)" wait_in_sync b
test_eq "no failed leg: lv_health_status empty" "$(lvsf b lv_health_status)" ""
uspace_run_ok "fio verifies b" fio_w wb "$B" 8m --verify_only=1
uspace_run_ok "b deactivated" lvx lvchange -an "$VG/b"
test_eq "both images hold the same bytes (read from their PVs)" \
    "$(report b_mimage_0; pv_sum b_mimage_0 0 $((16 * MIB)))" \
    "$(report b_mimage_1; pv_sum b_mimage_1 0 $((16 * MIB)))"
test_ok "LVM2's vgck" lvm2 vgck "$VG"

done_testing
