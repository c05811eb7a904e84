#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1095-mirror-log-placement: where lvcreate --type mirror puts the disk log
# (NAME_mlog), as LVM2 2.03.16.  LVM2's lvcreate allocates the images first and the log
# afterwards, the same way as `lvconvert --mirrorlog disk` of a core-log mirror adds
# one (add_mirror_log: a log-only allocation with the images' PVs as parallel areas).
# LVM2 makes no mirror without device-mapper (the host has none) but converts inactive
# ones, so each case runs on twin VGs: side A is lvx's `lvcreate --type mirror ARGS`,
# side B lvx's `lvcreate --type mirror ARGS --mirrorlog core` (the images: the same as
# LVM2's) then LVM2's `lvconvert --mirrorlog disk` (with the same --alloc and PVs).
# Layouts: `lvs -a -o name,devices,seg_pe_ranges`, PVs named D0..D3.  Cases: 2-4 PVs of
# equal and of different sizes, -m1/-m2, partially used PVs, named PVs, --alloc
# anywhere/normal/cling, a PV with two 1-extent holes (the log in the later), beside a core-log mirror made longer by lvextend, --mirrorlog
# mirrored.  Then lvconvert by lvx (side A) and LVM2 (side B): --mirrorlog disk|mirrored
# of a core-log mirror, --type mirror [-m2] --mirrorlog disk of a linear LV (images and
# log allocated at once).  LVM2 asks each candidate PV for the same amount and takes
# the last candidate for the log; lvx took the candidate with the largest free area
# (the earlier on a tie), and lvcreate placed the log as if allocated with the images.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/lv_twin.sh
. "$LVX_ROOT/tests/tools/lv_twin.sh"

need_loop
need_cmd lvm
need_lvx
plan_later
VG=vgmlp$$
TWIN_VG=$VG
TWIN_A=()
TWIN_B=()
for i in 0 1 2 3; do TWIN_A+=("$(make_loop 64M)"); done
for i in 0 1 2 3; do TWIN_B+=("$(make_loop 64M)"); done
[[ ${#TWIN_A[@]} == 4 && ${#TWIN_B[@]} == 4 ]] || { _tap_result 1 "8 loop devices"; done_testing; }
_twin_sandbox "$SCRATCH/twin_a" "${TWIN_A[@]}"
_twin_sandbox "$SCRATCH/twin_b" "${TWIN_B[@]}"
C=(--config "global/activation=1 global/support_mirrored_mirror_log=1")
MLOG=global/support_mirrored_mirror_log=1

# mkpvs SIZE...: the four PVs on each side made again with these sizes (one: all).
mkpvs() {
    local i ok=0 s=("$@")
    for i in 0 1 2 3; do
        lvm_a pvcreate -q -ff -y --setphysicalvolumesize "${s[$i]:-$1}" "${TWIN_A[$i]}" >/dev/null 2>&1 || ok=1
        lvm_b pvcreate -q -ff -y --setphysicalvolumesize "${s[$i]:-$1}" "${TWIN_B[$i]}" >/dev/null 2>&1 || ok=1
    done
    return $ok
}

layout() {  # layout a|b
    "lvm_$1" lvs -a --noheadings -o name,devices,seg_pe_ranges "$VG" 2>/dev/null |
        sed -e 's/^ *//' -e 's/ *$//' -e 's/  */ /g' -e "$(_twin_sed "$1")" | sort | paste -sd'|'
}

# expect N SIZES SETUP ARGS [PVS]: the VG over the first N PVs (made with SIZES, one
# or four), SETUP (";"-separated lvx commands, %VG for the VG, %N for PV N) on both sides,
# then lvx's lvcreate --type mirror ARGS -n m VG PVS on side A, LVM2's layout on side B.
expect() {
    local n=$1 sizes=$2 setup=$3 args=$4 pvl=${5:-} side cmd xa xb alloc=() log=(--mirrorlog disk)
    # shellcheck disable=SC2086  # lists split on purpose
    mkpvs $sizes || { _tap_result 1 "pvcreate $sizes"; return; }
    lvm_a vgcreate -q "$VG" "${TWIN_A[@]:0:n}" >/dev/null 2>&1
    lvm_b vgcreate -q "$VG" "${TWIN_B[@]:0:n}" >/dev/null 2>&1
    [[ $args =~ --alloc\ ([a-z]+) ]] && alloc=(--alloc "${BASH_REMATCH[1]}")
    [[ $args == *"--mirrorlog mirrored"* ]] && log=(--config "$MLOG" --mirrorlog mirrored)
    for side in a b; do
        IFS=';' read -ra cmds <<<"$setup"
        for cmd in "${cmds[@]}"; do
            [[ -n $cmd ]] || continue
            cmd=${cmd//%VG/$VG}
            # shellcheck disable=SC2046,SC2086
            "lvx_$side" ${cmd%% *} "${C[@]}" $(twin_args "$side" ${cmd#* } | tr '\0' ' ') >/dev/null 2>&1
        done
    done
    # shellcheck disable=SC2046,SC2086
    lvx_a lvcreate "${C[@]}" -an -Zn --type mirror $args -n m "$VG" \
        $(twin_args a $pvl | tr '\0' ' ') >"$SCRATCH/a.out" 2>&1
    xa=$(layout a)
    # shellcheck disable=SC2046,SC2086
    if [[ $args == *"--mirrorlog core"* ]] ||
        lvx_b lvcreate "${C[@]}" -an -Zn --type mirror ${args/--mirrorlog mirrored/} --mirrorlog core -n m "$VG" \
            $(twin_args b $pvl | tr '\0' ' ') >"$SCRATCH/b.out" 2>&1 &&
        lvm_b lvconvert -y "${alloc[@]}" "${log[@]}" "$VG/m" \
            $(twin_args b $pvl | tr '\0' ' ') >>"$SCRATCH/b.out" 2>&1; then
        xb=$(layout b)
    else
        xb="LVM2 failed: $(cat "$SCRATCH/b.out")"
    fi
    lvm_a vgremove -q -ff "$VG" >/dev/null 2>&1
    lvm_b vgremove -q -ff "$VG" >/dev/null 2>&1
    test_eq "$n PVs ($sizes) ${setup:+after $setup: }$args${pvl:+ $pvl}: the log where LVM2 puts it" "$xa" "$xb"
}

# conv N SIZES SETUP ARGS: as expect, then lvconvert -y ARGS VG/m by lvx on side A, by
# LVM2 on side B (SETUP makes m).
conv() {
    local n=$1 sizes=$2 setup=$3 args=$4 side cmd xa xb
    # shellcheck disable=SC2086  # lists split on purpose
    mkpvs $sizes || { _tap_result 1 "pvcreate $sizes"; return; }
    lvm_a vgcreate -q "$VG" "${TWIN_A[@]:0:n}" >/dev/null 2>&1
    lvm_b vgcreate -q "$VG" "${TWIN_B[@]:0:n}" >/dev/null 2>&1
    for side in a b; do
        IFS=';' read -ra cmds <<<"$setup"
        for cmd in "${cmds[@]}"; do
            cmd=${cmd//%VG/$VG}
            # shellcheck disable=SC2046,SC2086
            "lvx_$side" ${cmd%% *} "${C[@]}" $(twin_args "$side" ${cmd#* } | tr '\0' ' ') >/dev/null 2>&1
        done
    done
    # shellcheck disable=SC2086
    lvx_a lvconvert -y $args "$VG/m" >/dev/null 2>&1
    # shellcheck disable=SC2086
    lvm_b lvconvert -y $args "$VG/m" >/dev/null 2>&1
    xa=$(layout a)
    xb=$(layout b)
    lvm_a vgremove -q -ff "$VG" >/dev/null 2>&1
    lvm_b vgremove -q -ff "$VG" >/dev/null 2>&1
    test_eq "$n PVs ($sizes) after $setup: lvconvert $args: the layout LVM2's" "$xa" "$xb"
}

expect 2 64M "" "-m1 -L8m"
expect 3 64M "" "-m1 -L8m"
expect 4 64M "" "-m1 -L8m"
expect 4 64M "" "-m2 -L8m"
expect 3 64M "" "-m2 -L8m"
expect 4 "40M 64M 48M 56M" "" "-m1 -L8m"
expect 4 "40M 64M 48M 56M" "" "-m2 -L12m"
expect 3 "56M 40M 48M" "" "-m1 -L8m"
expect 4 "64M 40M 48M 44M" "" "-m1 -L20m"
expect 4 64M "lvcreate -an -L8m -n f0 %VG %2;lvcreate -an -L4m -n f1 %VG %3" "-m1 -L8m"
expect 4 64M "lvcreate -an -L40m -n f0 %VG %2;lvcreate -an -L4m -n f1 %VG %2;lvremove -y %VG/f0" "-m1 -L8m"
expect 4 64M "lvcreate -an -L8m -n f0 %VG %0;lvcreate -an -L8m -n f1 %VG %0;lvcreate -an -L8m -n f2 %VG %3;lvremove -y %VG/f0" "-m1 -L8m"
HOLES="lvcreate -an -L4m -n f0 %VG %2;lvcreate -an -L4m -n f1 %VG %2;lvcreate -an -L4m -n f2 %VG %2"
HOLES+=";lvcreate -an -L4m -n f3 %VG %2;lvremove -y %VG/f0;lvremove -y %VG/f2"
expect 3 64M "$HOLES" "-m1 -L8m"
expect 4 64M "" "-m1 -L8m" "%0 %1 %3"
expect 4 "40M 64M 48M 56M" "" "-m1 -L8m" "%1 %2 %3"
expect 3 64M "" "-m1 -L8m --alloc anywhere"
expect 2 64M "" "-m1 -L8m --alloc anywhere"
expect 4 "40M 64M 48M 56M" "" "-m1 -L8m --alloc normal"
expect 4 "40M 64M 48M 56M" "" "-m1 -L8m --alloc cling"
expect 4 64M "lvcreate -an -L8m -n f0 %VG %3" "-m1 -L8m --alloc cling"
expect 4 64M "lvcreate -an --type mirror -m1 --mirrorlog core -L8m -n f0 %VG;lvextend -L16m %VG/f0" "-m1 -L8m"
expect 4 64M "" "-m1 -L8m --mirrorlog mirrored"
expect 4 "40M 64M 48M 56M" "" "-m1 -L8m --mirrorlog mirrored"

CORE="lvcreate -an --type mirror --mirrorlog core"
conv 4 64M "$CORE -m1 -L8m -n m %VG" "--mirrorlog disk"
conv 4 "40M 64M 48M 56M" "$CORE -m1 -L8m -n m %VG" "--mirrorlog disk"
conv 4 64M "$CORE -m1 -L8m -n m %VG;lvcreate -an -L8m -n f0 %VG %3" "--mirrorlog disk"
conv 4 64M "lvcreate -an -L8m -n m %VG" "--type mirror -m1 --mirrorlog disk"
conv 4 "40M 64M 48M 56M" "lvcreate -an -L8m -n m %VG" "--type mirror -m1 --mirrorlog disk"
conv 3 64M "lvcreate -an -L8m -n m %VG" "--type mirror -m2 --mirrorlog disk"
conv 3 64M "lvcreate -an -L4m -n m %VG %0;$HOLES" "--type mirror -m1 --mirrorlog disk"
conv 4 64M "$CORE -m1 -L8m -n m %VG" "--config $MLOG --mirrorlog mirrored"

done_testing
