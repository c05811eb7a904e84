#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0938-user-raid-convert: lvconvert on raid1 LVs served by the lvx daemon (user-space
# activation), four 64 MiB loop devices, LVM2 (activation off) as the oracle of where
# each rimage/rmeta lives (tests/tools/lv_pvread.py reads them directly):
#   - lvconvert -m2 of an active raid1: a third image on the PV named, rebuilt by the
#     daemon at the reload (it holds the LV's data, read from its PV), the LV reads the
#     same, LVM2 reads the VG (vgck, the images where lvx's report says);
#   - lvconvert -m1 VG/LV PV: the image on that PV leaves, its rimage/rmeta freed;
#   - a leg's PV missing: degraded activation, writes, then lvconvert --repair onto a
#     spare PV: LVM2's "Faulty devices in VG/LV successfully replaced.", the new image
#     holds every write (the degraded ones too), the LV reads them, health clean;
#   - lvconvert --replace PV: the image leaves the PV named for another, data kept;
#   - lvchange --syncaction check|repair (the daemon runs it to its end): 4 KiB planted
#     in one image (raid1) or one leg (raid5) straight on its PV is found (md's counts:
#     128 sectors for a mirror's 64 KiB unit, 8 for a parity page), lv_health_status
#     "mismatches exist", repair makes the images equal (raid1) or the parity right.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

VG=vgurc$$
uspace_test_loops "$VG" 4 64M
MIB=1048576
source "$LVX_ROOT/tests/tools/raid-pvread.sh"
where() {  # where SUBLV: the PV LVM2 places it on
    lvm2 lvs -a --noheadings -o devices "$VG/$1" 2>/dev/null | tr -d ' ' | sed 's/(.*//'
}
image_holds() {  # image_holds DESC SUBLV FILE: the sub-LV read from its PV equals FILE
    report "$2"
    test_eq "$1" "$(pv_sum "$2" 0 $((16 * MIB)))" "$(fsum "$3")"
}

uspace_run_ok "pvcreate, vgcreate" sh -c "$LVX pvcreate ${DEVS[*]} && $LVX vgcreate $VG ${DEVS[*]}"
uspace_run_ok "raid1 -m1 r on the first two PVs (active, synced)" \
    lvx lvcreate -Zn --type raid1 -m1 -L 16m -n r "$VG" "${DEVS[0]}" "${DEVS[1]}"
R=$DM_DEV_DIR/$VG/r
head -c $((16 * MIB)) /dev/urandom >"$SCRATCH/d1"
uspace_run_ok "16 MiB written to r" dd if="$SCRATCH/d1" of="$R" bs=1M oflag=direct conv=fsync status=none

# ---- -m2: a third image
uspace_run_ok "lvconvert -y -m2 of the active r onto ${DEVS[2]}" lvx lvconvert -y -m2 "$VG/r" "${DEVS[2]}"
test_eq "r has three images" "$(lvx lvs --noheadings -o stripes "$VG/r" 2>/dev/null | tr -d ' ')" 3
test_eq "LVM2 places r_rimage_2 on ${DEVS[2]}" "$(where r_rimage_2)" "${DEVS[2]}"
image_holds "the new image holds r's data (rebuilt by the daemon, read from its PV)" r_rimage_2 "$SCRATCH/d1"
test_eq "r reads its data" "$(lv_sum "$R" 0 $((16 * MIB)))" "$(fsum "$SCRATCH/d1")"
test_eq "lv_health_status clean" "$(lvx lvs --noheadings -o lv_health_status "$VG/r" 2>/dev/null | tr -d ' ')" ""
test_ok "LVM2's vgck" lvm2 vgck "$VG"
test_eq "LVM2's lvs -a equals lvx's (names, devices)" \
    "$(lvm2 lvs -a --noheadings -o lv_name,devices "$VG" 2>/dev/null)" \
    "$(lvx lvs -a --noheadings -o lv_name,devices "$VG" 2>/dev/null)"

# ---- -m1 PV: the image on that PV leaves
uspace_run_ok "lvconvert -y -m1 r ${DEVS[1]} (the image there leaves)" lvx lvconvert -y -m1 "$VG/r" "${DEVS[1]}"
test_eq "r has two images" "$(lvx lvs --noheadings -o stripes "$VG/r" 2>/dev/null | tr -d ' ')" 2
test_eq "nothing of r on ${DEVS[1]} any more (LVM2's pv_used)" \
    "$(lvm2 pvs --noheadings --units m --nosuffix -o pv_used "${DEVS[1]}" 2>/dev/null | tr -d ' ')" "0"
test_eq "r reads its data" "$(lv_sum "$R" 0 $((16 * MIB)))" "$(fsum "$SCRATCH/d1")"
test_ok "LVM2's vgck" lvm2 vgck "$VG"

# ---- --syncaction check / repair with a planted mismatch
mism() { lvx lvs --noheadings -o raid_mismatch_count "$@" 2>/dev/null | tr -d ' '; }
uspace_run_ok "--syncaction check of the healthy r" lvx lvchange --syncaction check "$VG/r"
test_eq "... no mismatch" "$(mism "$VG/r")" 0
uspace_run_ok "deactivate r" lvx lvchange -an "$VG/r"
pv_plant r_rimage_1 $((3 * MIB + 4096))
uspace_run_ok "4 KiB planted in r_rimage_1 on its PV; r activated (clean bitmap: no resync)" \
    lvx lvchange -ay "$VG/r"
uspace_run_ok "--syncaction check" lvx lvchange --syncaction check "$VG/r"
test_eq "... one 64 KiB unit mismatched (md's count: 128 sectors)" "$(mism "$VG/r")" 128
test_eq "... lv_health_status says so" \
    "$(lvx lvs --noheadings -o lv_health_status "$VG/r" 2>/dev/null | sed 's/^ *//')" "mismatches exist"
report r_rimage_0
report r_rimage_1
test_ok "... and check changed nothing (the images still differ)" \
    test "$(pv_sum r_rimage_0 0 $((16 * MIB)))" != "$(pv_sum r_rimage_1 0 $((16 * MIB)))"
uspace_run_ok "--syncaction repair" lvx lvchange --syncaction repair "$VG/r"
test_eq "... counts what it repaired" "$(mism "$VG/r")" 128
test_eq "... the images are equal again (read from their PVs)" \
    "$(pv_sum r_rimage_1 0 $((16 * MIB)))" "$(pv_sum r_rimage_0 0 $((16 * MIB)))"
uspace_run_ok "--syncaction check after the repair" lvx lvchange --syncaction check "$VG/r"
test_eq "... no mismatch" "$(mism "$VG/r")" 0

# ---- a missing PV, degraded writes, --repair onto a spare
leg1=$(where r_rimage_1)
keep=()
for d in "${DEVS[@]}"; do [[ $d != "$leg1" ]] && keep+=("$d"); done
HIDE="--devices=$(IFS=,; echo "${keep[*]}")"
uspace_run_ok "deactivate r" lvx lvchange -an "$VG/r"
uspace_run_ok "activate r with $leg1 missing (--activationmode degraded)" \
    lvx lvchange -ay --activationmode degraded "$HIDE" "$VG/r"
head -c $((16 * MIB)) /dev/urandom >"$SCRATCH/d2"
uspace_run_ok "16 MiB written to the degraded r" dd if="$SCRATCH/d2" of="$R" bs=1M oflag=direct conv=fsync status=none
lvx lvconvert -y --repair "$HIDE" "$VG/r" >"$SCRATCH/rep.out" 2>&1
test_eq "lvconvert --repair: exit 0" "$?" 0
test_eq "... LVM2's last line" "$(grep -v WARNING "$SCRATCH/rep.out" | tail -n 1)" \
    "  Faulty devices in $VG/r successfully replaced."
diag "$(cat "$SCRATCH/rep.out")"
new=$(lvx lvs -a --noheadings -o devices "$HIDE" "$VG/r_rimage_1" 2>/dev/null | tr -d ' ' | sed 's/(.*//')
test_ok "the replacement image is on another PV than the missing one" test -n "$new" -a "$new" != "$leg1"
test_eq "r reads the degraded writes" "$(lv_sum "$R" 0 $((16 * MIB)))" "$(fsum "$SCRATCH/d2")"
test_eq "lv_health_status clean after the repair" \
    "$(lvx lvs --noheadings -o lv_health_status "$HIDE" "$VG/r" 2>/dev/null | tr -d ' ')" ""
image_holds "the new image holds every write, the degraded ones too (read from its PV)" r_rimage_1 "$SCRATCH/d2"
uspace_run_ok "vgreduce --removemissing (the lost PV out of the VG)" lvx vgreduce --removemissing "$HIDE" "$VG"
uspace_run_ok "r deactivated and activated again (healthy, no rebuild)" \
    sh -c "$LVX lvchange -an $HIDE $VG/r && $LVX lvchange -ay $HIDE $VG/r"
test_eq "r reads the degraded writes" "$(lv_sum "$R" 0 $((16 * MIB)))" "$(fsum "$SCRATCH/d2")"

# ---- --replace PV
from=$(where r_rimage_0)
uspace_run_ok "lvconvert -y --replace $from (the image moves to a free PV)" \
    lvx lvconvert -y --replace "$from" "$HIDE" "$VG/r"
test_ok "r_rimage_0 left $from" test "$(lvx lvs -a --noheadings -o devices "$HIDE" "$VG/r_rimage_0" 2>/dev/null | tr -d ' ' | sed 's/(.*//')" != "$from"
image_holds "the moved image holds r's data (read from its PV)" r_rimage_0 "$SCRATCH/d2"
test_eq "r reads its data" "$(lv_sum "$R" 0 $((16 * MIB)))" "$(fsum "$SCRATCH/d2")"
uspace_run_ok "deactivate r" lvx lvchange -an "$HIDE" "$VG/r"

# ---- raid5: --syncaction check / repair of the parity
uspace_run_ok "raid5 -i2 r5 (8m) made and written" sh -c \
    "$LVX lvcreate -q -Zn --type raid5 -i2 -I 64k -L 8m -n r5 $HIDE $VG &&
     dd if=$SCRATCH/d1 of=$DM_DEV_DIR/$VG/r5 bs=1M count=8 oflag=direct conv=fsync status=none"
uspace_run_ok "--syncaction check of the healthy r5" lvx lvchange --syncaction check "$HIDE" "$VG/r5"
test_eq "... no mismatch" "$(mism "$HIDE" "$VG/r5")" 0
uspace_run_ok "deactivate r5" lvx lvchange -an "$HIDE" "$VG/r5"
pv_plant r5_rimage_2 $((1 * MIB))
uspace_run_ok "4 KiB planted in r5_rimage_2; r5 activated" lvx lvchange -ay "$HIDE" "$VG/r5"
uspace_run_ok "--syncaction check" lvx lvchange --syncaction check "$HIDE" "$VG/r5"
test_eq "... one 4 KiB stripe page mismatched (md's count: 8 sectors)" "$(mism "$HIDE" "$VG/r5")" 8
uspace_run_ok "--syncaction repair, then check" sh -c \
    "$LVX lvchange --syncaction repair $HIDE $VG/r5 && $LVX lvchange --syncaction check $HIDE $VG/r5"
test_eq "... no mismatch left" "$(mism "$HIDE" "$VG/r5")" 0
uspace_run_ok "deactivate r5" lvx lvchange -an "$HIDE" "$VG/r5"
done_testing
