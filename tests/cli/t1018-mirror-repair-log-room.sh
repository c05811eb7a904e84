#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1018-mirror-repair-log-room: lvconvert -y --repair of a 3-image disk-log mirror that
# lost its log's PV and one image's, with one PV free: a new image and a new log do not
# both fit, so LVM2 (and lvx) go down to 2 images with a new log on the free PV.  lvx
# on side A, LVM2 on side B of twin VGs (tests/tools/lv_twin.sh): the same exit code,
# output and metadata.  This session's first version of the repair added the image,
# then failed on the log with exit 5 and repaired nothing.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/lv_twin.sh
. "$LVX_ROOT/tests/tools/lv_twin.sh"

twin_begin 5 64M vg1
C=(--config "global/activation=1")
for side in a b; do
    # the images on D1, D2, D3, the log on D0
    mapfile -d '' pvs < <(twin_args "$side" %1 %2 %3 %0)
    "lvx_$side" lvcreate "${C[@]}" -an --type mirror -m2 -L 4m -n m vg1 "${pvs[@]}" >/dev/null 2>&1
done
test_eq "the same mirror made on both sides" "$(twin_meta a)" "$(twin_meta b)"
test_eq "m's images on D1 D2 D3, its log on D0" \
    "$(lvm_a lvs -a --noheadings -o lv_name,devices vg1 2>/dev/null | sed "$(_twin_sed a)" |
       awk '{ sub(/\(.*/, "", $2); print $1 "=" $2 }' | sort | paste -sd' ')" \
    "[m_mimage_0]=D1 [m_mimage_1]=D2 [m_mimage_2]=D3 [m_mlog]=D0 m=m_mimage_0"

# D0 and D3 go missing on both sides; D4 is free
for side in a b; do
    if [[ $side == a ]]; then set -- "${TWIN_A[@]}"; else set -- "${TWIN_B[@]}"; fi
    sed -i -e "s#\"a|^$1\\\$|\", ##" -e "s#\"a|^$4\\\$|\", ##" "$SCRATCH/twin_$side/lvm.conf"
done
LEFT_A=("${TWIN_A[1]}" "${TWIN_A[2]}" "${TWIN_A[4]}")
lvx_a() { LVM_SYSTEM_DIR="$SCRATCH/twin_a" "$LVX" "$@" --devices "$(IFS=,; echo "${LEFT_A[*]}")"; }
out() {  # out SIDE FILE: without the sandbox's noise, LVM2's missing-device lines, PV uuids
    sandbox_noise <"$2" | grep -v "Couldn't find device with uuid" |
        sed -E 's/PV [-A-Za-z0-9]{38}/PV UUID/' | sed "$(_twin_sed "$1")"
}
rca=0 rcb=0
lvx_a lvconvert -y --repair vg1/m >"$SCRATCH/a.out" 2>&1 || rca=$?
lvm_b lvconvert -y --repair vg1/m >"$SCRATCH/b.out" 2>&1 || rcb=$?
diag "LVM2: $(out b "$SCRATCH/b.out")"
test_eq "--repair -y: lvx's exit code and output equal LVM2's" \
    "$rca $(out a "$SCRATCH/a.out")" "$rcb $(out b "$SCRATCH/b.out")"
test_eq "... metadata equal" "$(twin_meta a)" "$(twin_meta b)"
test_eq "... m has 2 images and a log on D4 (LVM2 reading lvx's side)" \
    "$(lvm_a lvs -a --noheadings -o lv_name,devices vg1 2>/dev/null | sed "$(_twin_sed a)" |
       awk '$1 == "[m_mlog]" { sub(/\(.*/, "", $2); print $2 }')|$(lvm_a lvs --noheadings -o stripes vg1/m 2>/dev/null | tr -d ' ')" \
    "D4|2"
done_testing
