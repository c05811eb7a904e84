#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0941-pvmove-vg: a VG in which LVM2 has a pvmove in progress (issue 15), twice:
#   1. LVM2's own metadata of a running pvmove, captured in the kvm-dm-test VM
#      (tests/fixtures/lvm2/pvmove_in_progress/during.vg: 3 PVs, "one" half moved, "two"
#      moved, "three" not), put on this test's loop devices by LVM2 (pvcreate --uuid
#      --restorefile, vgcfgrestore);
#   2. a VG LVM2 makes here, whose backup tests/tools/pvmove_meta.py turns into the same
#      layout (hidden LV pvmove0 of two mirror segments with extents_moved, the moved LVs
#      LOCKED and pointing at "pvmove0"), restored by LVM2's vgcfgrestore.
# For each, side by side with LVM2:
#   - reports: lvs -a (devices, PE ranges, move_pv, copy_percent, attributes), lvs
#     --segments, pvs (used/free: the mirror's second leg is allocated), pvs --segments,
#     vgs, lvdisplay -a -m, pvdisplay -m, lvscan -a, JSON: same bytes;
#   - lvx refuses what LVM2 refuses on locked LVs (resize, remove, rename; lvchange of
#     pvmove0) with the same messages and exit codes, and changes nothing;
#   - lvx's writes keep the move intact: lvcreate/lvremove of another LV, lvchange
#     --addtag of a moved LV, vgchange --addtag, vgrename there and back, vgcfgbackup;
#     LVM2 then reports the VG as before (tags aside) and its backup text of pvmove0 and
#     of the moved LVs is the one it restored;
#   - activation of a moved LV is refused (lvx cannot map an LV stacked on pvmove0).
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/side.sh"

need_loop
need_lvx
need_cmd lvm

FIX=$LVX_ROOT/tests/fixtures/lvm2/pvmove_in_progress/during.vg
D=()
for i in 0 1 2 3 4; do D+=("$(make_loop 64M)"); done
lvm_sandbox "${D[@]}"

reports() {   # reports TAG: every report of the VG, side by side
    same "$1: lvs -a (devices, ranges, move, copy%)" lvs -a -o lv_name,lv_attr,lv_size,devices,seg_pe_ranges,move_pv,move_pv_uuid,copy_percent,lv_tags "$VG"
    same "$1: lvs" lvs "$VG"
    same "$1: lvs -a --segments" lvs -a --segments -o +seg_size_pe,seg_le_ranges,seg_start_pe,devices "$VG"
    same "$1: pvs" pvs -o +pv_used,pv_pe_alloc_count "${PVS[@]}"
    same "$1: pvs --segments" pvs --segments -o +lv_name,seg_size_pe "${PVS[@]}"
    same "$1: vgs" vgs -o +vg_free_count,lv_count,vg_tags "$VG"
    same "$1: lvdisplay -a -m" lvdisplay -a -m "$VG"
    same "$1: pvdisplay -m" pvdisplay -m "${PVS[@]}"
    # two VGs here: LVM2's VG order is its cache's (not by name), so the lines are sorted
    side lvscan -a
    test_eq "$1: lvscan -a (sorted lines)" "$(sort "$SCRATCH/l.out")" "$(sort "$SCRATCH/x.out")"
    same "$1: lvs JSON" lvs -a --reportformat json -o lv_name,lv_attr,move_pv,devices "$VG"
}
# suite VG MOVED_FROM_TEXT PV...: the checks on a VG with a pvmove in progress
suite() {
    VG=$1 ORIG=$2
    shift 2
    PVS=("$@")
    reports "as LVM2 wrote it"

    # ---- refused on locked LVs, nothing written
    sum0=$(sha_devs "${PVS[@]}")
    same "lvextend of a moved LV: refused" lvextend -L+4m "$VG/one"
    same "lvreduce of a moved LV: refused" lvreduce -y -L-4m "$VG/two"
    same "lvremove of a moved LV: refused" lvremove -y "$VG/one"
    same "lvremove of pvmove0: refused" lvremove -y "$VG/pvmove0"
    same "lvrename of a moved LV: refused" lvrename "$VG" one uno
    same "lvchange of pvmove0: refused" lvchange --addtag t "$VG/pvmove0"
    test_eq "... the devices are unchanged" "$sum0" "$(sha_devs "${PVS[@]}")"
    # an LV in the middle of a move is activated over the move, as LVM2 activates it
    # (the daemon's pvmove target writes both legs), and deactivated again
    LVX_ACTIVATION_BACKEND=user lvx lvchange --config 'global/activation=1' -ay "$VG/one" \
        >/dev/null 2>"$SCRATCH/e"
    test_eq "activating a moved LV (user backend): exit 0" "0" "$?"
    LVX_ACTIVATION_BACKEND=user lvx lvchange --config 'global/activation=1' -an "$VG/one" \
        >/dev/null 2>>"$SCRATCH/e"
    rc=$?
    test_eq "... deactivating it: exit 0 $(head -c 300 "$SCRATCH/e")" "0" "$rc"

    # ---- lvx writes, LVM2 reads
    test_ok "lvx lvcreate of another LV" lvx lvcreate -q -n extra -L 4m "$VG" "${PVS[1]}"
    test_ok "lvx lvremove of it" lvx lvremove -q -y "$VG/extra"
    test_ok "lvx lvchange --addtag of a moved LV" lvx lvchange -q --addtag moved "$VG/one"
    test_ok "lvx vgchange --addtag" lvx vgchange -q --addtag busy "$VG"
    test_ok "lvx vgrename there" lvx vgrename -q "$VG" "${VG}x"
    test_ok "lvx vgrename back" lvx vgrename -q "${VG}x" "$VG"
    reports "after lvx's commits"
    lvm2 vgcfgbackup -f "$SCRATCH/after.vg" "$VG" >/dev/null 2>&1
    pvmove_text() {   # the pvmove0 section and the moved LVs' segment lines, without comments
        awk '/^\t\tpvmove0 \{/,/^\t\t\}/' "$1" | sed 's/\t*#.*//' | grep -v -e creation_ -e '^$'
        grep -E '"pvmove0", [0-9]+|status = \[.*LOCKED' "$1"
    }
    test_eq "LVM2's backup: pvmove0 and the moved LVs as restored" \
        "$(pvmove_text "$ORIG")" "$(pvmove_text "$SCRATCH/after.vg")"
    lvx vgcfgbackup -f "$SCRATCH/lvx.vg" "$VG" >/dev/null 2>&1
    test_eq "lvx's backup: the same" "$(pvmove_text "$SCRATCH/after.vg")" "$(pvmove_text "$SCRATCH/lvx.vg")"

}

# ---- 1: LVM2's own metadata, from the VM
i=0
for id in $(awk '/^\t\tpv[0-9]+ \{/ {getline; gsub(/[",]/, "", $3); print $3}' "$FIX"); do
    lvm2 pvcreate -q --uuid "$id" --restorefile "$FIX" "${D[$i]}" >/dev/null 2>&1
    i=$((i + 1))
done
lvm2 vgcfgrestore -f "$FIX" vgmove >"$SCRATCH/r.out" 2>&1
grep -q "Restored volume group vgmove" "$SCRATCH/r.out"
_tap_result $? "LVM2 restores its pvmove metadata (from the VM) on 3 loop devices"
test_eq "LVM2 reports [pvmove0] moving from the first PV" "[pvmove0] ${D[0]}" \
    "$(lvm2 lvs -a --noheadings -o lv_name,move_pv vgmove 2>/dev/null | awk '$2 != "" {print $1, $2}' | sort -u)"
suite vgmove "$FIX" "${D[0]}" "${D[1]}" "${D[2]}"

# ---- 2: the layout made from LVM2's backup of a VG made here
VG2=vgmove$$
lvm2 pvcreate -q "${D[3]}" "${D[4]}" >/dev/null 2>&1
lvm2 vgcreate -q "$VG2" "${D[3]}" "${D[4]}" >/dev/null 2>&1
lvm2 lvcreate -q -n one -L 8m "$VG2" "${D[3]}" >/dev/null 2>&1
lvm2 lvcreate -q -n two -L 12m "$VG2" "${D[3]}" >/dev/null 2>&1
lvm2 vgcfgbackup -f "$SCRATCH/plain.vg" "$VG2" >/dev/null 2>&1
test_ok "the pvmove metadata is made from LVM2's backup" \
    "$PYTHON" "$LVX_ROOT/tests/tools/pvmove_meta.py" "$SCRATCH/plain.vg" "$SCRATCH/move.vg" 3
lvm2 vgcfgrestore -f "$SCRATCH/move.vg" "$VG2" >"$SCRATCH/r.out" 2>&1
grep -q "Restored volume group $VG2" "$SCRATCH/r.out"
_tap_result $? "LVM2 restores it (it accepts the metadata)"
suite "$VG2" "$SCRATCH/move.vg" "${D[3]}" "${D[4]}"

done_testing
