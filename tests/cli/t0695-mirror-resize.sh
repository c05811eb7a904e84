#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0695-mirror-resize: lvextend/lvreduce/lvresize of inactive old-style mirrors against
# LVM2 on twin VGs (tests/tools/lv_twin.sh; lvx makes the same mirrors on both sides,
# LVM2 resizes inactive mirrors on the host): every image grows or shrinks by the
# change, the log stays; "Extending N mirror images." unless -m is given;
# lvextend --type mirror -L+4 -m1 (LVM2's lvresize-usage line 55), a core-log mirror,
# a 3-image mirror, a mirror with a mirrored log, PV lists, and the refusals (no LV
# path, the same size, signed -m, another image count); lvcreate -m 0's note; lvdisplay
# -C with -m or -c, -c with -m refused (LVM2's listings line 152).  After
# each step: exit code,
# output and metadata text equal; LVM2's vgck accepts lvx's side at the end.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/lv_twin.sh
. "$LVX_ROOT/tests/tools/lv_twin.sh"

twin_begin 4 64M vg1
CS=(--config "global/activation=1 global/support_mirrored_mirror_log=1")
for side in a b; do
    for a in "-m1 -L4 -n lv1" "-m1 -L4 --corelog -n lv2" "-m2 -L4 -n lv3" \
             "-m1 -L4 --mirrorlog mirrored -n lv4" "-m1 -L8 -n lv5"; do
        # shellcheck disable=SC2086
        "lvx_$side" lvcreate "${CS[@]}" -an -Zn --type mirror $a vg1 >/dev/null 2>&1
    done
done
test_eq "the same mirrors made on both sides" "$(twin_meta a)" "$(twin_meta b)"

step() { twin_step "$@"; }
out() { twin_out "$@"; }

rca=0
rcb=0
lvx_a lvextend --type mirror -L 10 -n lv1 vg1 >/dev/null 2>&1 || rca=$?
lvm_b lvextend --type mirror -L 10 -n lv1 vg1 >/dev/null 2>&1 || rcb=$?
test_eq "lvextend --type mirror -n LV VG: refused with LVM2's exit code" "$rca" "$rcb"
step "lvextend to the same size: refused" lvextend --type mirror -L 4 vg1/lv1
step "lvextend -m-1: refused" lvextend --type mirror -L+2 -m-1 vg1/lv1
step "lvextend -m+1: refused" lvextend --type mirror -L+2 -m+1 vg1/lv1
step "lvextend -m2 of a 2-image mirror: refused" lvextend -L+4 -m2 vg1/lv1
step "lvextend --type mirror -L+4 -m1" lvextend --type mirror -L+4 -m1 vg1/lv1
step "lvextend of a core-log mirror" lvextend -L+8 vg1/lv2
step "lvextend of a 3-image mirror" lvextend -l+1 vg1/lv3
step "lvextend of a mirror with a mirrored log" lvextend -l+2 vg1/lv4
step "lvextend on named PVs" lvextend -l+1 vg1/lv5 %2 %3
step "lvreduce of a 3-image mirror" lvreduce -y -l-1 vg1/lv3
step "lvresize of a core-log mirror to 4m" lvresize -y -L4 vg1/lv2
step "lvresize -l+1 of a mirror" lvresize -l+1 vg1/lv1
step "lvcreate -m 0 of a linear LV: LVM2's note (lvcreate-usage line 142)" \
    lvcreate -an -Zn -m 0 -l1 -n lin vg1
step "lvdisplay -C -m: refused (listings line 152)" lvdisplay -C -m vg1
step "lvdisplay -C -c: refused" lvdisplay -C -c vg1
step "lvdisplay -c -m: refused" lvdisplay -c -m vg1
test_ok "LVM2's vgck accepts lvx's side" lvm_a vgck vg1

for side in a b; do "lvm_$side" vgremove -ff vg1 >/dev/null 2>&1; done
done_testing
