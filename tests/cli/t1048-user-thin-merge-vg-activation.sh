#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1048-user-thin-merge-vg-activation: a thin merge that waits (its snapshot was open at
# lvconvert --merge) ends at a VG-wide activation as LVM2's vgchange/lvchange -ay VG do
# it (lv_change_activate for each LV: the merging origin's snapshot is deactivated first,
# then the origin is activated, which merges), in the user-space backend:
#   - snap open at lvconvert --merge: the merge waits; lvchange -an lv1 leaves lv1
#     inactive (exit 5), snap stays active;
#   - vgchange -ay VG while snap is still open: exit 5, one "Refusing to activate merging
#     volume ..." line, lv1 stays inactive, the other thin LV lv2 is activated;
#   - snap let go: vgchange -ay VG ends the merge at once: lv1 has snap's thin_id and
#     data, snap is gone;
#   - the same with lvchange -ay VG for a second merge (snap2 into lv1).
# (lvx used to take the snapshot down and activate lv1 unmerged: the merge waited for
# the next activation.)
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

VG=vgtmv$$
uspace_test_loops "$VG" 2 64M
for f in A S T; do head -c $((8 * 1048576)) /dev/urandom >"$SCRATCH/$f"; done
run() {  # run ARGS...: lvx, output in $out, exit code in $rc
    rc=0
    out=$(lvx "$@" 2>&1) || rc=$?
}
# wait_merge SNAP DATA: snapshot SNAP of lv1 active, held open, lvconvert --merge waits,
# lv1 deactivated (fails, SNAP stays); SNAP stays held (uspace_unhold s).  DATA: written to SNAP.
wait_merge() {
    uspace_thin_snap "$1" "$2"
    uspace_hold s "$VG/$1"
    run lvconvert --merge "$VG/$1"
    test_eq "lvconvert --merge $1 while open: exit 0, the merge waits" \
        "$rc $(grep -c "Merging of thin snapshot $VG/$1 will occur on next activation of $VG/lv1." <<<"$out")" "0 1" || diag "$out"
    run lvchange -an "$VG/lv1"
    test_eq "lvchange -an lv1: exit 5, lv1 inactive, $1 active" \
        "$rc $(field "$VG/lv1" lv_active) $(lvx lvs --noheadings -a -o lv_active "$VG/$1" 2>/dev/null | tr -d ' ')" \
        "5  active" || diag "$out"
}

# merge_ends SNAP DATA CMD...: SNAP let go, CMD (an activation of the VG) ends its merge.
merge_ends() {
    local snap=$1 data=$2 id
    shift 2
    uspace_unhold s
    id=$(lvx lvs --noheadings -a -o thin_id "$VG/$snap" 2>/dev/null | tr -d ' ')
    run "$@"
    test_eq "$snap let go: $1 $2 ends the merge: exit 0, lv1 active with $snap's thin_id, $snap gone" \
        "$rc $(field "$VG/lv1" lv_active) $(field "$VG/lv1" thin_id) $(lvx lvs --noheadings -a -o lv_name "$VG" 2>/dev/null | grep -c "$snap")" \
        "0 active $id 0" || diag "$out"
    test_eq "lv1 reads $snap's data" "$(lv_sum "$VG/lv1")" "$(fsum "$SCRATCH/$data")"
}

uspace_run_ok "pvcreate, vgcreate; pool (24 MiB), thin lv1 and lv2 (8 MiB)" sh -c \
    "$LVX pvcreate -q ${DEVS[*]} && $LVX vgcreate -q $VG ${DEVS[*]} &&
     DM_DEV_DIR=$DM_DEV_DIR $LVX lvcreate -q -T -L 24m -V 8m -n lv1 $VG/pool &&
     $LVX lvcreate -q -V 8m -n lv2 $VG/pool"
uspace_run_ok "A written to lv1" dd if="$SCRATCH/A" of="$DM_DEV_DIR/$VG/lv1" bs=1M oflag=direct conv=fsync status=none
wait_merge snap S
uspace_run_ok "lv2 deactivated" lvx lvchange -q -an "$VG/lv2"
run vgchange -ay "$VG"
test_eq "vgchange -ay with snap open: exit 5, one 'Refusing to activate merging volume ...', lv1 inactive, lv2 active" \
    "$rc $(grep -c "Refusing to activate merging volume $VG/lv1 while snapshot volume $VG/snap is still active." <<<"$out") $(field "$VG/lv1" lv_active) $(field "$VG/lv2" lv_active)" \
    "5 1  active" || diag "$out"
merge_ends snap S vgchange -ay "$VG"
wait_merge snap2 T
merge_ends snap2 T lvchange -ay "$VG"
uspace_run_ok "the VG deactivated" lvx vgchange -q -an "$VG"
test_ok "thin_check of the pool's metadata" "$LVX_ROOT/tests/tools/thin_meta_check.sh" "$VG" pool "$SCRATCH"
done_testing
