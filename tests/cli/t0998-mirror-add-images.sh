#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0998-mirror-add-images: lvconvert -m +N / -m N (more images) of inactive old-style
# mirrors against LVM2 2.03.16 on twin VGs (tests/tools/lv_twin.sh: lvx makes the same
# mirrors on both sides, side A converted by lvx, side B by LVM2, activation off):
#   - a core-log mirror, -m+1 and -m3 (absolute): output, exit code and the metadata
#     text equal LVM2's (new NAME_mimage_N appended, placed on PVs holding none of the
#     mirror's images, as LVM2 places them); -m-1 back again equal too;
#   - a NOTSYNCED mirror: LVM2's refusal (exit 5), nothing written;
#   - a disk-log mirror, -m+1: LVM2's NAME_mimagetmp_2 resync layer (its poll collapses
#     it after activation), written by lvx too (docs/mirror-layer.md step 2): metadata
#     text equal, the new image where LVM2 put its own (a PV without an image or the
#     log), the log under the layer, its header (a planted "MiRr") not written: it
#     still speaks for the old images; LVM2's vgck accepts it;
#   - a mirrored log, -m+1: the mirrored log kept, the new image where LVM2's is once
#     its layer is collapsed (tests/tools/mirror_layer.sh).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/lv_twin.sh
. "$LVX_ROOT/tests/tools/lv_twin.sh"
# shellcheck source=tests/tools/mirror_layer.sh
. "$LVX_ROOT/tests/tools/mirror_layer.sh"

twin_begin 4 64M vg1
C=(--config "global/activation=1")
for side in a b; do
    for a in "-m1 -L 8m -n d" "-m1 --corelog -L 8m -n c" "-m1 --corelog -L 4m -n c2" \
        "-m1 --nosync --corelog -L 4m -n ns"; do
        # shellcheck disable=SC2086
        "lvx_$side" lvcreate "${C[@]}" -an --type mirror $a vg1 >/dev/null 2>&1
    done
done
test_eq "the same mirrors made on both sides" "$(twin_meta a)" "$(twin_meta b)"

twin_step "-m+1 of a core-log mirror" lvconvert -y -m+1 vg1/c
twin_step "-m3 of a 2-image core-log mirror (two images more)" lvconvert -y -m3 vg1/c2
twin_step "-m-1 of the 3-image mirror (the new image goes again)" lvconvert -y -m-1 vg1/c
twin_step "-m+1 of a NOTSYNCED mirror: refused" lvconvert -y -m+1 vg1/ns

# ---- a disk-log mirror: LVM2's temporary resync layer, on both sides
R=$(lvm_a lvs -a --noheadings -o seg_pe_ranges vg1/d_mlog 2>/dev/null | tr -d ' ')
LDEV=${R%%:*}
PE=${R#*:}
PE=${PE%%-*}
PESTART=$(lvm_a pvs --noheadings --units b --nosuffix -o pe_start "$LDEV" 2>/dev/null | tr -d ' ')
LOFF=$((PESTART + PE * 4194304))
printf 'MiRr\002\000\000\000\002\000\000\000\000\000\000\000' |
    dd of="$LDEV" bs=1 seek="$LOFF" conv=notrunc status=none
test_eq "a dm-log header planted in d_mlog" "$(dd if="$LDEV" bs=1 skip="$LOFF" count=4 status=none)" "MiRr"
rca=0 rcb=0
LVX_TEST_IO_LOG=$SCRATCH/io.log lvx_a lvconvert -y -m+1 vg1/d >"$SCRATCH/a.out" 2>&1 || rca=$?
lvm_b lvconvert -y -m+1 vg1/d >"$SCRATCH/b.out" 2>&1 || rcb=$?
test_eq "-m+1 of a disk-log mirror: lvx's exit code and output equal LVM2's" \
    "$rca $(twin_out a "$SCRATCH/a.out")" "$rcb $(twin_out b "$SCRATCH/b.out")"
test_eq "-m+1 of a disk-log mirror: metadata equal (the layer d_mimagetmp_2)" \
    "$(twin_meta a)" "$(twin_meta b)"
# L: a write at the log's start
test_eq "the log's start not written (the layer's log speaks for the old images)" \
    "$(awk -v d="$LDEV" -v lo="$LOFF" '$1 == "write" && $5 == d && $3 == lo { print "L" }' \
        "$SCRATCH/io.log")" ""
test_eq "LVM2 keeps its temporary layer (the oracle's intermediate state)" \
    "$(lvm_b lvs --noheadings -o devices vg1/d 2>/dev/null | tr -d ' ')" "d_mimagetmp_2(0),d_mimage_2(0)"
rep() { "lvm_$1" lvs -a --noheadings -o "$2" "vg1/$3" 2>/dev/null | tr -d ' ' | sed "$(_twin_sed "$1")"; }
test_eq "lvx: d over its layer and the new image (LVM2 reads lvx's metadata)" "$(rep a devices d)" \
    "d_mimagetmp_2(0),d_mimage_2(0)"
test_eq "lvx: the log is kept, under the layer" "$(rep a mirror_log d_mimagetmp_2)" "[d_mlog]"
test_eq "the new image where LVM2 put its own" "$(rep a seg_pe_ranges d_mimage_2)" \
    "$(rep b seg_pe_ranges d_mimage_2)"
test_eq "the old images and the log stay where they were on both sides" \
    "$(rep a seg_pe_ranges d_mimage_0) $(rep a seg_pe_ranges d_mimage_1) $(rep a seg_pe_ranges d_mlog)" \
    "$(rep b seg_pe_ranges d_mimage_0) $(rep b seg_pe_ranges d_mimage_1) $(rep b seg_pe_ranges d_mlog)"
test_eq "d_mlog's planted header kept (not zeroed)" \
    "$(dd if="$LDEV" bs=1 skip="$LOFF" count=4 status=none)" "MiRr"
test_ok "LVM2's vgck accepts lvx's side" lvm_a vgck vg1

# ---- a mirrored log: kept, the new image where LVM2 puts its own (LVM2's resync layer
# collapsed as its poll does: tests/tools/mirror_layer.sh)
for side in a b; do
    "lvx_$side" lvcreate --config "global/activation=1 global/support_mirrored_mirror_log=1" -an \
        --type mirror -m1 --mirrorlog mirrored -L 4m -n ml vg1 >/dev/null 2>&1
done
rca=0 rcb=0
lvx_a lvconvert -y -m+1 vg1/ml >"$SCRATCH/a.out" 2>&1 || rca=$?
lvm_b lvconvert -y -m+1 vg1/ml >"$SCRATCH/b.out" 2>&1 || rcb=$?
test_eq "-m+1 of a mirror with a mirrored log: lvx's exit code and output equal LVM2's" \
    "$rca $(twin_out a "$SCRATCH/a.out")" "$rcb $(twin_out b "$SCRATCH/b.out")"
diag "LVM2: $(lvm_b lvs -a -o lv_name,mirror_log,devices vg1 2>/dev/null)"
test_eq "... the layout LVM2's once collapsed (3 images, the mirrored log kept)" \
    "$(MIR_LVM=lvm_a mir_layout vg1 "$(_twin_sed a)" | grep '^ml')" \
    "$(MIR_LVM=lvm_b mir_layout vg1 "$(_twin_sed b)" | grep '^ml')"
test_ok "LVM2's vgck accepts lvx's side" lvm_a vgck vg1

lvx_a vgremove -ff vg1 >/dev/null 2>&1
lvm_b vgremove -ff vg1 >/dev/null 2>&1
done_testing
