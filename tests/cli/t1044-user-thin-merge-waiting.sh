#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1044-user-thin-merge-waiting: a thin merge that waits for its origin's next activation
# while its snapshot stays open, as LVM2's thin-merge.sh:60-110 drives it (its
# lv_change_activate / lv_refresh rules for a merging thin origin, its lvdisplay lines),
# in the user-space backend:
#   - lv1 and its thin snapshot snap both open: lvconvert --merge waits ("Merging of thin
#     snapshot ... will occur on next activation of ..."); lvdisplay -a says "LV merging
#     to lv1" (snap) and "LV merged with snap" (lv1);
#   - lv1 let go, snap still open: lvchange --refresh lv1 goes on after "Delaying merge
#     ...", lv1's thin_id stays 1; lvchange -an lv1 fails ("Cannot fully deactivate
#     merging origin volume ...", exit 5) but leaves lv1 inactive; lvchange -ay lv1 is
#     refused ("Refusing to activate merging volume ...", exit 5), lv1 stays inactive;
#   - snap let go: the hidden snap is refused to lvchange --refresh/-an/-K -ay and
#     lvremove; lvchange -an lv1 takes snap down (exit 0); lvchange -ay lv1 ends the
#     merge: lv1 has thin_id 2 and snap's data, snap is gone;
#   - --mergethin of a new snapshot merges it ("Volume ... replaced origin ..."),
#     --mergesnapshot of a thin LV and --mergethin of a linear LV are refused by type.
# (lvx used to deactivate lv1 cleanly, activate it again unmerged, and print neither
# lvdisplay line; --mergethin/--mergesnapshot were unknown options.)
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

VG=vgtmw$$
uspace_test_loops "$VG" 2 64M
MIB=1048576
dev() { echo "$DM_DEV_DIR/$VG/$1"; }
run() {  # run ARGS...: lvx, output in $out, exit code in $rc
    rc=0
    out=$(lvx "$@" 2>&1) || rc=$?
}

uspace_run_ok "pvcreate, vgcreate; pool (16 MiB) and thin lv1 (8 MiB)" sh -c \
    "$LVX pvcreate -q ${DEVS[*]} && $LVX vgcreate -q $VG ${DEVS[*]} &&
     DM_DEV_DIR=$DM_DEV_DIR $LVX lvcreate -q -T -L 16m -V 8m -n lv1 $VG/pool"
head -c $((8 * MIB)) /dev/urandom >"$SCRATCH/A"
head -c $((8 * MIB)) /dev/urandom >"$SCRATCH/S"
uspace_run_ok "A written to lv1" dd if="$SCRATCH/A" of="$(dev lv1)" bs=1M oflag=direct conv=fsync status=none
uspace_run_ok "thin snapshot snap of lv1, activated (-K)" sh -c \
    "$LVX lvcreate -q -s -n snap $VG/lv1 && $LVX lvchange -q -K -ay $VG/snap"
uspace_run_ok "S written to snap" dd if="$SCRATCH/S" of="$(dev snap)" bs=1M oflag=direct conv=fsync status=none
uspace_hold o "$VG/lv1"
uspace_hold s "$VG/snap"
run lvconvert --merge "$VG/snap"
test_eq "lvconvert --merge with both open: exit 0, the merge waits (LVM2's line)" \
    "$rc $(grep -c "Merging of thin snapshot $VG/snap will occur on next activation of $VG/lv1." <<<"$out")" "0 1" || diag "$out"
run lvdisplay -a "$VG"
test_eq "lvdisplay -a: 'LV merging to lv1' (snap), 'LV merged with snap' (lv1)" \
    "$rc $(grep -c '^  LV merging to          lv1$' <<<"$out") $(grep -c '^  LV merged with         snap$' <<<"$out")" "0 1 1" || diag "$out"
uspace_unhold o
run lvchange --refresh "$VG/lv1"
test_eq "lv1 let go, snap open: lvchange --refresh lv1: exit 0, 'Delaying merge ...', lv1's thin_id still 1" \
    "$rc $(grep -c "Delaying merge for origin volume $VG/lv1 since snapshot volume $VG/snap is still active." <<<"$out") $(field "$VG/lv1" thin_id)" \
    "0 1 1" || diag "$out"
run lvchange -an "$VG/lv1"
test_eq "lvchange -an lv1: exit 5, LVM2's line, lv1 inactive all the same" \
    "$rc $(grep -c "Cannot fully deactivate merging origin volume $VG/lv1 while snapshot volume $VG/snap is still active." <<<"$out") $(field "$VG/lv1" lv_active)" \
    "5 1 " || diag "$out"
run lvchange -ay "$VG/lv1"
test_eq "lvchange -ay lv1: exit 5, LVM2's line, lv1 still inactive, the merge still waits" \
    "$rc $(grep -c "Refusing to activate merging volume $VG/lv1 while snapshot volume $VG/snap is still active." <<<"$out") $(field "$VG/lv1" lv_active) $(field "$VG/lv1" thin_id)" \
    "5 1  1" || diag "$out"
uspace_unhold s
: >"$SCRATCH/hidden.out"
for c in "lvchange --refresh" "lvchange -an" "lvchange -K -ay" "lvremove -y"; do
    run $c "$VG/snap"
    echo "$out" >>"$SCRATCH/hidden.out"
    test_eq "the hidden merging snap: $c refused (exit 5)" "$rc" "5" || diag "$out"
done
test_eq "... snap still there: a merging thin snapshot ('S'), refresh, -an and -ay with LVM2's line" \
    "$(lvx lvs --noheadings -a -o lv_attr "$VG/snap" 2>/dev/null | tr -d ' ' | cut -c1) $(grep -c "Operation not permitted on hidden LV $VG/snap." "$SCRATCH/hidden.out")" "S 3"
run lvchange -an "$VG/lv1"
test_eq "snap let go: lvchange -an lv1 takes snap down: exit 0, snap inactive" \
    "$rc $(field "$VG/snap" lv_active)" "0 " || diag "$out"
run lvchange -ay "$VG/lv1"
test_eq "lvchange -ay lv1 ends the merge: exit 0, lv1 thin_id 2, snap gone" \
    "$rc $(field "$VG/lv1" thin_id) $(lvx lvs --noheadings -a -o lv_name "$VG" 2>/dev/null | grep -c 'snap')" "0 2 0" || diag "$out"
test_eq "lv1 reads snap's data" "$(head -c $((8 * MIB)) "$(dev lv1)" | sha256sum | cut -d' ' -f1)" "$(fsum "$SCRATCH/S")"
uspace_run_ok "snap2: a thin snapshot of lv1" lvx lvcreate -q -s -n snap2 "$VG/lv1"
run lvconvert --mergesnapshot "$VG/snap2"
test_eq "--mergesnapshot of a thin snapshot: exit 5, 'does not accept LV type thin'" \
    "$rc $(grep -c "Command on LV $VG/snap2 does not accept LV type thin." <<<"$out")" "5 1" || diag "$out"
id=$(field "$VG/snap2" thin_id)
run lvconvert --mergethin "$VG/snap2"
test_eq "--mergethin snap2: exit 0, 'Volume ... replaced origin ...', lv1 has snap2's thin_id" \
    "$rc $(grep -c "Volume $VG/snap2 replaced origin $VG/lv1." <<<"$out") $(field "$VG/lv1" thin_id)" "0 1 $id" || diag "$out"
uspace_run_ok "a linear LV l" lvx lvcreate -q -an -Zn -L 4m -n l "$VG"
run lvconvert --mergethin "$VG/l"
test_eq "--mergethin of a linear LV: exit 5, 'does not accept LV type linear'" \
    "$rc $(grep -c "Command on LV $VG/l does not accept LV type linear." <<<"$out")" "5 1" || diag "$out"
uspace_run_ok "the VG deactivated" lvx vgchange -q -an "$VG"
test_ok "thin_check of the pool's metadata" "$LVX_ROOT/tests/tools/thin_meta_check.sh" "$VG" pool "$SCRATCH"
done_testing
