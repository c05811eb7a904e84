#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1122-mirror-layer-removemissing: vgreduce --removemissing --force of a mirror LVM2
# left CONVERTING (its NAME_mimagetmp_N resync layer: a 3-image mirror given a 4th
# image with `lvconvert -m+1` while inactive, as LVM2's mirror-vgreduce-removemissing.sh
# test_3way_mirror_plus_1_fail_1_ does) that lost one image's PV, each of the four in
# turn: lvx on side A, LVM2 on side B of twin VGs (tests/tools/lv_twin.sh), the same
# exit code, lines and metadata.  LVM2 takes the failed image out inside the layer
# (remove_mirror_images goes down to the temporary mirror); lvx took the whole layer
# out when an image under it was lost, the mirror left linear on the new image and the
# layer's other images and log left behind in the metadata (LVM2's test then failed on
# "duplicate logical volume name LV1_mimage_1").  Every image but one lost (LVM2's
# test_3way_mirror_plus_1_fail_3_): LVM2 leaves the LV linear on the survivor; lvx said
# "No usable images left" and REMOVED the LV (its survivor under the layer was not
# counted).  Also the new image with one under the layer, and with the log.  25 of the
# 32 checks fail on the code before this session's fixes (e0f13f2d^).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/lv_twin.sh
. "$LVX_ROOT/tests/tools/lv_twin.sh"

twin_begin 5 64M vg1
C=(--config "global/activation=1")
out() {  # out SIDE FILE: without the sandbox's noise, the missing-device lines, PV uuids
    sandbox_noise <"$2" | grep -v "Couldn't find device with uuid" |
        sed -E 's/PV [-A-Za-z0-9]{38}/PV UUID/' | sed "$(_twin_sed "$1")"
}
# lost DESC N...: the layered mirror made anew on both sides, the PVs of images N...
# (0-3: D0-D3) lost, vgreduce --removemissing --force on each side, compared; then the
# PVs back, wiped and in the VG again
lost() {
    local desc=$1 side k i rca=0 rcb=0
    shift
    for side in a b; do
        if [[ ${LAYOUT:-3+1} == 3+1 ]]; then
            # images on D0 D1 D2, log on D4, then LVM2's layer with a 4th image on D3
            twin_on $side lvx lvcreate "${C[@]}" -an -Zn --type mirror -m2 -l2 -n m vg1 %0 %1 %2 %4 \
                >/dev/null 2>&1
            twin_on $side lvm lvconvert -m+1 vg1/m %3 >/dev/null 2>&1
        else
            # images on D0 D1, log on D4, then LVM2's layer with two images on D2 D3
            twin_on $side lvx lvcreate "${C[@]}" -an -Zn --type mirror -m1 -l2 -n m vg1 %0 %1 %4 \
                >/dev/null 2>&1
            twin_on $side lvm lvconvert -m+2 vg1/m %2 %3 >/dev/null 2>&1
        fi
    done
    test_eq "$desc: the same layered mirror on both sides" "$(twin_meta a)" "$(twin_meta b)"
    for side in a b; do
        local -n devs="TWIN_${side^^}"
        cp "$SCRATCH/twin_$side/lvm.conf" "$SCRATCH/twin_$side/lvm.conf.all"
        for k in "$@"; do sed -i -e "s#\"a|^${devs[$k]}\\\$|\", ##" "$SCRATCH/twin_$side/lvm.conf"; done
    done
    LEFT_A=()
    for ((i = 0; i < 5; i++)); do [[ " $* " == *" $i "* ]] || LEFT_A+=("${TWIN_A[$i]}"); done
    lvx_a() { LVM_SYSTEM_DIR="$SCRATCH/twin_a" "$LVX" "$@" --devices "$(IFS=,; echo "${LEFT_A[*]}")"; }
    lvx_a vgreduce --removemissing --force vg1 >"$SCRATCH/a.out" 2>&1 || rca=$?
    lvm_b vgreduce --removemissing --force vg1 >"$SCRATCH/b.out" 2>&1 || rcb=$?
    diag "LVM2: $(out b "$SCRATCH/b.out")"
    test_eq "$desc: vgreduce --removemissing --force: exit code and lines as LVM2's" \
        "$rca $(out a "$SCRATCH/a.out")" "$rcb $(out b "$SCRATCH/b.out")"
    test_eq "$desc: metadata equal" "$(twin_meta a)" "$(twin_meta b)"
    test_eq "$desc: no LV of the mirror left outside it (LVM2's lvs -a on lvx's side)" \
        "$(lvm_a lvs -a --noheadings -o lv_name,lv_parent vg1 2>/dev/null | awk 'NF == 1 && $1 != "m"' | wc -l)" 0
    lvx_a() { LVM_SYSTEM_DIR="$SCRATCH/twin_a" "$LVX" "$@" --devices "$(IFS=,; echo "${TWIN_A[*]}")"; }
    for side in a b; do   # the PVs back, their old metadata wiped, the VG whole again
        local -n devs="TWIN_${side^^}"
        mv "$SCRATCH/twin_$side/lvm.conf.all" "$SCRATCH/twin_$side/lvm.conf"
        twin_on $side lvm vgck --updatemetadata vg1 >/dev/null 2>&1
        twin_on $side lvm lvremove -ff vg1 >/dev/null 2>&1
        for k in "$@"; do
            twin_on $side lvm pvcreate -ff -y "${devs[$k]}" >/dev/null 2>&1
            twin_on $side lvm vgextend vg1 "${devs[$k]}" >/dev/null 2>&1
        done
    done
}
for n in 0 1 2 3; do lost "image $n lost" "$n"; done
# LVM2's test_3way_mirror_plus_1_fail_3_: every image but one lost, the LV linear on it
lost "images 1-3 lost" 1 2 3
lost "images 0, 2, 3 lost" 0 2 3
# the new image and one under the layer; the new image and the log
lost "images 0 and 3 lost" 0 3
lost "image 3 and the log lost" 3 4
# LVM2's test_2way_mirror_plus_2_fail_1_: a 2-image mirror given two images, one lost.
# The top's own images (2, 3) against LVM2 here; a lost image under the layer leaves
# the layer one image, which LVM2 collapses into the top with a new in-sync log (it
# cannot without device-mapper: "Unable to create in-sync mirror log while activation
# is disabled"), so those two are checked on lvx's side alone against what LVM2's
# test asserts in the guest: the three other images, the log on D4, nothing left over
LAYOUT=2+2
for n in 2 3; do lost "2+2, image $n lost" "$n"; done
for n in 0 1; do
    twin_on a lvx lvcreate "${C[@]}" -an -Zn --type mirror -m1 -l2 -n m vg1 %0 %1 %4 >/dev/null 2>&1
    twin_on a lvm lvconvert -m+2 vg1/m %2 %3 >/dev/null 2>&1
    cp "$SCRATCH/twin_a/lvm.conf" "$SCRATCH/twin_a/lvm.conf.all"
    sed -i -e "s#\"a|^${TWIN_A[$n]}\\\$|\", ##" "$SCRATCH/twin_a/lvm.conf"
    LEFT_A=()
    for ((i = 0; i < 5; i++)); do ((i == n)) || LEFT_A+=("${TWIN_A[$i]}"); done
    lvx_a() { LVM_SYSTEM_DIR="$SCRATCH/twin_a" "$LVX" "$@" --devices "$(IFS=,; echo "${LEFT_A[*]}")"; }
    rc=0
    lvx_a vgreduce --removemissing --force vg1 >"$SCRATCH/a.out" 2>&1 || rc=$?
    diag "lvx: $(out a "$SCRATCH/a.out")"
    want=""
    for ((i = 0; i < 4; i++)); do ((i == n)) || want+="D$i "; done
    imgs=$(lvm_a lvs -a --noheadings -o lv_name,devices vg1 2>/dev/null | sed "$(_twin_sed a)" |
        awk '$1 ~ /mimage_[0-9]\]$/ { sub(/\(.*/, "", $2); print $2 }' | sort | xargs)
    log=$(lvm_a lvs -a --noheadings -o lv_name,devices vg1 2>/dev/null | sed "$(_twin_sed a)" |
        awk '$1 == "[m_mlog]" { sub(/\(.*/, "", $2); print $2 }')
    left=$(lvm_a lvs -a --noheadings -o lv_name,devices vg1 2>/dev/null | grep -c -e mimagetmp -e unknown)
    test_eq "2+2, image $n lost (lvx): exit 0, one mirror of the three others, log on D4, nothing left over" \
        "$rc $imgs | $log | $left" "0 ${want% } | D4 | 0"
    test_eq "2+2, image $n lost (lvx): LVM2's vgck passes on the result" \
        "$(lvm_a vgck vg1 >/dev/null 2>&1; echo $?)" 0
    mv "$SCRATCH/twin_a/lvm.conf.all" "$SCRATCH/twin_a/lvm.conf"
    lvx_a() { LVM_SYSTEM_DIR="$SCRATCH/twin_a" "$LVX" "$@" --devices "$(IFS=,; echo "${TWIN_A[*]}")"; }
    twin_on a lvm vgck --updatemetadata vg1 >/dev/null 2>&1
    twin_on a lvm lvremove -ff vg1 >/dev/null 2>&1
    twin_on a lvm pvcreate -ff -y "${TWIN_A[$n]}" >/dev/null 2>&1
    twin_on a lvm vgextend vg1 "${TWIN_A[$n]}" >/dev/null 2>&1
done
done_testing
