#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0989-duplicate-vgid: two VGs that share a VG UUID, as LVM2's test duplicate-vgid
# makes them: a PV's first MiB copied to another device (a cloned disk), the copy
# renamed (vgrename) and given a new PV UUID (pvchange -u) while the original is not
# seen, then both seen.  LVM2 lists both VGs, each under its name with the shared
# UUID, and changes each alone (lvremove, lvcreate, vgchange -u, vgremove); a commit
# of one must not take the other's PV for an outdated PV of its own (that would wipe
# the other VG's metadata).  lvx on two loop devices and LVM2 on two others run the
# same steps; their outputs (names, exit codes, which UUIDs match) are compared, and
# LVM2 reads lvx's devices at the end.  The copy being renamed while the original is
# not seen stays one VG when both copies list each other's PVs (a rename that reached
# only some PVs: the newer text wins), checked at the end.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_loop
need_cmd lvm
need_lvx
plan_later

for i in 1 2 3 4; do
    d=$(make_loop 32M) || { _tap_result 1 "loop devices"; done_testing; }
    eval "D$i=$d"
done
lvm_sandbox "$D1" "$D2" "$D3" "$D4"

# run_steps TOOL A B PREFIX: the test's steps; one line per step in $SCRATCH/TOOL.out
run_steps() {
    local t=$1 a=$2 b=$3 p=$4 out=$SCRATCH/$1.out u1 u2
    T() { "$t" "$@" >>"$SCRATCH/$t.log" 2>&1; echo "$? $*" | sed "s|$a|A|g; s|$b|B|g; s|${p}|VG|g" >>"$out"; }
    : >"$out"
    T pvcreate -q "$a" "$b" --devices "$a,$b"
    T vgcreate -q "${p}1" "$a" --devices "$a,$b"
    T vgchange --setautoactivation n "${p}1" --devices "$a,$b"
    u1=$("$t" vgs --noheadings -o vg_uuid "${p}1" --devices "$a,$b" 2>/dev/null | tr -d ' ')
    T lvcreate -q -l1 -an -Zn -n lv1 "${p}1" --devices "$a,$b"
    dd if="$a" of="$b" bs=1M count=1 oflag=direct status=none
    T vgrename "${p}1" "${p}2" --devices "$b"
    T pvchange -q -u "$b" --devices "$b"
    "$t" vgs --noheadings -o vg_name,vg_uuid --devices "$a,$b" 2>/dev/null |
        awk -v u="$u1" -v p="$p" '{ sub("^" p, "VG", $1); print "vgs:", $1, ($2 == u ? "UUID1" : "other") }' >>"$out"
    T vgs "${p}1" --devices "$a,$b"
    T vgs "${p}2" --devices "$a,$b"
    T lvs "${p}1/lv1" --devices "$a,$b"
    T lvs "${p}2/lv1" --devices "$a,$b"
    T lvremove -q -y "${p}1/lv1" --devices "$a,$b"
    T lvremove -q -y "${p}2/lv1" --devices "$a,$b"
    T lvcreate -q -l1 -an -Zn -n lv2 "${p}1" --devices "$a,$b"
    T lvcreate -q -l1 -an -Zn -n lv3 "${p}2" --devices "$a,$b"
    T vgchange -q -u "${p}2" --devices "$a,$b"
    u2=$("$t" vgs --noheadings -o vg_uuid "${p}2" --devices "$a,$b" 2>/dev/null | tr -d ' ')
    echo "vg1 uuid: $([[ $("$t" vgs --noheadings -o vg_uuid "${p}1" --devices "$a,$b" 2>/dev/null | tr -d ' ') == "$u1" ]] && echo UUID1 || echo other)" >>"$out"
    echo "vg2 uuid: $([[ $u2 == "$u1" ]] && echo UUID1 || echo other)" >>"$out"
    "$t" lvs --noheadings -o vg_name,lv_name --devices "$a,$b" 2>/dev/null | sed "s|$p|VG|" | sort >>"$out"
}

run_steps lvx "$D1" "$D2" vx
run_steps lvm2 "$D3" "$D4" vl
diag "$(cat "$SCRATCH/lvx.out")"
test_eq "lvx: the steps' exit codes and listings equal LVM2's" "$(cat "$SCRATCH/lvx.out")" "$(cat "$SCRATCH/lvm2.out")"
test_ok "... lvx listed both VGs with the shared UUID" grep -qx "vgs: VG1 UUID1" "$SCRATCH/lvx.out"
test_ok "... and VG2 with it" grep -qx "vgs: VG2 UUID1" "$SCRATCH/lvx.out"
test_eq "LVM2 reads lvx's devices: both VGs, their LVs" \
    "$(lvm2 lvs --noheadings -o vg_name,lv_name --devices "$D1,$D2" 2>/dev/null | tr -s ' ' | sort)" \
    "$(lvx lvs --noheadings -o vg_name,lv_name --devices "$D1,$D2" 2>/dev/null | tr -s ' ' | sort)"
test_ok "LVM2's vgck accepts both of lvx's VGs" sh -c \
    "LVM_SYSTEM_DIR=$SCRATCH/lvm lvm vgck vx1 --devices $D1,$D2 && LVM_SYSTEM_DIR=$SCRATCH/lvm lvm vgck vx2 --devices $D1,$D2"
lvx vgremove -q -ff vx1 vx2 --devices "$D1,$D2" >/dev/null 2>&1
lvm2 vgremove -q -ff vl1 vl2 --devices "$D3,$D4" >/dev/null 2>&1

# ---- a rename that reached one PV of two: one VG, the newer name
test_ok "lvx: vgcreate vx3 over two PVs, an LV" sh -c \
    "'$LVX' pvcreate -q -ff -y $D1 $D2 --devices $D1,$D2 && '$LVX' vgcreate -q vx3 $D1 $D2 --devices $D1,$D2 &&
     '$LVX' lvcreate -q -an -Zn -l1 -n keep vx3 --devices $D1,$D2"
# The old text goes back on the device LVM2 scans first (the lower loop number): LVM2
# then takes the newer name, as lvx does whatever the order; with the old text on the
# device it scans last LVM2 answers with the old name (seen when another user of the
# machine's loop devices gave D1 the higher number; lvx's answer does not change).
OLD=$D1
[[ ${D2#/dev/loop} -lt ${D1#/dev/loop} ]] && OLD=$D2
dd if="$OLD" of="$SCRATCH/old.head" bs=1M count=1 iflag=direct status=none
test_ok "vgrename vx3 vx4" lvx vgrename -q vx3 vx4 --devices "$D1,$D2"
dd if="$SCRATCH/old.head" of="$OLD" bs=1M count=1 oflag=direct conv=notrunc status=none   # the old text back
test_eq "... with the old name back on one PV: one VG, vx4 (the newer text)" \
    "$(lvx vgs --noheadings -o vg_name --devices "$D1,$D2" 2>/dev/null | tr -d ' ')" vx4
test_eq "... LVM2 sees the same" "$(lvm2 vgs --noheadings -o vg_name --devices "$D1,$D2" 2>/dev/null | tr -d ' ')" vx4
test_ok "... lvcreate in vx4 (a commit) repairs the PV with the old text" lvx lvcreate -q -an -Zn -l1 -n more vx4 --devices "$D1,$D2"
test_eq "... both LVs listed" "$(lvx lvs --noheadings -o lv_name vx4 --devices "$D1,$D2" 2>/dev/null | tr -d ' ' | sort | tr '\n' ' ')" "keep more "
lvx vgremove -q -ff vx4 --devices "$D1,$D2" >/dev/null 2>&1
done_testing
