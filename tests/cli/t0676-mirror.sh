#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0676-mirror: lvx lvcreate --type mirror on loop devices, host side.  LVM2 makes
# mirrors only with device-mapper ("Can't create mirror without using device-mapper
# kernel driver." here, where activation is off); t0718 compares creation, tables and
# data with LVM2 inside a VM.  Here:
#   * with activation off (the sandbox's lvm.conf) lvx refuses as LVM2, with -an too;
#     bad options get LVM2's words and exit codes (LVM2 checks them first), no write;
#   * with activation on and -an, lvx makes mirrors (disk/core log, -m2, --nosync, -R,
#     --corelog, PV lists, --alloc anywhere, allocation/mirror_logs_require_separate_pvs):
#     the placement of every image and log is
#     the one LVM2 2.03.16 chose for the same command sequence in the VM (pinned PE
#     ranges); LVM2's vgck accepts the VG; LVM2's vgcfgbackup of the VG is lvx's text
#     (so lvx writes mirrors as LVM2 writes them); LVM2's lvs -a (attr, devices, log,
#     region, roles, sizes; also with report/mark_hidden_devices=0) and lvdisplay -m
#     equal lvx's; the log's first 4 KiB are
#     zeroed (the user backend serves mirrors: t0939); lvrename renames the images and the log as LVM2's lvrename does;
#     lvremove (either tool) takes the images and the log along.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_loop
need_cmd lvm
need_lvx
plan_later

d1=$(make_loop 128M)
d2=$(make_loop 128M)
d3=$(make_loop 128M)
lvm_sandbox "$d1" "$d2" "$d3"
test_ok "lvx makes the VG on three PVs" sh -c \
    "$LVX pvcreate -q $d1 $d2 $d3 && $LVX vgcreate -q vg $d1 $d2 $d3"
seq0=$(lvm2 vgs --noheadings -o vg_seqno vg 2>/dev/null | tr -d ' ')

# same output and exit code from both tools (activation off here)
same() {
    local desc=$1
    shift
    both "$@"
    test_eq "$desc: lvx's exit code and output equal LVM2's" \
        "$(cat "$SCRATCH/x.rc") $(cat "$SCRATCH/x.out" "$SCRATCH/x.err" | sandbox_noise)" \
        "$(cat "$SCRATCH/l.rc") $(cat "$SCRATCH/l.out" "$SCRATCH/l.err" | sandbox_noise |
            grep -v "' for more information.$")"
}
same "activation off: --type mirror refused" lvcreate --type mirror -m1 -L 8m -n m1 vg
same "activation off: --type mirror -an refused" lvcreate --type mirror -m1 -L 8m -an -n m1 vg
same "--mirrorlog bogus" lvcreate --type mirror -m1 -L 4m --mirrorlog bogus -n m1 vg
same "--mirrorlog mirrored (deprecated)" lvcreate --type mirror -m1 -L 4m --mirrorlog mirrored -n m1 vg
same "-m0 with --type mirror" lvcreate --type mirror -m0 -L 4m -n m1 vg
same "-R 3m" lvcreate --type mirror -m1 -L 4m -R 3m -n m1 vg
same "-R 1k" lvcreate --type mirror -m1 -L 4m -R 1k -n m1 vg
same "--mirrorlog with --type raid1" lvcreate --type raid1 -m1 -L 4m --mirrorlog core -n m1 vg
same "--corelog with --type raid1" lvcreate --type raid1 -m1 -L 4m --corelog -n m1 vg
same "-m1 --mirrorlog core (raid1 by default)" lvcreate -m1 -L 4m --mirrorlog core -n m1 vg
same "-m1 --corelog (raid1 by default)" lvcreate -m1 -L 4m --corelog -n m1 vg
same "-m1 with global/mirror_segtype_default=mirror: a mirror" \
    lvcreate -m1 -L 4m --config global/mirror_segtype_default=mirror -n m1 vg
test_eq "nothing was written by the refusals" \
    "$(lvm2 vgs --noheadings -o vg_seqno vg 2>/dev/null | tr -d ' ')" "$seq0"

# ---------------------------------------------------------------- lvx makes mirrors
# a pattern at the start of PV 2's first extent: the log's zeroing must show
pe_start=$(lvm2 pvs --noheadings --units b --nosuffix -o pe_start "$d3" 2>/dev/null | tr -d ' ')
printf '\xa5%.0s' $(seq 4096) | dd of="$d3" bs=4096 seek=$((pe_start / 4096)) conv=notrunc 2>/dev/null
C=(--config "global/activation=1")
mk() {
    local rc=0
    "$LVX" lvcreate "${C[@]}" -an "$@" >"$SCRATCH/mk.out" 2>&1 || rc=$?
    sandbox_noise <"$SCRATCH/mk.out"
    return $rc
}
test_eq "disk log: created, not zeroed with -an (as LVM2 in the VM)" \
    "$(mk --type mirror -m1 -L 8m -n m1 vg)" '  WARNING: Logical volume vg/m1 not zeroed.
  Logical volume "m1" created.'
test_ok "log's first 4 KiB zeroed" sh -c \
    "dd if=$d3 bs=4096 skip=$((pe_start / 4096)) count=1 2>/dev/null | cmp -n 4096 - /dev/zero"
test_ok "core log: created" mk --type mirror -m1 -L 8m --mirrorlog core -n m2 vg
test_eq "-m2 --nosync -R 512k: warned and created" \
    "$(mk --type mirror -m2 -L 4m --nosync -R 512k -n m3 vg)" \
    "  WARNING: New mirror won't be synchronised. Don't read what you didn't write!
  WARNING: Logical volume vg/m3 not zeroed.
  Logical volume \"m3\" created."
test_ok "--corelog --nosync" mk --type mirror -m1 -L 4m --corelog --nosync -n m5 vg
test_ok "on two PVs (the log shares the last image's)" mk --type mirror -m1 -L 4m -n m7 vg "$d1" "$d2"
test_ok "--alloc anywhere on two PVs" mk --type mirror -m1 -L 4m --alloc anywhere -n m8 vg "$d1" "$d2"
test_ok "no -m: two images" mk --type mirror -L 4m -n m12 vg
test_eq "-R 8m over 12 MiB: kept" "$(mk --type mirror -m1 -L 12m -R 8m -n m18 vg | grep -c reduced)" 0
test_ok "-l1" mk --type mirror -m1 -l1 -n m19 vg
test_eq "-R 16m over 4 MiB: reduced as LVM2" "$(mk --type mirror -m1 -L 4m -R 16m -n m20 vg)" \
    "  Using reduced mirror region size of 4.00 MiB
  WARNING: Logical volume vg/m20 not zeroed.
  Logical volume \"m20\" created."
S=(--config "global/activation=1 allocation/mirror_logs_require_separate_pvs=1")
test_eq "mirror_logs_require_separate_pvs=1: no log on an image's PV (exit 5)" \
    "$("$LVX" lvcreate "${S[@]}" -an --type mirror -m1 -L 4m -n m9 vg "$d1" "$d2" 2>&1; echo "rc=$?")" \
    "  Insufficient suitable allocatable extents for logical volume m9: 1 more required
rc=5"
test_ok "mirror_logs_require_separate_pvs=1: the log on the third PV" \
    "$LVX" lvcreate "${S[@]}" -an --type mirror -m1 -L 4m -n m9 vg "$d1" "$d2" "$d3"
test_eq "... and it is there" "$(lvm2 lvs -a --noheadings -o devices vg/m9_mlog 2>/dev/null | tr -d ' ')" "$d3(7)"
test_ok "lvx lvremove of it" "$LVX" lvremove -y vg/m9
test_eq "-i2 -m1 on 3 PVs (4 areas needed): refused, nothing made (striped mirrors: t1074)" \
    "$(mk --type mirror -m1 -i2 -L 8m -n m6 vg | grep -c "Insufficient suitable allocatable extents for logical volume m6"; echo "rc=${PIPESTATUS[0]}") $(lvm2 lvs --noheadings vg/m6 2>/dev/null | wc -l)" \
    "1
rc=5 0"

# The places LVM2 2.03.16 chose for the same commands in the VM (3 x 128 MiB PVs,
# tests/kernel/mirror.sh's sequence m1..m19 without the refused ones).
ranges() {
    lvm2 lvs -a --noheadings --separator ' ' -o lv_name,seg_pe_ranges vg 2>/dev/null |
        sed -e "s#$d1:#A:#g" -e "s#$d2:#B:#g" -e "s#$d3:#C:#g" -e 's/^ *//' | sort
}
test_eq "placement of images and logs equals LVM2's in the VM" "$(ranges | grep -v '^m[0-9]* ' | grep -v m20)" \
"[m12_mimage_0] A:8-8
[m12_mimage_1] B:10-10
[m12_mlog] C:3-3
[m18_mimage_0] A:9-11
[m18_mimage_1] B:11-13
[m18_mlog] C:4-4
[m19_mimage_0] A:12-12
[m19_mimage_1] B:14-14
[m19_mlog] C:5-5
[m1_mimage_0] A:0-1
[m1_mimage_1] B:0-1
[m1_mlog] C:0-0
[m2_mimage_0] A:2-3
[m2_mimage_1] B:2-3
[m3_mimage_0] A:4-4
[m3_mimage_1] B:4-4
[m3_mimage_2] C:1-1
[m3_mlog] C:2-2
[m5_mimage_0] A:5-5
[m5_mimage_1] B:5-5
[m7_mimage_0] A:6-6
[m7_mimage_1] B:6-6
[m7_mlog] B:7-7
[m8_mimage_0] A:7-7
[m8_mimage_1] B:8-8
[m8_mlog] B:9-9"
test_ok "LVM2's vgck accepts lvx's mirrors" lvm2 vgck vg

backup() {  # NAME TOOL: the VG's backup text without the header
    "$2" vgcfgbackup -f "$SCRATCH/b.$1" vg >/dev/null 2>&1
    sed -n '/^vg {/,$p' "$SCRATCH/b.$1"
}
test_eq "LVM2's vgcfgbackup of lvx's mirrors is lvx's text" "$(backup lvm2 lvm2)" "$(backup lvx "$LVX")"
test_ok "the text: mirror_log, then region_size; sub-LVs READ/WRITE and hidden" sh -c \
    "grep -A4 'type = \"mirror\"' '$SCRATCH/b.lvm2' | tr -d '\t' | grep -qz 'mirror_count = 2
mirror_log = \"m1_mlog\"
region_size = 4096' &&
     grep -A1 '^		m1_mlog {' '$SCRATCH/b.lvm2' | grep -q . &&
     grep -A2 '^		m1_mlog {' '$SCRATCH/b.lvm2' | grep -q 'status = \\[\"READ\", \"WRITE\"\\]'"

REP=lv_name,lv_attr,lv_size,copy_percent,devices,mirror_log,region_size,seg_type,lv_layout,lv_role,seg_pe_ranges,lv_initial_image_sync,lv_allocation_policy
test_eq "lvs -a: lvx equals LVM2 on lvx's mirrors" \
    "$("$LVX" lvs -a -o "$REP" vg 2>&1)" "$(lvm2 lvs -a -o "$REP" vg 2>&1 | sandbox_noise)"
test_eq "lvs -a (default columns): lvx equals LVM2" \
    "$("$LVX" lvs -a vg 2>&1)" "$(lvm2 lvs -a vg 2>&1 | sandbox_noise)"
H=(--config report/mark_hidden_devices=0)
test_eq "lvs -a with report/mark_hidden_devices=0: lvx equals LVM2 (no [ ])" \
    "$("$LVX" lvs "${H[@]}" -a -o name,mirror_log,devices,seg_pe_ranges vg 2>&1)" \
    "$(lvm2 lvs "${H[@]}" -a -o name,mirror_log,devices,seg_pe_ranges vg 2>&1 | sandbox_noise)"
P=(--config 'log/prefix="" report/mark_hidden_devices=0')
test_eq "lvs --noheadings with log/prefix=\"\" (LVM2's report-hidden.sh): lvx equals LVM2" \
    "$("$LVX" lvs "${P[@]}" --noheadings -a -o name vg 2>&1)" \
    "$(lvm2 lvs "${P[@]}" --noheadings -a -o name vg 2>&1 | sandbox_noise)"
test_eq "lvdisplay -m of a 3-image mirror: lvx equals LVM2" \
    "$("$LVX" lvdisplay -m vg/m3 2>&1)" "$(lvm2 lvdisplay -m vg/m3 2>&1 | sandbox_noise)"
for sub in m3_mlog m3_mimage_2; do
    test_eq "lvdisplay -a -m of $sub: lvx equals LVM2" \
        "$("$LVX" lvdisplay -a -m vg/$sub 2>&1)" "$(lvm2 lvdisplay -a -m vg/$sub 2>&1 | sandbox_noise)"
done
test_eq "lvdisplay of a hidden LV without -a prints nothing: lvx equals LVM2" \
    "$("$LVX" lvdisplay vg/m3_mlog 2>&1; echo "rc=$?")" \
    "$(lvm2 lvdisplay vg/m3_mlog 2>&1 | sandbox_noise; echo "rc=${PIPESTATUS[0]}")"
test_eq "lvdisplay of LVs named out of VG order shows them in VG order: lvx equals LVM2" \
    "$("$LVX" lvdisplay vg/m3 vg/m2 vg/m1 2>&1 | grep 'LV Name')" \
    "$(lvm2 lvdisplay vg/m3 vg/m2 vg/m1 2>&1 | sandbox_noise | grep 'LV Name')"

# ---------------------------------------------------------------- rename
subs() { lvm2 lvs -a --noheadings -o lv_name,devices,mirror_log --separator , vg 2>/dev/null | tr -d ' ' | grep "$1" | sort; }
test_ok "lvx renames a mirror" "$LVX" lvrename vg m18 big
test_ok "LVM2 renames another" lvm2 lvrename vg m19 small
test_eq "lvx's renamed mirror: names, devices, log" "$(subs big)" \
"[big_mimage_0],$d1(9),
[big_mimage_1],$d2(11),
[big_mlog],$d3(4),
big,big_mimage_0(0),big_mimage_1(0),[big_mlog]"
test_eq "LVM2's renamed mirror: names, devices, log" "$(subs small)" \
"[small_mimage_0],$d1(12),
[small_mimage_1],$d2(14),
[small_mlog],$d3(5),
small,small_mimage_0(0),small_mimage_1(0),[small_mlog]"
test_ok "LVM2's vgck accepts the renamed mirrors" lvm2 vgck vg

# ---------------------------------------------------------------- remove
test_ok "lvx lvremove of a disk-log and a core-log mirror" "$LVX" lvremove -y vg/m1 vg/m2
test_eq "their images and logs went with them" \
    "$(lvm2 lvs -a --noheadings -o lv_name vg 2>/dev/null | grep -cE 'm[12]_|^ *m[12] ')" 0
test_ok "LVM2 lvremove of an lvx-made mirror" lvm2 lvremove -y vg/m3
test_ok "lvx lvremove of the rest" "$LVX" lvremove -y vg
test_eq "no LV left" "$(lvm2 lvs -a --noheadings -o lv_name vg 2>/dev/null | wc -l)" 0
test_ok "LVM2's vgck accepts the VG after the removals" lvm2 vgck vg

"$LVX" vgremove -ff vg >/dev/null 2>&1
done_testing
