#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1074-mirror-striped: striped old-style mirrors, and images added while the log
# changes, on twin VGs (tests/tools/lv_twin.sh; inactive LVs: LVM2 converts them
# without device-mapper):
#   lvconvert --type mirror -m1 of a 2-stripe LV (its segments become _mimage_0, the
#   new image linear), with --stripes 2 (the new image striped), --stripes 2 of a
#   15-extent LV (LVM2's "divisible" refusal); lvreduce/lvextend of a mirror over a
#   striped image (LVM2's stripe rounding, striped extensions in every image);
#   -m3 --mirrorlog core|disk of a 2-image mirror with a mirrored log on 5 free PVs
#   (LVM2 changes the log first: the PVs it frees take images); -m3 --alloc anywhere
#   (the new images beside the old ones, in PV order); -m-1 / -m0 with a PV named
#   (the image on it goes; the first one not while the sync status is unknown).  Each step: lvx's output, exit
#   code and metadata (or, where LVM2 keeps its temporary mimagetmp layer, the images'
#   and log's places) equal LVM2's.
#   lvcreate --type mirror -i N (LVM2 makes no mirror without device-mapper): each
#   image one striped segment of N areas, no PV shared between images, the size
#   rounded up to whole stripes (LVM2's "Rounding size" line), LVM2's vgck and lvs
#   accept it.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/lv_twin.sh
. "$LVX_ROOT/tests/tools/lv_twin.sh"

twin_begin 6 64M vg1
C=(--config "global/activation=1 global/support_mirrored_mirror_log=1")
for side in a b; do
    if [[ $side == a ]]; then last=${TWIN_A[5]}; else last=${TWIN_B[5]}; fi
    "lvx_$side" lvcreate -an -Zn -l15 -n fill vg1 "$last" >/dev/null 2>&1   # the 6th PV full
    "lvx_$side" lvcreate -an -Zn -i2 -l10 -n s1 vg1 >/dev/null 2>&1
    "lvx_$side" lvcreate -an -Zn -i2 -l4 -n s2 vg1 >/dev/null 2>&1
    "lvx_$side" lvcreate -an -Zn -l15 -n l15 vg1 >/dev/null 2>&1
    "lvx_$side" lvcreate "${C[@]}" -an -Zn -l2 --type mirror -m1 --mirrorlog mirrored -n mm \
        vg1 >/dev/null 2>&1
    "lvx_$side" lvcreate "${C[@]}" -an -Zn -l2 --type mirror -m1 --mirrorlog mirrored -n md \
        vg1 >/dev/null 2>&1
done
test_eq "the same LVs made on both sides" "$(twin_meta a)" "$(twin_meta b)"

twin_step "--type mirror -m1 of a 2-stripe LV (the new image linear)" \
    lvconvert -y --type mirror -m1 -i1 --regionsize 16k vg1/s1
twin_step "lvreduce -l1 of that mirror (rounded up to whole stripes)" lvreduce -f -l1 vg1/s1
twin_step "lvextend -l10 of it (each image grows by a 2-stripe segment)" lvextend -f -l10 vg1/s1
twin_step "lvextend -l+3 of it (rounded up to whole stripes)" lvextend -f -l+3 vg1/s1
twin_step "--type mirror -m1 --stripes 2 of a 2-stripe LV (the new image striped)" \
    lvconvert -y --type mirror -m1 --corelog --stripes 2 vg1/s2
twin_step "--type mirror --stripes 2 of a 15-extent LV: refused" \
    lvconvert -y --type mirror -m1 --corelog --stripes 2 vg1/l15
twin_step "-m3 --mirrorlog core of a mirror with a mirrored log (5 PVs free)" \
    lvconvert --config global/support_mirrored_mirror_log=1 -y --type mirror -m3 --mirrorlog core \
    vg1/mm
for v in mm s1 s2 l15; do                # md alone on the 5 PVs left
    lvx_a lvremove -y "vg1/$v" >/dev/null 2>&1
    lvm_b lvremove -y "vg1/$v" >/dev/null 2>&1
done
# LVM2 adds the images under its temporary layer (NAME_mimagetmp_2) that lvx collapses
# (README): the images' and the log's places compared
places() {  # places SIDE LV: LV's image and log devices, D<n> for side SIDE's n-th PV
    "lvm_$1" lvs --noheadings -a -o lv_name,devices vg1 2>/dev/null |
        grep -E "\\[$2_(mimage_[0-9]+|mlog)\\]" |
        sed "$(_twin_sed "$1")" | tr -s ' ' | sed 's/^ //' | sort
}
rca=0 rcb=0
lvx_a lvconvert --config global/support_mirrored_mirror_log=1 -y --type mirror -m3 \
    --mirrorlog disk vg1/md >"$SCRATCH/a.out" 2>&1 || rca=$?
lvm_b lvconvert --config global/support_mirrored_mirror_log=1 -y --type mirror -m3 \
    --mirrorlog disk vg1/md >"$SCRATCH/b.out" 2>&1 || rcb=$?
test_eq "-m3 --mirrorlog disk of a mirror with a mirrored log (5 PVs free): lvx's exit code and output equal LVM2's" \
    "$rca $(twin_out a "$SCRATCH/a.out")" "$rcb $(twin_out b "$SCRATCH/b.out")"
test_eq "-m3 --mirrorlog disk: 4 images and the log where LVM2 puts them" \
    "$(places a md)" "$(places b md)"
lvx_a lvremove -y vg1/md >/dev/null 2>&1
lvm_b lvremove -y vg1/md >/dev/null 2>&1
lvx_a lvcreate "${C[@]}" -an -Zn -l2 --type mirror -m1 --mirrorlog mirrored -n ma vg1 >/dev/null 2>&1
lvx_b lvcreate "${C[@]}" -an -Zn -l2 --type mirror -m1 --mirrorlog mirrored -n ma vg1 >/dev/null 2>&1
rca=0 rcb=0
lvx_a lvconvert --config global/support_mirrored_mirror_log=1 -y --type mirror -m3 \
    --mirrorlog mirrored --alloc anywhere vg1/ma >"$SCRATCH/a.out" 2>&1 || rca=$?
lvm_b lvconvert --config global/support_mirrored_mirror_log=1 -y --type mirror -m3 \
    --mirrorlog mirrored --alloc anywhere vg1/ma >"$SCRATCH/b.out" 2>&1 || rcb=$?
test_eq "-m3 --mirrorlog mirrored --alloc anywhere (5 PVs free): lvx's exit code and output equal LVM2's" \
    "$rca $(twin_out a "$SCRATCH/a.out")" "$rcb $(twin_out b "$SCRATCH/b.out")"
test_eq "-m3 --alloc anywhere: the new images beside the old ones, where LVM2 puts them" \
    "$(places a ma)" "$(places b ma)"
lvx_a lvremove -y vg1/ma >/dev/null 2>&1   # LVM2's mimagetmp layer: not compared
lvm_b lvremove -y vg1/ma >/dev/null 2>&1
lvx_a lvcreate "${C[@]}" -an -Zn --type mirror -m2 --corelog -l1 -n m3 vg1 "${TWIN_A[@]:0:3}" >/dev/null 2>&1
lvx_b lvcreate "${C[@]}" -an -Zn --type mirror -m2 --corelog -l1 -n m3 vg1 "${TWIN_B[@]:0:3}" >/dev/null 2>&1
test_eq "a 3-image mirror on D0 D1 D2 made on both sides" \
    "$(places a m3 | cut -d'(' -f1)/$(places b m3 | cut -d'(' -f1)" \
    "[m3_mimage_0] D0
[m3_mimage_1] D1
[m3_mimage_2] D2/[m3_mimage_0] D0
[m3_mimage_1] D1
[m3_mimage_2] D2"
twin_step "-m-1 PV of a 3-image mirror: the image on that PV goes (not the last)" \
    lvconvert -y -m-1 vg1/m3 %1
test_eq "... the images on D0 and D2 left" "$(places a m3 | cut -d'(' -f1 | tr '\n' ' ')" \
    "[m3_mimage_0] D0 [m3_mimage_2] D2 "
twin_step "-m-1 PV of the first image of an inactive mirror: refused (sync status unknown)" \
    lvconvert -y -m-1 vg1/m3 %0
twin_step "-m0 PV of the second image: linear on the first" lvconvert -y -m0 vg1/m3 %2
test_eq "... m3 linear on D0" \
    "$(lvm_a lvs --noheadings -o segtype,devices vg1/m3 2>/dev/null | sed "$(_twin_sed a)" | tr -s ' ' | cut -d'(' -f1)" \
    " linear D0"
test_ok "LVM2's vgck accepts lvx's side" lvm_a vgck vg1
lvx_a vgremove -ff vg1 >/dev/null 2>&1
lvm_b vgremove -ff vg1 >/dev/null 2>&1

# lvcreate of striped mirrors (lvx on side A, read back by LVM2)
lvx_a vgcreate vg2 "${TWIN_A[@]}" >/dev/null 2>&1
# redundant VG/LV: no PV of one image in another (LVM2's check mirror_images_redundant)
redundant() {
    local img dup
    dup=$(for img in $(lvm_a lvs --noheadings -a -o lv_name -S "lv_name=~^$1_mimage" vg2 \
            2>/dev/null | tr -d '[] '); do
        lvm_a lvs --noheadings -o devices "vg2/$img" 2>/dev/null | tr ',' '\n' |
            sed 's/(.*//; s/ //g' | sort -u
    done | sort | uniq -d)
    [[ -z $dup ]] && [[ $(lvm_a lvs --noheadings -a -o lv_name -S "lv_name=~^$1_mimage" vg2 \
        2>/dev/null | wc -l) -ge 2 ]]
}
for a in "2 2 1" "3 3 1" "2 2 2" "2 4 1"; do
    read -r i l m <<<"$a"
    lvx_a lvcreate "${C[@]}" -an -Zn --nosync -i"$i" -l"$l" --type mirror -m"$m" --mirrorlog core \
        -n "i${i}m${m}l$l" vg2 >"$SCRATCH/c.out" 2>&1
    test_eq "lvcreate -i$i -l$l --type mirror -m$m: made, no rounding" \
        "$? $(grep -c Rounding "$SCRATCH/c.out")" "0 0"
    test_eq "-i$i -m$m: $((m + 1)) images of $i stripes each, $l extents" \
        "$(lvm_a lvs --noheadings -a -o lv_name,segtype,stripes,seg_size_pe -S "lv_name=~^i${i}m${m}l${l}_mimage" vg2 2>/dev/null | tr -s ' ' | sed 's/^ //')" \
        "$(for ((k = 0; k <= m; k++)); do echo "[i${i}m${m}l${l}_mimage_$k] striped $i $l"; done)"
    test_ok "-i$i -m$m: no PV in two images" redundant "i${i}m${m}l$l"
done
lvx_a lvcreate "${C[@]}" -an -Zn --nosync -i3 -l4 --type mirror -m1 --mirrorlog core -n r1 vg2 \
    >"$SCRATCH/r.out" 2>&1
test_eq "-i3 -l4: LVM2's rounding line, 6 extents" \
    "$(grep -o 'Rounding size .*' "$SCRATCH/r.out") $(lvm_a lvs --noheadings -o seg_size_pe vg2/r1 2>/dev/null | tr -d ' ')" \
    "Rounding size 16.00 MiB (4 extents) up to stripe boundary size 24.00 MiB (6 extents). 6"
rc=0
lvx_a lvcreate "${C[@]}" -an -Zn -i2 -l4 --type mirror -m1 -n d1 vg2 >/dev/null 2>&1 || rc=$?
test_eq "-i2 with a disk log: made, the log on a PV of no image" \
    "$rc $(lvm_a lvs --noheadings -o mirror_log vg2/d1 2>/dev/null | tr -d ' ') $(lvm_a lvs --noheadings -a -o devices vg2/d1_mlog vg2/d1_mimage_0 vg2/d1_mimage_1 \
        2>/dev/null | tr ',' '\n' | sed 's/(.*//; s/ //g' | sort | uniq -d | wc -l)" "0 [d1_mlog] 0"
test_ok "LVM2's vgck accepts the striped mirrors" lvm_a vgck vg2
lvx_a vgremove -ff vg2 >/dev/null 2>&1
done_testing
