#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0683-exported-activation: an exported VG is neither activated nor deactivated
# (LVM2's shell/exported): lvchange -ay/-an VG and VG/LV and vgchange -ay refused with
# LVM2's "Volume group X is exported", exit 5, compared with LVM2 on the same device;
# after vgimport the same commands work again.  The read commands that do not read
# exported VGs (lvs, lvdisplay, lvscan, vgck) refuse one named and leave it out of a
# listing of everything, beside a second VG that is not exported; vgs, pvs, vgdisplay
# and fullreport show it.  Commands that LVM2 lets skip an exported VG not named (LVM2's
# shell/exported): vgchange -ay / --addtag / --monitor and lvchange -ay --select /
# vgremove --select without names leave it alone (exit 0), named it is refused;
# pvscan --cache -aay of its PV says "ignore exported VG"; vgrename renames it.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/side.sh"

VG=vgex$$
side_setup 2
lvm2 pvcreate -q "${D[0]}" "${D[1]}" >/dev/null 2>&1
lvm2 vgcreate -q "$VG" "${D[0]}" >/dev/null 2>&1
lvm2 vgcreate -q "${VG}b" "${D[1]}" >/dev/null 2>&1
lvm2 lvcreate -q -an -n lv -L 8m "$VG" >/dev/null 2>&1
lvm2 lvcreate -q -an -n lvb -L 8m "${VG}b" >/dev/null 2>&1
lvm2 vgexport "$VG" >/dev/null 2>&1
test_eq "LVM2 exported the VG" "x" "$(lvm2 vgs --noheadings -o vg_attr "$VG" 2>/dev/null | tr -d ' ' | cut -c3)"
same "lvchange -ay VG" lvchange -ay "$VG"
same "lvchange -ay VG/LV" lvchange -ay "$VG/lv"
same "lvchange -an VG/LV" lvchange -an "$VG/lv"
same "vgchange -ay VG" vgchange -ay "$VG"
same "vgchange -an VG" vgchange -an "$VG"
same "lvs VG: refused" lvs "$VG"
same "lvs VG/LV: refused" lvs "$VG/lv"
same "lvs VG VG2: VG refused, VG2 listed" lvs "$VG" "${VG}b"
same "lvs: the exported VG left out" lvs
same "lvdisplay VG: refused" lvdisplay "$VG"
same "lvdisplay -c: the exported VG left out" lvdisplay -c
same "lvscan: the exported VG left out" lvscan
same "vgck VG: refused" vgck "$VG"
same "vgs VG: shown" vgs "$VG"
same "pvs: shown" pvs
same "vgdisplay -c VG: shown" vgdisplay -c "$VG"
same "vgchange --monitor y VG: refused" vgchange --monitor y "$VG"
same "vgchange --monitor y: the exported VG left out" vgchange --monitor y
same "lvchange --monitor n VG/LV: refused" lvchange --monitor n "$VG/lv"
same "vgchange -ay: the exported VG left out" vgchange -ay
same "lvchange -ay --select: the exported VG left out" lvchange -ay --select lvname=lv
same "vgremove --select: the exported VG left out" vgremove --select "vgname=$VG"
same "pvscan --cache -aay PV: ignore exported VG" pvscan --cache -aay "${D[0]}"
rc=0
lvx vgchange --addtag t683 >/dev/null 2>&1 || rc=$?
test_eq "vgchange --addtag (no VG named): exit 0" "$rc" 0
test_eq "... the other VG tagged, the exported one not" \
    "$(lvm2 vgs --noheadings -o vg_name,vg_tags "$VG" "${VG}b" 2>/dev/null | tr -s ' ' | sed 's/ $//' | paste -sd,)" \
    " $VG, ${VG}b t683"
rc=0
lvx vgrename "$VG" "${VG}r" >/dev/null 2>&1 || rc=$?
test_eq "vgrename of the exported VG: exit 0 (as LVM2)" "$rc" 0
test_eq "... LVM2 reads the new name, still exported" \
    "$(lvm2 vgs --noheadings -o vg_attr "${VG}r" 2>/dev/null | tr -d ' ' | cut -c3)" x
lvx vgrename "${VG}r" "$VG" >/dev/null 2>&1
lvm2 vgimport "$VG" >/dev/null 2>&1
rc=0
lvx lvchange -an "$VG/lv" >/dev/null 2>&1 || rc=$?
test_eq "after vgimport: lvchange -an works" 0 "$rc"
lvm2 vgremove -q -f "$VG" "${VG}b" >/dev/null 2>&1
done_testing
