#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1070-user-mirror-split: lvconvert --splitmirrors 1 --name NEW of an old-style mirror
# the lvx daemon serves (user backend, loop devices): the last image leaves as the
# linear LV NEW, active, holding the mirror's data; the mirror keeps the rest and its
# log; split again, the mirror becomes linear (its log gone) and still reads the data;
# a split image on the PVs named; LVM2 reads the result (vgck).  Before this change
# lvx refused any split of a mirror-type LV (exit 5).
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"
source "$LVX_ROOT/tests/tools/mirror_layer.sh"

VG=vgums$$
uspace_test_loops "$VG" 5 32M
MIB=1048576

uspace_run_ok "pvcreate, vgcreate" sh -c "$LVX pvcreate ${DEVS[*]} && $LVX vgcreate $VG ${DEVS[*]}"
uspace_run_ok "mirror m (-m3, 8 MiB, images on D0-D3, log on D4)" \
    "$LVX" lvcreate -Zn --type mirror -m3 -L 8m -n m "$VG" "${DEVS[@]}"
head -c $((8 * MIB)) /dev/urandom >"$SCRATCH/d"
uspace_run_ok "8 MiB written to m" \
    dd if="$SCRATCH/d" of="$DM_DEV_DIR/$VG/m" bs=1M oflag=direct conv=fsync status=none
for _ in $(seq 100); do
    [[ $(field "$VG/m" copy_percent) == 100.00 ]] && break
    sleep 0.2
done
test_eq "m in sync" "$(field "$VG/m" copy_percent)" "100.00"

split() {  # split DESC NEW IMAGES-LEFT LOG ARGS...
    local desc=$1 new=$2 left=$3 log=$4 rc=0
    shift 4
    timeout 120 "$LVX" lvconvert --splitmirrors 1 -n "$new" "$VG/m" "$@" >"$SCRATCH/s.out" 2>&1 ||
        rc=$?
    test_eq "$desc: exit 0, LVM2's line" "$rc $(grep -v '^ *WARNING: ' "$SCRATCH/s.out")" \
        "0   Logical volume $VG/m converted." ||
        sed 's/^/# /' "$SCRATCH/s.out"
    test_eq "$desc: $new linear and active, m $left, its log '$log'" \
        "$(field "$VG/$new" segtype) $(field "$VG/$new" lv_active) $(field "$VG/m" stripes) $(field "$VG/m" mirror_log)" \
        "linear active $left $log"
    test_eq "$desc: $new holds m's data" "$(lv_sum "$VG/$new")" "$(fsum "$SCRATCH/d")"
    test_eq "$desc: m reads its data" "$(lv_sum "$VG/m")" "$(fsum "$SCRATCH/d")"
}
split "--splitmirrors 1 of the 4-image mirror" s3 3 "[m_mlog]"
test_eq "... s3 was the last image (on D3)" "$(lvm2 lvs --noheadings -o devices "$VG/s3" 2>/dev/null |
    tr -d ' ' | sed 's/(.*//')" "${DEVS[3]}"
split "--splitmirrors 1 of the image on D1 (named)" s1 2 "[m_mlog]" "${DEVS[1]}"
test_eq "... m keeps the images on D0 and D2" "$(lvm2 lvs -a --noheadings -o devices "$VG/m" 2>/dev/null |
    tr -d ' ')" "m_mimage_0(0),m_mimage_2(0)"
split "--splitmirrors 1 of the 2-image mirror" s2 1 ""
test_eq "... m linear now, m_mlog gone" "$(field "$VG/m" segtype) $(lvm2 lvs -a --noheadings -o lv_name "$VG" 2>/dev/null | tr -d ' []' | sort | tr '\n' ' ')" \
    "linear m s1 s2 s3 "
test_ok "LVM2's vgck accepts it" lvm2 vgck "$VG"
uspace_run_ok "deactivate" "$LVX" vgchange -an "$VG"
done_testing
