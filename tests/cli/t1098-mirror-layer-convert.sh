#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1098-mirror-layer-convert: lvconvert of a mirror LVM2 left CONVERTING (its
# NAME_mimagetmp_N layer, docs/mirror-layer.md 1.5), inactive, against LVM2 on twin VGs
# (tests/tools/lv_twin.sh): the same mirrors made on both sides, LVM2 (activation off)
# writes its layer on each with `lvconvert -m +1` or `-m +2`; then lvx converts side A
# and LVM2 side B, the same command: exit code, lines and metadata text (ids, times,
# hosts, seqno aside) equal:
#   -m -1 (the top's new image goes, the top left with one area: the layer taken out),
#   -m -1 PV (the new image's PV), -m 0, --type linear, -m 1 of a 4-image stack, -m -1
#   of a 4-image stack (still layered), --mirrorlog core then disk on the layer (the
#   new log NAME_mlog), -m -1/-2 with PVs of a 3-image layer's images, -m -1 with a
#   PV under no image, -m -1 PV of the layer's first image (LVM2's "not in-sync"
#   refusal), --repair with no PV missing.  Then `lvs -a` of each side equal, LVM2's
#   vgck clean on lvx's side; and lvx's refusals of --splitmirrors, --type raid1,
#   --mirrorlog mirrored, a layer left with one image (nothing written).  Last, in the
#   user backend on side B: two mirrors written by lvx, layered by LVM2 (-m +1, +2),
#   reduced by LVM2 (-m -1: the layer taken out / still there), activated by lvx: the
#   data reads back.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/lv_twin.sh
. "$LVX_ROOT/tests/tools/lv_twin.sh"

twin_begin 6 64M vg1
C=(--config "global/activation=1")
# layered NAME +N: a 2-image mirror (images D0 D1, log D2) given N images by LVM2 (D3..)
layered() {
    local side
    for side in a b; do
        twin_on $side lvx lvcreate "${C[@]}" -an -Zn --type mirror -m1 -L 4m -n "$1" vg1 %0 %1 %2 \
            >/dev/null 2>&1
        twin_on $side lvm lvconvert -m "+$2" "vg1/$1" %3 %4 >/dev/null 2>&1
    done
}
for lv in c1 c2 c3 c4 c7 c8 r; do layered $lv 1; done
for lv in c5 c6; do layered $lv 2; done
for lv in t w; do              # 3-image mirrors (log on D5) given one image (D3)
    for side in a b; do
        twin_on $side lvx lvcreate "${C[@]}" -an -Zn --type mirror -m2 -L 4m -n $lv vg1 \
            %0 %1 %2 %5 >/dev/null 2>&1
        twin_on $side lvm lvconvert -m +1 vg1/$lv %3 >/dev/null 2>&1
    done
done
layered u 1
test_eq "LVM2 left its layers on side A (c5: two new images)" \
    "$(lvm_a lvs --noheadings -o devices vg1/c1 vg1/c5 2>/dev/null | tr -d ' ' | paste -sd' ')" \
    "c1_mimagetmp_2(0),c1_mimage_2(0) c5_mimagetmp_2(0),c5_mimage_2(0),c5_mimage_3(0)"
test_eq "the same layered mirrors on both sides" "$(twin_meta a)" "$(twin_meta b)"

twin_step "-m -1 (the new image goes, the layer taken out)" lvconvert -y -m -1 vg1/c1
twin_step "-m -1 with the new image's PV" lvconvert -y -m -1 vg1/c2 %3
twin_step "-m 0 (linear)" lvconvert -y -m 0 vg1/c3
twin_step "--type linear" lvconvert -y --type linear vg1/c4
twin_step "-m 1 of a 4-image stack" lvconvert -y -m 1 vg1/c5
twin_step "-m -1 of a 4-image stack (still layered)" lvconvert -y -m -1 vg1/c6
twin_step "--mirrorlog core (the layer's log goes)" lvconvert -y --mirrorlog core vg1/c7
twin_step "--mirrorlog disk (a new c7_mlog under the layer)" lvconvert -y --mirrorlog disk vg1/c7
twin_step "-m -1 with a PV of the 3-image layer's second image" lvconvert -y -m -1 vg1/t %1
twin_step "-m -2 with the PVs of the new image and the layer's second" \
    lvconvert -y -m -2 vg1/w %1 %3
twin_step "-m -1 with a PV under no image (the top's image goes)" lvconvert -y -m -1 vg1/u %4
twin_step "-m -1 with the layer's first image's PV: LVM2's refusal" lvconvert -y -m -1 vg1/c8 %0

L=lv_name,lv_attr,devices,convert_lv,mirror_log,copy_percent
test_eq "lvs -a -o+devices,convert_lv,mirror_log (LVM2 reads): lvx's side as LVM2's" \
    "$(lvm_a lvs -a --noheadings --separator ' | ' -o $L vg1 2>/dev/null | sed "$(_twin_sed a)")" \
    "$(lvm_b lvs -a --noheadings --separator ' | ' -o $L vg1 2>/dev/null | sed "$(_twin_sed b)")"
test_eq "... and as lvx reads it" \
    "$(lvx_a lvs -a --noheadings --separator ' | ' -o $L vg1 2>/dev/null | sed "$(_twin_sed a)")" \
    "$(lvm_b lvs -a --noheadings --separator ' | ' -o $L vg1 2>/dev/null | sed "$(_twin_sed b)")"
test_ok "LVM2's vgck of lvx's side" lvm_a vgck vg1
test_eq "c6 still layered: c6_mimagetmp_2 and c6_mimage_2 (LVM2 reads)" \
    "$(lvm_a lvs --noheadings -o devices vg1/c6 2>/dev/null | tr -d ' ')" \
    "c6_mimagetmp_2(0),c6_mimage_2(0)"

# lvx's refusals (LVM2 without device-mapper cannot say what it would do)
seq=$(lvm_a vgs --noheadings -o vg_seqno vg1 2>/dev/null | tr -d ' ')
twin_step "--repair of the layered r with no PV missing: nothing to repair" lvconvert -y --repair vg1/r
for args in "--splitmirrors 1 --name s vg1/r" "--type raid1 vg1/r" \
    "--mirrorlog mirrored --config global/support_mirrored_mirror_log=1 vg1/r" "-m -1 vg1/r %1"; do
    rc=0
    # shellcheck disable=SC2086
    twin_on a lvx lvconvert -y $args >"$SCRATCH/ref.out" 2>&1 || rc=$?
    test_eq "lvconvert $args (layered): refused (exit 5)" "$rc" 5
    diag "$(cat "$SCRATCH/ref.out")"
done
test_eq "... nothing written (seqno $seq)" \
    "$(lvm_a vgs --noheadings -o vg_seqno vg1 2>/dev/null | tr -d ' ')" "$seq"

# lvx activates LVM2's results in the user backend (side B only: the twins share the VG
# name): data written before LVM2 layered and then reduced the mirrors reads back
if [[ -c /dev/fuse ]]; then
    # shellcheck source=tests/tools/uspace-env.sh
    . "$LVX_ROOT/tests/tools/uspace-env.sh"
    uspace_test_env vg1 "${TWIN_B[@]}"
    B=("${TWIN_B[@]}")
    for lv in d e; do
        "$LVX" lvcreate -q -Zn --type mirror -m1 -L 4m -n $lv vg1 "${B[0]}" "${B[1]}" "${B[2]}" \
            >/dev/null 2>&1
        head -c $((4 * 1048576)) /dev/urandom >"$SCRATCH/$lv.data"
        dd if="$SCRATCH/$lv.data" of="$DM_DEV_DIR/vg1/$lv" bs=1M oflag=direct conv=fsync \
            status=none 2>/dev/null
        "$LVX" lvconvert vg1/$lv >/dev/null 2>&1           # in sync
    done
    "$LVX" vgchange -an vg1 >/dev/null 2>&1
    lvm_b lvconvert -m +1 vg1/d "${B[3]}" >/dev/null 2>&1
    lvm_b lvconvert -m +2 vg1/e "${B[3]}" "${B[4]}" >/dev/null 2>&1
    lvm_b lvconvert -y -m -1 vg1/d >/dev/null 2>&1
    lvm_b lvconvert -y -m -1 vg1/e >/dev/null 2>&1
    test_eq "LVM2 took d's layer out, left e's (one new image)" \
        "$(lvm_b lvs --noheadings -o devices vg1/d vg1/e 2>/dev/null | tr -d ' ' | paste -sd' ')" \
        "d_mimage_0(0),d_mimage_1(0) e_mimagetmp_2(0),e_mimage_2(0)"
    for lv in d e; do
        uspace_run_ok "lvx activates LVM2's $lv (user backend)" "$LVX" lvchange -ay vg1/$lv
        test_eq "... $lv reads the data written before LVM2's conversions" \
            "$(lv_sum vg1/$lv)" "$(fsum "$SCRATCH/$lv.data")"
    done
    "$LVX" vgchange -an vg1 >/dev/null 2>&1
fi

lvx_a vgremove -ff vg1 >/dev/null 2>&1
lvm_b vgremove -ff vg1 >/dev/null 2>&1
done_testing
