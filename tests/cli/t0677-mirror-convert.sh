#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0677-mirror-convert: lvconvert of inactive old-style mirrors against LVM2, on twin
# VGs (tests/tools/lv_twin.sh): lvx makes the same mirrors and linear LVs on both sides
# (LVM2 makes no mirror without device-mapper), then side A is converted by lvx and
# side B by LVM2 (which converts inactive mirrors without device-mapper):
# mirror -> linear (-m0, --type linear), fewer images (-m1 of 3), --mirrorlog
# core|disk (--corelog), linear -> mirror (--type mirror [-m2] [--corelog], and -m1 with
# lvm.conf's global/mirror_segtype_default = "mirror").  After
# each step: same output and exit code, and the same metadata text (ids, times, hosts,
# seqno, device hints aside: LVM2's vgcfgbackup on both sides): sub-LV names, order,
# placement, log, region size.  Refusals: --type raid1 of an inactive mirror (LVM2's
# "must be active"), bad --mirrorlog values (-m +N: t0998).  LVM2's vgck accepts side A at the end.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/lv_twin.sh
. "$LVX_ROOT/tests/tools/lv_twin.sh"

twin_begin 3 64M vg1
C=(--config "global/activation=1")
for side in a b; do
    for a in "-m1 -L 4m -n m1" "-m2 -L 4m -n m2" "-m1 -L 4m -n m3" "-m1 -L 4m -n m4"; do
        # shellcheck disable=SC2086
        "lvx_$side" lvcreate "${C[@]}" -an --type mirror $a vg1 >/dev/null 2>&1
    done
    "lvx_$side" lvcreate -an -L 8m -n lin vg1 >/dev/null 2>&1
    "lvx_$side" lvcreate -an -L 4m -n lin2 vg1 >/dev/null 2>&1
    "lvx_$side" lvcreate -an -L 4m -n lin3 vg1 >/dev/null 2>&1
done
test_eq "the same mirrors made on both sides" "$(twin_meta a)" "$(twin_meta b)"

step() {  # step DESC ARGS...: lvx on side A, LVM2 on side B
    local desc=$1 rca=0 rcb=0
    shift
    lvx_a lvconvert "$@" >"$SCRATCH/a.out" 2>&1 || rca=$?
    lvm_b lvconvert "$@" >"$SCRATCH/b.out" 2>&1 || rcb=$?
    test_eq "$desc: lvx's exit code and output equal LVM2's" \
        "$rca $(sandbox_noise <"$SCRATCH/a.out")" \
        "$rcb $(sandbox_noise <"$SCRATCH/b.out" | grep -v "' for more information.$")"
    test_eq "$desc: metadata equal" "$(twin_meta a)" "$(twin_meta b)"
}
step "-m0 of a mirror (to linear)" -y -m0 vg1/m1
step "--mirrorlog core" -y --mirrorlog core vg1/m2
step "--type mirror of a linear LV" -y --type mirror -m1 vg1/lin
step "-m1 of a 3-image mirror (the last image goes)" -y -m1 vg1/m2
step "--mirrorlog disk (best fit on the PV without an image)" -y --mirrorlog disk vg1/m2
step "--type linear of a mirror" -y --type linear vg1/m3
step "--type mirror -m2 --corelog of a linear LV" -y --type mirror -m2 --corelog vg1/lin2
step "--corelog of a mirror" -y --corelog vg1/lin
step "-m1 with global/mirror_segtype_default=mirror: linear -> mirror" \
    -y -m1 --config global/mirror_segtype_default=mirror vg1/lin3
step "--type raid1 of an inactive mirror: refused" -y --type raid1 vg1/m4
step "--mirrorlog bogus: refused" -y --mirrorlog bogus vg1/m4
test_ok "LVM2's vgck accepts lvx's side" lvm_a vgck vg1
test_eq "LVM2 reports lvx's side as its own (types, devices, logs)" \
    "$(lvm_a lvs -a --noheadings -o lv_name,segtype,devices,mirror_log vg1 2>/dev/null | sed "$(_twin_sed a)" | tr -s ' ')" \
    "$(lvm_b lvs -a --noheadings -o lv_name,segtype,devices,mirror_log vg1 2>/dev/null | sed "$(_twin_sed b)" | tr -s ' ')"

lvx_a vgremove -ff vg1 >/dev/null 2>&1
lvm_b vgremove -ff vg1 >/dev/null 2>&1
done_testing
