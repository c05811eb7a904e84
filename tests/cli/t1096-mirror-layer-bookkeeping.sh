#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1096-mirror-layer-bookkeeping: commands on a mirror LVM2 left CONVERTING (its
# NAME_mimagetmp_N layer, docs/mirror-layer.md 1.5), against LVM2 on twin VGs
# (tests/tools/lv_twin.sh): the mirror made alike on both sides, then LVM2 (activation
# off) writes its layer on each with `lvconvert -m +1`; side A is then driven by lvx,
# side B by LVM2:
#   - lvextend, lvreduce, lvresize: LVM2's "Can't resize logical volume VG/LV while
#     lvconvert in progress.", exit 5;
#   - pvmove of a PV under it (an old image, the new image, the layer's log; with -n):
#     "Unable to pvmove when converting volume VG/LV is present.", exit 5;
#   - nothing written by the refusals (seqno);
#   - lvrename: the layer, its images and its log renamed as LVM2 renames them
#     (mirror-names.sh :148-152); LVM2 reads lvx's side as its own, its vgck is clean.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/lv_twin.sh
. "$LVX_ROOT/tests/tools/lv_twin.sh"

twin_begin 5 64M vg1
C=(--config "global/activation=1")
for side in a b; do
    twin_on $side lvx lvcreate "${C[@]}" -an -Zn --type mirror -m1 -L 8m -n m vg1 %0 %1 %2 \
        >/dev/null 2>&1
    twin_on $side lvm lvconvert -m +1 vg1/m %3 >/dev/null 2>&1
done
test_eq "LVM2 left its layer on side A: m over m_mimagetmp_2 and m_mimage_2" \
    "$(lvm_a lvs --noheadings -o devices vg1/m 2>/dev/null | tr -d ' ')" \
    "m_mimagetmp_2(0),m_mimage_2(0)"
test_eq "the same layered mirror on both sides" "$(twin_meta a)" "$(twin_meta b)"
seq0=$(lvm_a vgs --noheadings -o vg_seqno vg1 2>/dev/null | tr -d ' ')

twin_step "lvextend -L+4m of the converting m" lvextend -L+4m vg1/m
twin_step "lvreduce -f -L-4m" lvreduce -f -L-4m vg1/m
twin_step "lvresize -L12m" lvresize -L12m vg1/m
twin_step "pvmove of an old image's PV" pvmove %0
twin_step "pvmove of the new image's PV" pvmove %3
twin_step "pvmove of the layer's log's PV" pvmove %2
twin_step "pvmove -n m of the new image's PV" pvmove -n m %3
test_eq "... nothing written by the refusals (seqno $seq0)" \
    "$(lvm_a vgs --noheadings -o vg_seqno vg1 2>/dev/null | tr -d ' ')" "$seq0"

twin_step "lvrename vg1/m vg1/n" lvrename vg1/m vg1/n
L=lv_name,lv_attr,devices,mirror_log,convert_lv,lv_converting,lv_role,lv_parent
test_eq "lvs -a (LVM2 reads): lvx's rename as LVM2's own" \
    "$(lvm_a lvs -a --noheadings --separator " | " -o $L vg1 2>/dev/null | sed "$(_twin_sed a)")" \
    "$(lvm_b lvs -a --noheadings --separator " | " -o $L vg1 2>/dev/null | sed "$(_twin_sed b)")"
test_eq "... n_mimagetmp_2 over n_mimage_0, n_mimage_1 with n_mlog" \
    "$(lvm_a lvs -a --noheadings --separator / -o lv_name,devices,mirror_log vg1/n_mimagetmp_2 \
        2>/dev/null | tr -d ' ')" "[n_mimagetmp_2]/n_mimage_0(0),n_mimage_1(0)/[n_mlog]"
test_ok "LVM2's vgck of lvx's side" lvm_a vgck vg1
test_eq "lvx reports it as LVM2 does" \
    "$(lvx_a lvs -a --noheadings --separator " | " -o $L vg1 2>/dev/null | sed "$(_twin_sed a)" | sed 's/XX/--/')" \
    "$(lvm_b lvs -a --noheadings --separator " | " -o $L vg1 2>/dev/null | sed "$(_twin_sed b)" | sed 's/XX/--/')"

lvx_a vgremove -ff vg1 >/dev/null 2>&1
lvm_b vgremove -ff vg1 >/dev/null 2>&1
done_testing
