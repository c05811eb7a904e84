#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0941-pvmove-vg: a VG in which LVM2 has a pvmove in progress (issue 15).  LVM2 makes a
# VG of two LVs on its first PV; tests/tools/pvmove_meta.py turns LVM2's backup of it into
# the metadata `pvmove PV1 PV2` keeps while it runs (hidden LV pvmove0 of two mirror
# segments with extents_moved, the moved LVs LOCKED and pointing at "pvmove0"), and LVM2's
# own vgcfgrestore writes it (so LVM2 vouches for it).  Then, side by side with LVM2:
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

need_loop
need_lvx
need_cmd lvm

VG=vgmove$$
D=()
for i in 0 1; do D+=("$(make_loop 64M)"); done
lvm_sandbox "${D[@]}"

lvm2 pvcreate -q "${D[@]}" >/dev/null 2>&1
lvm2 vgcreate -q "$VG" "${D[@]}" >/dev/null 2>&1
lvm2 lvcreate -q -n one -L 8m "$VG" "${D[0]}" >/dev/null 2>&1
lvm2 lvcreate -q -n two -L 12m "$VG" "${D[0]}" >/dev/null 2>&1
lvm2 vgcfgbackup -f "$SCRATCH/plain.vg" "$VG" >/dev/null 2>&1
test_ok "the pvmove metadata is made from LVM2's backup" \
    "$PYTHON" "$LVX_ROOT/tests/tools/pvmove_meta.py" "$SCRATCH/plain.vg" "$SCRATCH/move.vg" 3
lvm2 vgcfgrestore -f "$SCRATCH/move.vg" "$VG" >"$SCRATCH/r.out" 2>&1
grep -q "Restored volume group $VG" "$SCRATCH/r.out"
_tap_result $? "LVM2 restores it (it accepts the metadata)"
test_eq "LVM2 reports [pvmove0] moving from the first PV" "[pvmove0] ${D[0]}" \
    "$(lvm2 lvs -a --noheadings -o lv_name,move_pv "$VG" 2>/dev/null | awk '$2 != "" {print $1, $2}' | sort -u)"

noact() { grep -v 'WARNING: Activation disabled'; }
side() {
    local rc=0
    lvm2 "$@" >"$SCRATCH/l.out" 2>"$SCRATCH/l.eraw" || rc=$?
    echo "$rc" >"$SCRATCH/l.rc"
    noact <"$SCRATCH/l.eraw" >"$SCRATCH/l.err"
    rc=0
    lvx "$@" >"$SCRATCH/x.out" 2>"$SCRATCH/x.eraw" || rc=$?
    echo "$rc" >"$SCRATCH/x.rc"
    noact <"$SCRATCH/x.eraw" >"$SCRATCH/x.err"
}
same() {
    local d=$1
    shift
    side "$@"
    if cmp -s "$SCRATCH/l.rc" "$SCRATCH/x.rc" && cmp -s "$SCRATCH/l.out" "$SCRATCH/x.out" &&
        cmp -s "$SCRATCH/l.err" "$SCRATCH/x.err"; then
        _tap_result 0 "$d"
    else
        _tap_result 1 "$d"
        diag "exit LVM2 $(cat "$SCRATCH/l.rc") lvx $(cat "$SCRATCH/x.rc")"
        diag "$(diff "$SCRATCH/l.out" "$SCRATCH/x.out")" "$(diff "$SCRATCH/l.err" "$SCRATCH/x.err")"
    fi
}
reports() {   # reports TAG: every report of the VG, side by side
    same "$1: lvs -a (devices, ranges, move, copy%)" lvs -a -o lv_name,lv_attr,lv_size,devices,seg_pe_ranges,move_pv,move_pv_uuid,copy_percent,lv_tags "$VG"
    same "$1: lvs" lvs "$VG"
    same "$1: lvs -a --segments" lvs -a --segments -o +seg_size_pe,seg_le_ranges,seg_start_pe,devices "$VG"
    same "$1: pvs" pvs -o +pv_used,pv_pe_alloc_count "${D[@]}"
    same "$1: pvs --segments" pvs --segments -o +lv_name,seg_size_pe "${D[@]}"
    same "$1: vgs" vgs -o +vg_free_count,lv_count,vg_tags "$VG"
    same "$1: lvdisplay -a -m" lvdisplay -a -m "$VG"
    same "$1: pvdisplay -m" pvdisplay -m "${D[0]}" "${D[1]}"
    same "$1: lvscan -a" lvscan -a
    same "$1: lvs JSON" lvs -a --reportformat json -o lv_name,lv_attr,move_pv,devices "$VG"
}
reports "as LVM2 wrote it"

# ---- refused on locked LVs, nothing written
sum0=$(sha_devs "${D[@]}")
same "lvextend of a moved LV: refused" lvextend -L+4m "$VG/one"
same "lvreduce of a moved LV: refused" lvreduce -y -L-4m "$VG/two"
same "lvremove of a moved LV: refused" lvremove -y "$VG/one"
same "lvremove of pvmove0: refused" lvremove -y "$VG/pvmove0"
same "lvrename of a moved LV: refused" lvrename "$VG" one uno
same "lvchange of pvmove0: refused" lvchange --addtag t "$VG/pvmove0"
test_eq "... the devices are unchanged" "$sum0" "$(sha_devs "${D[@]}")"
LVX_ACTIVATION_BACKEND=user lvx lvchange --config 'global/activation=1' -ay "$VG/one" \
    >/dev/null 2>"$SCRATCH/e"
test_eq "activating a moved LV is refused (exit 5)" "5" "$?"
grep -q "is not supported by lvx" "$SCRATCH/e"
_tap_result $? "... saying why"

# ---- lvx writes, LVM2 reads
test_ok "lvx lvcreate of another LV" lvx lvcreate -q -n three -L 4m "$VG" "${D[1]}"
test_ok "lvx lvremove of it" lvx lvremove -q -y "$VG/three"
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
    "$(pvmove_text "$SCRATCH/move.vg")" "$(pvmove_text "$SCRATCH/after.vg")"
lvx vgcfgbackup -f "$SCRATCH/lvx.vg" "$VG" >/dev/null 2>&1
test_eq "lvx's backup: the same" "$(pvmove_text "$SCRATCH/after.vg")" "$(pvmove_text "$SCRATCH/lvx.vg")"

done_testing
