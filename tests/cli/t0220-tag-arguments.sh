#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0220-tag-arguments: "@tag" in place of a VG, LV or PV name, as LVM2 takes it.
#  - reports (vgs, lvs, pvs) of @tag arguments list what LVM2 lists for the same VGs:
#    VGs with the tag; LVs with the tag, or every LV of a VG with the tag; PVs with it;
#    a tag nobody has selects nothing and is no error;
#  - changing commands (vgchange, lvchange, lvremove, vgremove) act on exactly the
#    objects the tag selects, read back by LVM2;
#  - a report naming some PVs or LVs prints the figures of their whole VG (pv_count,
#    vg_size, lv_count, ...), as LVM2 (it used to count only the named ones).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_loop
need_cmd lvm
need_lvx
plan_later

D=()
for _ in 0 1 2; do D+=("$(make_loop 64M)") || skip_all "cannot make loop devices"; done
lvm_sandbox "${D[@]}"
export LVM_SYSTEM_DIR=$SCRATCH/lvm LVM_SUPPRESS_FD_WARNINGS=1
A=tga$$ B=tgb$$
lvm2 pvcreate -y "${D[@]}" >/dev/null 2>&1
lvm2 vgcreate --addtag blue "$A" "${D[0]}" "${D[1]}" >/dev/null 2>&1
lvm2 vgcreate "$B" "${D[2]}" >/dev/null 2>&1
lvm2 pvchange --addtag pt "${D[0]}" >/dev/null 2>&1
for lv in "$A/a1 red" "$A/a2" "$B/b1 red" "$B/b2"; do
    set -- $lv
    lvm2 lvcreate -an -Zn -y -L 4m -n "${1#*/}" ${2:+--addtag "$2"} "${1%/*}" >/dev/null 2>&1
done

# report ARGS... with both tools: same rows (and exit code)
same_report() {
    local desc=$1 lrc=0 xrc=0
    shift
    lvm2 "$@" >"$SCRATCH/l.out" 2>/dev/null || lrc=$?
    lvx "$@" >"$SCRATCH/x.out" 2>"$SCRATCH/x.err" || xrc=$?
    if [[ $lrc -eq $xrc ]] && diff -q "$SCRATCH/l.out" "$SCRATCH/x.out" >/dev/null &&
        ! sanitizer_report "$SCRATCH/x.err"; then
        _tap_result 0 "$desc"
        return
    fi
    _tap_result 1 "$desc"
    diag "args: $*" "LVM2 exit $lrc, lvx exit $xrc"
    _diag_file "LVM2" "$SCRATCH/l.out"
    _diag_file "lvx" "$SCRATCH/x.out"
    _diag_file "lvx stderr" "$SCRATCH/x.err"
}

for t in @blue @red @pt @nobody; do
    same_report "vgs $t" vgs --noheadings -o vg_name "$t"
    same_report "lvs $t" lvs --noheadings -o vg_name,lv_name "$t"
    same_report "pvs $t" pvs --noheadings -o pv_name "$t"
done
same_report "lvs @red $A/a2 (a tag and a name)" lvs --noheadings -o lv_name @red "$A/a2"
# a report of some PVs or LVs gives the figures of their whole VG, as LVM2
same_report "pvs PV -o vg_size,vg_extent_count,pv_count: the whole VG's figures" \
    pvs --noheadings --units b -o pv_name,vg_size,vg_extent_count,vg_free_count,pv_count,lv_count "${D[0]}"
same_report "lvs VG/LV -o lv_count,vg_size: the whole VG's figures" \
    lvs --noheadings --units b -o lv_name,lv_count,vg_size,pv_count,vg_free "$A/a1"
same_report "pvs @pt -o pv_count,vg_extent_count" pvs --noheadings -o pv_name,pv_count,vg_extent_count @pt
test_eq "lvs @red selects the two red LVs" \
    "$(lvx lvs --noheadings -o lv_name @red 2>/dev/null | xargs)" "a1 b1"

test_ok "lvchange --addtag green @red" lvx lvchange --addtag green @red
test_eq "... tagged exactly the red LVs (read by LVM2)" \
    "$(lvm2 lvs --noheadings -o lv_name -S 'lv_tags=green' 2>/dev/null | xargs)" "a1 b1"
test_ok "vgchange --addtag vgt @blue" lvx vgchange --addtag vgt @blue
test_eq "... changed only the blue VG" \
    "$(lvm2 vgs --noheadings -o vg_name,vg_tags 2>/dev/null | awk '{$1=$1; print}' | sort | xargs)" \
    "$A blue,vgt $B"
test_ok "vgchange --addtag x @nobody changes nothing and succeeds" lvx vgchange --addtag x @nobody
test_ok "lvremove -f @red" lvx lvremove -f @red
test_eq "... removed the red LVs only" \
    "$(lvm2 lvs --noheadings -o lv_name 2>/dev/null | xargs)" "a2 b2"
test_ok "vgremove -f @blue" lvx vgremove -f @blue
test_eq "... removed the blue VG only" "$(lvm2 vgs --noheadings -o vg_name 2>/dev/null | xargs)" "$B"
test_ok "LVM2's vgck accepts what is left" lvm2 vgck "$B"

lvm2 vgremove -f "$B" >/dev/null 2>&1
done_testing
