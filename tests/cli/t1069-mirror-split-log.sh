#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1069-mirror-split-log: lvconvert --splitmirrors of old-style mirrors and image
# changes combined with --mirrorlog, against LVM2 2.03.16 on twin VGs
# (tests/tools/lv_twin.sh: lvx makes the same LVs on both sides, side A changed by lvx,
# side B by LVM2, activation off):
#   - --splitmirrors refusals of a mirror, LVM2's line, exit code and no write: inactive
#     (its sync status unknown), as many images as it has, --trackchanges, a name in
#     use;
#   - -m+1 --mirrorlog disk of a core-log mirror, -m+1 --mirrorlog core of a disk-log
#     mirror, -m+1 --mirrorlog mirrored of a core-log mirror and --type mirror -m1
#     --mirrorlog mirrored of a linear LV: exit code and output equal LVM2's, the layout
#     LVM2 reads equal LVM2's own once its resync layer is collapsed
#     (tests/tools/mirror_layer.sh), LVM2's vgck accepting lvx's side.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/lv_twin.sh
. "$LVX_ROOT/tests/tools/lv_twin.sh"
# shellcheck source=tests/tools/mirror_layer.sh
. "$LVX_ROOT/tests/tools/mirror_layer.sh"

twin_begin 5 64M vg1
C=(--config "global/activation=1 global/support_mirrored_mirror_log=1")
M=(--config "global/support_mirrored_mirror_log=1")
for side in a b; do
    for a in "--type mirror -m2 -L 8m -n m3" "--type mirror -m1 --corelog -L 4m -n c" \
        "--type mirror -m1 -L 4m -n d" "--type mirror -m1 --corelog -L 4m -n c2" \
        "-L 4m -n lin"; do
        # shellcheck disable=SC2086
        "lvx_$side" lvcreate "${C[@]}" -an $a vg1 >/dev/null 2>&1
    done
done
test_eq "the same LVs made on both sides" "$(twin_meta a)" "$(twin_meta b)"

twin_step "--splitmirrors 1 --trackchanges of a mirror: refused" \
    lvconvert --splitmirrors 1 --trackchanges vg1/m3
twin_step "--splitmirrors 1 of an inactive mirror: refused" \
    lvconvert --splitmirrors 1 -n sp vg1/m3
twin_step "--splitmirrors 2 of a 2-image mirror: refused" \
    lvconvert --splitmirrors 2 -n sp vg1/c
twin_step "--splitmirrors 1 -n NAME-IN-USE: refused" \
    lvconvert --splitmirrors 1 -n lin vg1/m3

lay() { MIR_LVM=lvm_$1 mir_layout vg1 "$(_twin_sed "$1")" | grep "^$2"; }
conv() {  # conv DESC LV [NOLOGPV] ARGS...: lvx on A, LVM2 on B, then the layouts
    local desc=$1 lv=$2 rca=0 rcb=0 nolog=""
    shift 2
    [[ $1 == NOLOGPV ]] && { nolog=1; shift; }
    lvx_a lvconvert "${M[@]}" -y "$@" "vg1/$lv" >"$SCRATCH/a.out" 2>&1 || rca=$?
    lvm_b lvconvert "${M[@]}" -y "$@" "vg1/$lv" >"$SCRATCH/b.out" 2>&1 || rcb=$?
    test_eq "$desc: lvx's exit code and output equal LVM2's" \
        "$rca $(twin_out a "$SCRATCH/a.out")" "$rcb $(twin_out b "$SCRATCH/b.out")"
    diag "LVM2: $(lvm_b lvs -a -o lv_name,mirror_log,devices vg1 2>/dev/null | grep " $lv")"
    if [[ -n $nolog ]]; then
        # LVM2 breaks a tie between two PVs of equal free space its own way: the log's
        # PV is left out of the comparison, and checked to hold no image
        test_eq "$desc: the layout LVM2 reads equals LVM2's (its layer collapsed, the log's PV aside)" \
            "$(lay a "$lv" | sed '/_mlog log=/s/ D[0-9]*$//')" \
            "$(lay b "$lv" | sed '/_mlog log=/s/ D[0-9]*$//')"
        local lpv
        lpv=$(lay a "$lv" | awk '/_mlog log=/ { print $NF }')
        test_eq "$desc: lvx's log on a PV without an image" \
            "$(lay a "$lv" | grep -c "_mimage_[0-9]* log= $lpv\$")" 0
        return
    fi
    test_eq "$desc: the layout LVM2 reads equals LVM2's (its layer collapsed)" \
        "$(lay a "$lv")" "$(lay b "$lv")"
}
conv "-m+1 --mirrorlog disk of a core-log mirror" c NOLOGPV -m+1 --mirrorlog disk
conv "-m+1 --mirrorlog core of a disk-log mirror" d -m+1 --mirrorlog core
conv "-m+1 --mirrorlog mirrored of a core-log mirror" c2 -m+1 --mirrorlog mirrored
conv "--type mirror -m1 --mirrorlog mirrored of a linear LV" lin --type mirror -m1 \
    --mirrorlog mirrored
test_ok "LVM2's vgck accepts lvx's side" lvm_a vgck vg1

lvx_a vgremove -ff vg1 >/dev/null 2>&1
lvm_b vgremove -ff vg1 >/dev/null 2>&1
done_testing
