#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1056-thin-merge-sysinit: LVM2's thin-vglock in the user-space backend: a thin merge
# that waits (the origin was open at lvconvert --merge) is done by an activation
# without polling (--sysinit, --poll n) in the kernel only, as LVM2 does it:
#   - vgchange -ay --sysinit: the origin lv1 maps the snapshot's thin device (lv1 reads
#     the snapshot's data), lvs shows the snapshot's segment fields for lv1 (thin_id 3),
#     the metadata are not written (pool transaction_id 3, snap still there, merging);
#   - vgchange --refresh (polling) finishes the merge: thin_id 3, transaction_id 4, snap
#     gone, one "Merge of snapshot into logical volume ... has finished." line;
#   - the same with vgchange -ay --poll n, then vgchange -ay finishing it;
#   - vgchange --refresh with -ay: exit 3, "Command does not accept option: --refresh."
#     (LVM2's command forms).
# (lvx used to finish the merge at any activation and had no vgchange --refresh.)
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

VG=vgtms$$
uspace_test_loops "$VG" 2 64M
tid() { field "$VG/pool" transaction_id; }
run() { rc=0; out=$(lvx "$@" 2>&1) || rc=$?; }   # output in $out, exit code in $rc
for f in A S T; do head -c $((4 * 1048576)) /dev/urandom >"$SCRATCH/$f"; done
nsnap() { lvx lvs --noheadings -a -o lv_name "$VG" 2>/dev/null | grep -c "$1"; }

# waiting_merge SNAP DATA: SNAP of lv1 with DATA written, lv1 held open while
# lvconvert --merge SNAP (the merge waits), then let go; lv1 still its own device.
waiting_merge() {
    uspace_thin_snap "$1" "$2"
    uspace_hold o "$VG/lv1"
    run lvconvert --merge "$VG/$1"
    test_eq "lvconvert --merge $1 with lv1 open: exit 0, the merge waits" \
        "$rc $(grep -c "Merging of thin snapshot $VG/$1 will occur on next activation of $VG/lv1." <<<"$out")" "0 1" || diag "$out"
    uspace_unhold o
}
# no_poll_activation SNAP ID DATA TID CMD...: the VG deactivated, CMD activates it
# without polling: lv1 maps SNAP's device (thin_id ID, data DATA), lvs shows SNAP's
# segment fields for lv1 (LVM2's reporter), the metadata unchanged (transaction_id TID).
no_poll_activation() {
    local snap=$1 id=$2 data=$3 t=$4
    shift 4
    uspace_run_ok "the VG deactivated" lvx vgchange -q -an "$VG"
    run "$@"
    test_eq "$*: exit 0, lvs shows lv1 with $snap's segment fields (thin_id $id), transaction_id $t" \
        "$rc $(field "$VG/lv1" lv_name) $(field "$VG/lv1" thin_id) $(tid)" \
        "0 lv1 $id $t" || diag "$out"
    test_eq "lvs -a: one lv1 row (attr O), one [$snap] row (attr S)" \
        "$(lvx lvs --noheadings -a -o lv_name,lv_attr "$VG" 2>/dev/null | grep -E "^ *(lv1|\[$snap\]) " | awk '{ print $1, substr($2, 1, 1) }' | tr '\n' ' ')" \
        "lv1 O [$snap] S "
    test_eq "lv1's device exists" "$(test -e "$DM_DEV_DIR/$VG/lv1"; echo $?)" 0
    test_eq "lv1 reads the snapshot's data" "$(lv_sum "$VG/lv1")" "$(fsum "$SCRATCH/$data")"
}
# finished ID TID CMD...: CMD finishes the merge in the metadata: lv1 has thin_id ID,
# the pool transaction_id TID, the snapshot is gone.
finished() {
    local id=$1 t=$2
    shift 2
    run "$@"
    test_eq "$*: exit 0, one 'Merge ... has finished.', thin_id $id, transaction_id $t, snapshot gone" \
        "$rc $(grep -c "Merge of snapshot into logical volume $VG/lv1 has finished." <<<"$out") $(field "$VG/lv1" lv_name) $(field "$VG/lv1" thin_id) $(tid) $(nsnap snap)" \
        "0 1 lv1 $id $t 0" || diag "$out"
}

uspace_run_ok "pvcreate, vgcreate; pool, thin lv1 (4 MiB) and one more thin LV (-an)" sh -c \
    "$LVX pvcreate -q ${DEVS[*]} && $LVX vgcreate -q $VG ${DEVS[*]} &&
     DM_DEV_DIR=$DM_DEV_DIR $LVX lvcreate -q -T -L 16m -V 4m -n lv1 $VG/pool &&
     $LVX lvcreate -q -an -V 4m -T $VG/pool"
uspace_run_ok "A written to lv1" dd if="$SCRATCH/A" of="$DM_DEV_DIR/$VG/lv1" bs=1M oflag=direct conv=fsync status=none
waiting_merge snap S
test_eq "after lvconvert --merge: thin_id of snap 3, of lv1 1, transaction_id 3" \
    "$(lvx lvs --noheadings -a -o thin_id "$VG/snap" 2>/dev/null | tr -d ' ') $(field "$VG/lv1" thin_id) $(tid)" "3 1 3"
no_poll_activation snap 3 S 3 vgchange -ay --sysinit "$VG"
run vgchange -ay --refresh "$VG"
test_eq "vgchange -ay --refresh: exit 3, LVM2's 'Command does not accept option: --refresh.', nothing done" \
    "$rc $(grep -c "Command does not accept option: --refresh." <<<"$out") $(tid)" "3 1 3" || diag "$out"
finished 3 4 vgchange --refresh "$VG"
test_eq "lv1 reads S" "$(lv_sum "$VG/lv1")" "$(fsum "$SCRATCH/S")"

waiting_merge snap2 T
no_poll_activation snap2 4 T 5 vgchange -ay --poll n "$VG"
finished 4 6 vgchange -ay "$VG"
test_eq "lv1 reads T" "$(lv_sum "$VG/lv1")" "$(fsum "$SCRATCH/T")"
uspace_run_ok "the VG deactivated" lvx vgchange -q -an "$VG"
test_ok "thin_check of the pool's metadata" "$LVX_ROOT/tests/tools/thin_meta_check.sh" "$VG" pool "$SCRATCH"
done_testing
