#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1012-named-filtered: a device named on the command line that lvm.conf's
# devices/global_filter (or devices/filter) rejects is refused as LVM2 2.03 refuses it,
# side by side: "Cannot use X: device is rejected by filter config" with LVM2's exit code
# and further lines, for pvcreate, pvremove, vgcreate, vgextend, pvchange, pvresize,
# pvdisplay, pvs and pvck, and nothing is written to it (lvx used to pvcreate it).  With
# --devices naming it, the filter does not apply (LVM2: --devices replaces the filters).
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/side.sh"

side_setup 2
plan_later
L=${D[0]} M=${D[1]}
VG=vgnf$$
dd if=/dev/zero of="$L" bs=1M count=1 oflag=direct status=none
sum0=$(head -c 1M "$L" | sha256sum)
GF=(--config "devices { global_filter = [ \"a|^$M\$|\", \"r|.*|\" ] }")
F=(--config "devices { filter = [ \"r|^$L\$|\" ] }")
lvm2 pvcreate -q "$M" >/dev/null 2>&1
lvm2 vgcreate -q "$VG" "$M" >/dev/null 2>&1
test_eq "LVM2 made $VG on $M" "$VG" "$(lvm2 vgs --noheadings -o vg_name "$VG" 2>/dev/null | tr -d ' ')"

for cmd in "pvcreate $L" "pvcreate -ff -y $L" "pvremove $L" "vgcreate vgnew$$ $L" \
    "vgcreate vgnew$$ $L $M" "vgextend $VG $L" "pvchange -x n $L" "pvresize $L" \
    "pvdisplay $L" "pvs $L" "pvck $L"; do
    # shellcheck disable=SC2086
    same "global_filter rejects $L: $cmd as LVM2" $cmd "${GF[@]}"
    test_eq "... LVM2 named the filter" "1" \
        "$(grep -c "Cannot use $L: device is rejected by filter config" "$SCRATCH/l.err")"
done
same "devices/filter rejects $L: pvcreate as LVM2" pvcreate "${F[@]}" "$L"
same "devices/filter rejects $L: vgextend as LVM2" vgextend "${F[@]}" "$VG" "$L"
test_eq "nothing was written to $L" "$sum0" "$(head -c 1M "$L" | sha256sum)"

# the filtered device named with --devices: no filter (both tools)
same "--devices $L: pvcreate as LVM2" pvcreate "${GF[@]}" --devices "$L" -q "$L"
test_eq "--devices $L: lvx made the PV (LVM2's label read)" "$L" \
    "$(lvm2 pvs --noheadings -o pv_name "$L" 2>/dev/null | tr -d ' ')"
lvm2 pvremove -q "$L" >/dev/null 2>&1

# -q and -qq as LVM2's: each tool makes and removes the PV in turn
for q in -q -qq; do
    l=$( (lvm2 pvcreate "$q" -ff -y "$L" 2>&1; lvm2 pvremove "$q" "$L" 2>&1) | side_filter)
    x=$(lvx pvcreate "$q" -ff -y "$L" 2>&1; lvx pvremove "$q" "$L" 2>&1)
    test_eq "pvcreate, pvremove $q: lvx prints what LVM2 prints" "$x" "$l"
done
test_eq "-q: LVM2 still said 'successfully created'" "1" \
    "$(lvm2 pvcreate -q "$L" 2>&1 | grep -c 'successfully created')"
lvm2 pvremove -q "$L" >/dev/null 2>&1
side --config "devices/scan_lvs=0" pvs
test_eq "options before the command: LVM2's line (its program name lvx)" \
    "$(cat "$SCRATCH/x.rc") $(cat "$SCRATCH/x.err")" \
    "$(cat "$SCRATCH/l.rc") $(sed 's/: lvm \[command\]/: lvx [command]/' "$SCRATCH/l.err")"
lvm2 vgremove -q -f "$VG" >/dev/null 2>&1
lvm2 pvremove -q "$M" >/dev/null 2>&1
done_testing
