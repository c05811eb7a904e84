#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1100-lvpoll-convert: `lvx lvpoll --polloperation convert [-i [+]N] VG/LV`, LVM2's poll
# of a mirror conversion (cmd/mirror_poll.c), on the host (user backend) beside LVM2
# reading the same metadata: an LV not there ("Can't find LV in VG for VG/LV."), an
# inactive layered mirror LVM2 wrote ("VG/LV: Interrupted: No longer active."), both
# exit 0 and nothing written (lvconvert --startpoll too); -i +N waits N seconds before
# the first look; an active mirror in sync: "VG/LV: Converted: 100.00%", exit 0.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

VG=vgpc$$
uspace_test_loops "$VG" 4 32M
uspace_run_ok "pvcreate, vgcreate" sh -c "$LVX pvcreate ${DEVS[*]} && $LVX vgcreate $VG ${DEVS[*]}"
uspace_run_ok "mirrors m and k (-m1, 4 MiB, k inactive)" sh -c \
    "$LVX lvcreate -Zn --type mirror -m1 -L 4m -n m $VG ${DEVS[0]} ${DEVS[1]} ${DEVS[2]} &&
     $LVX lvcreate -an -Zn --type mirror -m1 -L 4m -n k $VG ${DEVS[0]} ${DEVS[1]} ${DEVS[2]}"
lvm2 lvconvert -m +1 "$VG/k" "${DEVS[3]}" >/dev/null 2>&1
test_eq "LVM2 left its layer under k" \
    "$(lvm2 lvs --noheadings -o devices "$VG/k" 2>/dev/null | tr -d ' ')" "k_mimagetmp_2(0),k_mimage_2(0)"
seq0=$(lvx vgs --noheadings -o vg_seqno "$VG" | tr -d ' ')
poll_both() {   # poll_both DESC ARGS...: lvx's and LVM2's lvpoll, exit status and output
    local desc=$1 ra=0 rb=0 oa ob
    shift
    oa=$(lvm2 lvpoll --polloperation convert "$@" 2>&1 | sandbox_noise; exit "${PIPESTATUS[0]}") || ra=$?
    ob=$(lvx lvpoll --polloperation convert "$@" 2>&1) || rb=$?
    test_eq "$desc: exit status and output as LVM2's" "$rb $ob" "$ra $oa"
}
poll_both "an LV not there" "$VG/zz"
poll_both "an inactive layered mirror" "$VG/k"
poll_both "the same by its /dev path, -i 1" -i 1 "/dev/$VG/k"
ra=0 rb=0
oa=$(lvm2 lvconvert --startpoll "$VG/k" 2>&1 | sandbox_noise | grep -v -e lvmpolld
     exit "${PIPESTATUS[0]}") || ra=$?
ob=$(lvx lvconvert --startpoll "$VG/k" 2>&1) || rb=$?
test_eq "lvconvert --startpoll of it: exit status and output as LVM2's" "$rb $ob" "$ra $oa"
test_eq "nothing written" "$(lvx vgs --noheadings -o vg_seqno "$VG" | tr -d ' ')" "$seq0"
t0=$SECONDS
out=$(lvx lvpoll --polloperation convert -i +2 "$VG/zz" 2>&1)
test_eq "-i +2: two seconds before the first look" "$((SECONDS - t0 >= 2)) $out" \
    "1   Can't find LV in $VG for $VG/zz."
rc=0; out=$(timeout 60 "$LVX" lvpoll --polloperation convert "$VG/m" 2>&1) || rc=$?
test_eq "an active mirror in sync: its 100% line, exit 0" "$rc $out" "0   $VG/m: Converted: 100.00%"
uspace_run_ok "deactivate" lvx vgchange -an "$VG"

done_testing
