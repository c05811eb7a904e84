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
# "duplicate logical volume name LV1_mimage_1"); 12 of the 16 checks fail before.
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
for n in 0 1 2 3; do
    for side in a b; do
        # images on D0 D1 D2, log on D4, then LVM2's layer with a 4th image on D3
        twin_on $side lvx lvcreate "${C[@]}" -an -Zn --type mirror -m2 -l2 -n m vg1 %0 %1 %2 %4 \
            >/dev/null 2>&1
        twin_on $side lvm lvconvert -m+1 vg1/m %3 >/dev/null 2>&1
    done
    test_eq "image $n: the same layered mirror on both sides" "$(twin_meta a)" "$(twin_meta b)"
    for side in a b; do
        if [[ $side == a ]]; then set -- "${TWIN_A[@]}"; else set -- "${TWIN_B[@]}"; fi
        cp "$SCRATCH/twin_$side/lvm.conf" "$SCRATCH/twin_$side/lvm.conf.all"
        shift "$n"
        sed -i -e "s#\"a|^$1\\\$|\", ##" "$SCRATCH/twin_$side/lvm.conf"
    done
    LEFT_A=()
    for ((i = 0; i < 5; i++)); do ((i == n)) || LEFT_A+=("${TWIN_A[$i]}"); done
    lvx_a() { LVM_SYSTEM_DIR="$SCRATCH/twin_a" "$LVX" "$@" --devices "$(IFS=,; echo "${LEFT_A[*]}")"; }
    rca=0 rcb=0
    lvx_a vgreduce --removemissing --force vg1 >"$SCRATCH/a.out" 2>&1 || rca=$?
    lvm_b vgreduce --removemissing --force vg1 >"$SCRATCH/b.out" 2>&1 || rcb=$?
    diag "LVM2: $(out b "$SCRATCH/b.out")"
    test_eq "image $n lost: vgreduce --removemissing --force: exit code and lines as LVM2's" \
        "$rca $(out a "$SCRATCH/a.out")" "$rcb $(out b "$SCRATCH/b.out")"
    test_eq "image $n lost: metadata equal" "$(twin_meta a)" "$(twin_meta b)"
    test_eq "image $n lost: no LV of the mirror left outside it (LVM2's lvs -a on lvx's side)" \
        "$(lvm_a lvs -a --noheadings -o lv_name,lv_parent vg1 2>/dev/null | awk 'NF == 1 && $1 != "m"' | wc -l)" 0
    lvx_a() { LVM_SYSTEM_DIR="$SCRATCH/twin_a" "$LVX" "$@" --devices "$(IFS=,; echo "${TWIN_A[*]}")"; }
    for side in a b; do   # the PV back, its old metadata wiped, the VG whole again
        mv "$SCRATCH/twin_$side/lvm.conf.all" "$SCRATCH/twin_$side/lvm.conf"
        twin_on $side lvm vgck --updatemetadata vg1 >/dev/null 2>&1
        twin_on $side lvm lvremove -ff vg1 >/dev/null 2>&1
        if [[ $side == a ]]; then set -- "${TWIN_A[@]}"; else set -- "${TWIN_B[@]}"; fi
        shift "$n"
        twin_on $side lvm pvcreate -ff -y "$1" >/dev/null 2>&1
        twin_on $side lvm vgextend vg1 "$1" >/dev/null 2>&1
    done
done
done_testing
