#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1036-user-component-activation: lvchange -ay of a component LV alone (here a raid1
# LV's r_rimage_0), user-space activation.  lvx activated it read-write, so writes went
# around the RAID LV (its other image and its bitmap never saw them).  As LVM2 now:
#   - no answer to "Do you want to activate component LV in read-only mode? [y/n]:" is
#     "Operation not permitted on hidden LV VG/LV.", exit 5, nothing active;
#   - -y activates it read-only: lv_permissions read-only-override, the device
#     read-only (blockdev --getro, a write fails), its content the data written to r;
#   - lvchange -an takes it down; r activates and reads its data after.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

VG=vgcomp$$
uspace_test_loops "$VG" 2 48M
MIB=1048576
IMG=$DM_DEV_DIR/$VG/r_rimage_0

uspace_run_ok "pvcreate, vgcreate" sh -c "$LVX pvcreate ${DEVS[*]} && $LVX vgcreate $VG ${DEVS[*]}"
uspace_run_ok "raid1 r (-m1, 8 MiB)" lvx lvcreate -Zn --type raid1 -m1 -L 8m -n r "$VG"
for _ in $(seq 300); do [[ $(field "$VG/r" sync_percent) == 100.00 ]] && break; sleep 0.1; done
head -c $((8 * MIB)) /dev/urandom >"$SCRATCH/d"
uspace_run_ok "8 MiB written to r, r deactivated" sh -c \
    "dd if=$SCRATCH/d of=$DM_DEV_DIR/$VG/r bs=1M oflag=direct conv=fsync status=none &&
     $LVX lvchange -an $VG/r"

rc=0
out=$(lvx lvchange -ay "$VG/r_rimage_0" </dev/null 2>&1) || rc=$?
test_eq "lvchange -ay $VG/r_rimage_0, no answer: LVM2's question and refusal, exit 5" \
    "$rc $(grep -c 'Do you want to activate component LV in read-only mode? \[y/n\]:' <<<"$out") $(grep -c "Operation not permitted on hidden LV $VG/r_rimage_0." <<<"$out")" \
    "5 1 1" || diag "$out"
test_ok "... no device for it" test ! -e "$IMG"

uspace_run_ok "lvchange -ay -y $VG/r_rimage_0" lvx lvchange -ay -y "$VG/r_rimage_0"
test_eq "... active read-only: attr, lv_permissions, blockdev --getro" \
    "$(field "$VG/r_rimage_0" lv_attr) $(field "$VG/r_rimage_0" lv_permissions) $(blockdev --getro "$IMG")" \
    "IRi-a-r--- read-only-override 1"
test_eq "... it holds r's data" "$(lv_sum "$VG/r_rimage_0")" "$(fsum "$SCRATCH/d")"
test_ok "... a write to it fails" sh -c "! dd if=/dev/zero of=$IMG bs=4k count=1 oflag=direct status=none 2>/dev/null"
uspace_run_ok "lvchange -an $VG/r_rimage_0" lvx lvchange -an "$VG/r_rimage_0"
test_ok "... its device is gone" test ! -e "$IMG"
uspace_run_ok "r activated" lvx lvchange -ay "$VG/r"
test_eq "r reads its data" "$(lv_sum "$VG/r")" "$(fsum "$SCRATCH/d")"
uspace_run_ok "deactivate" lvx vgchange -an "$VG"
done_testing
