#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0681-vg-surgery-crash: every device write of lvx's vgsplit and vgmerge is a crash
# point (LVX_TEST_CRASH_AFTER_WRITE, the I/O seam of docs/design.md).  VG vgsa on four
# loop devices (l1 on D0, l2 striped over D0+D1, l3 on D2, l4 on D3, made by LVM2);
# `vgsplit vgsa vgsb D2 D3` runs once with LVX_TEST_IO_LOG to count its writes W, then
# for every k in 1..W from the saved images: lvx crashes after write k (exit 99), and
# lvx's and LVM2's `vgs` (name, attr, #PV, #LV) must show one of LVM2's states of a
# vgsplit (docs/design.md "VG surgery"):
#   old       vgsa 4 PVs 4 LVs
#   exported  vgsa 4 PVs 4 LVs and vgsb exported with 2 PVs 2 LVs (after the first commit)
#   split     vgsa 2 PVs 2 LVs and vgsb exported (after the second)
#   new       vgsa and vgsb, 2 PVs and 2 LVs each, none exported
# and the states must come in that order as k grows.  The same for `vgmerge vgsa vgsb`
# from the split VGs, whose states are: old (two VGs) and new (vgsa 4 PVs 4 LVs); a crash
# between the first and the last commit-slot write may also leave both (LVM2's window,
# docs/design.md): counted, reported as TODO, not as a failure.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_loop
need_cmd lvm dd "$PYTHON"
need_lvx
plan_later

D=()
for _ in 0 1 2 3; do D+=("$(make_loop 16M)"); done
lvm_sandbox "${D[@]}"
DEVS=$(IFS=,; echo "${D[*]}")
X() { "$LVX" "$@" --devices "$DEVS"; }

lvm2 vgcreate -s 1m vgsa "${D[@]}" >/dev/null 2>&1 &&
lvm2 lvcreate -an -Zn -n l1 -l 4 vgsa "${D[0]}" >/dev/null 2>&1 &&
lvm2 lvcreate -an -Zn -n l2 -l 4 -i 2 vgsa "${D[0]}" "${D[1]}" >/dev/null 2>&1 &&
lvm2 lvcreate -an -Zn -n l3 -l 4 vgsa "${D[2]}" >/dev/null 2>&1 &&
lvm2 lvcreate -an -Zn -n l4 -l 4 vgsa "${D[3]}" >/dev/null 2>&1 ||
    { _tap_result 1 "set up vgsa"; done_testing; }

save() { local i; for i in 0 1 2 3; do dd if="${D[$i]}" of="$SCRATCH/$1.$i" bs=1M status=none; done; }
restore() {
    local i
    for i in 0 1 2 3; do dd if="$SCRATCH/$1.$i" of="${D[$i]}" bs=1M status=none conv=fsync; done
}

# state TOOL: the VGs as "name attr #pv #lv" lines, sorted, joined with ';'
state() {
    if [[ $1 == lvx ]]; then
        X vgs --noheadings -o vg_name,vg_attr,pv_count,lv_count 2>/dev/null
    else
        lvm2 vgs --noheadings -o vg_name,vg_attr,pv_count,lv_count 2>/dev/null
    fi | tr -s ' ' | sed 's/^ //' | sort | paste -sd ';'
}

# crash_loop NAME "STATE=VGS ..." ARGS...: the crash points of one command
crash_loop() {
    local name=$1 states=$2 log=$SCRATCH/$1.iolog rc=0 w k sx sl label rank last=0 r
    shift 2
    save "$name.before"
    LVX_TEST_IO_LOG="$log" X "$@" >"$SCRATCH/out" 2>"$SCRATCH/err" || rc=$?
    w=$(grep -c '^write ' "$log" || true)
    test_eq "$name: clean run ($w device writes)" "$rc" 0
    for ((k = 1; k <= w; k++)); do
        restore "$name.before"
        rc=0
        LVX_TEST_CRASH_AFTER_WRITE=$k X "$@" >"$SCRATCH/out" 2>"$SCRATCH/err" || rc=$?
        sx=$(state lvx)
        sl=$(state lvm2)
        label="" rank=0 r=0
        for st in $states; do
            r=$((r + 1))
            if [[ ${st#*=} == "${sx// /_}" ]]; then label=${st%%=*}; rank=$r; fi
        done
        if [[ $rc != 99 ]]; then
            _tap_result 1 "$name: crash after write $k/$w"
            diag "exit status $rc, expected 99"
        elif [[ $sx != "$sl" ]]; then
            _tap_result 1 "$name: crash after write $k/$w: lvx and LVM2 read the same"
            diag "lvx:  $sx" "LVM2: $sl"
        elif [[ -z $label ]]; then
            _tap_result 1 "$name: crash after write $k/$w: one of LVM2's states"
            diag "state: $sx"
        elif [[ $rank -lt $last ]]; then
            _tap_result 1 "$name: crash after write $k/$w: states in order"
            diag "state $label after a later one"
        elif [[ $label == both ]]; then
            _T_NUM=$((_T_NUM + 1))
            printf 'not ok %d - %s: crash after write %d/%d: %s # TODO both VGs claim the merged PVs (LVM2 has this window too)\n' \
                "$_T_NUM" "$name" "$k" "$w" "$sx"
            last=$rank
        else
            _tap_result 0 "$name: crash after write $k/$w: lvx and LVM2 read the $label state"
            last=$rank
        fi
    done
    restore "$name.before"
}

crash_loop vgsplit "old=vgsa_wz--n-_4_4 exported=vgsa_wz--n-_4_4;vgsb_wzx-n-_2_2 split=vgsa_wz--n-_2_2;vgsb_wzx-n-_2_2 new=vgsa_wz--n-_2_2;vgsb_wz--n-_2_2" \
    vgsplit vgsa vgsb "${D[2]}" "${D[3]}"
X vgsplit vgsa vgsb "${D[2]}" "${D[3]}" >/dev/null 2>&1
test_eq "vgsplit done" "$(state lvm2)" "vgsa wz--n- 2 2;vgsb wz--n- 2 2"
crash_loop vgmerge "old=vgsa_wz--n-_2_2;vgsb_wz--n-_2_2 both=vgsa_wz--n-_4_4;vgsb_wz--n-_2_2 new=vgsa_wz--n-_4_4" \
    vgmerge vgsa vgsb

done_testing
