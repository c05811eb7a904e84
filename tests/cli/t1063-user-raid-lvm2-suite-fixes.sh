#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1063-user-raid-lvm2-suite-fixes: three RAID behaviours LVM2's own tests found missing
# (user-space backend, host):
# - lvconvert-raid-allocation.sh:28: a linear LV on D0 and D1 converted to raid1 with
#   only D0 and D1 allowed must be refused -- lvx put the new image on D0, beside the
#   data it was to protect (an empty list of usable PVs was taken for "any PV").  Also
#   with one more PV named by a range too small for the image (:29); refused with the
#   allocator's line, exit 5, nothing written; with D2 the image goes to D2.  A repair
#   (lvconvert-raid-allocation.sh:76) may use the lost image's other PV, never those of
#   the image that survives (lvx put the new image beside it).
# - component-raid.sh:45: `lvchange -an VG` deactivates component LVs (rimage/rmeta)
#   activated on their own too (LVM2's process_component_lvs); lvx left them active.
# - lvdisplay-raid.sh: "LV Status" says "(partial)" for an LV with a missing PV, and
#   "NOT available" for an active RAID LV that has lost more images than it can serve
#   without (LVM2's raid_is_available): a raid1 with one leg missing stays available.
# - lvcreate-large-raid.sh:76: lvextend of a raid1 past 2^21 regions of its region size
#   doubles the region size (LVM2's raid_ensure_min_region_size in lv_extend); lvx kept
#   it and the kernel refused the table.
# - lvconvert-raid-regionsize.sh:31-35: `lvconvert -R` / `--type raid1 -R` of an active
#   raid1 changes its region size (lvx printed "already has image count" and kept it).
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

need_loop
need_lvx
[[ -c /dev/fuse ]] || skip_all "no /dev/fuse"

VG=vgsfx$$
DEVS=()
for i in 0 1 2 3; do DEVS+=("$(make_loop 48M)"); done
BIG=("$(make_loop 6T)" "$(make_loop 6T)")     # sparse
uspace_test_env "$VG" "${DEVS[@]}" "${BIG[@]}"
seqno() { lvx vgs --noheadings -o vg_seqno "$VG" 2>/dev/null | tr -d ' '; }
pvs_of() { lvx lvs -a --noheadings -o devices ${2:+"$2"} "$VG/$1" 2>/dev/null | tr -d ' ' | sed 's/(.*//' | sort -u | paste -sd' '; }
dev_link() { [[ -e $DM_DEV_DIR/$VG/$1 ]] && echo yes || echo no; }

uspace_run_ok "vgcreate -s 256k" sh -c "$LVX pvcreate -q ${DEVS[*]} && $LVX vgcreate -q -s 256k $VG ${DEVS[*]}"

# ---- allocation of a new raid1 image (LVM2's lvconvert-raid-allocation.sh:27-32)
uspace_run_ok "linear LV1 on D0:0-1 and D1:0-1" \
    lvx lvcreate -q -Zn -l 4 -n LV1 "$VG" "${DEVS[0]}:0-1" "${DEVS[1]}:0-1"
rc=0; before=$(seqno)
lvx lvconvert -y --type raid1 -m 1 "$VG/LV1" "${DEVS[0]}" "${DEVS[1]}" >"$SCRATCH/o" 2>&1 || rc=$?
test_eq "--type raid1 -m 1 with D0 D1 only: exit 5, the allocator's line, nothing written" \
    "$rc $(grep -c 'Insufficient suitable allocatable extents for logical volume : 5 more required' "$SCRATCH/o") $(seqno)" \
    "5 1 $before"
D01=$(printf '%s\n' "${DEVS[0]}" "${DEVS[1]}" | sort | paste -sd' ')
test_eq "... LV1 still linear on D0 D1" "$(lvx lvs --noheadings -o segtype "$VG/LV1" | tr -d ' ' | sort -u) $(pvs_of LV1)" \
    "linear $D01"
rc=0
lvx lvconvert -y --type raid1 -m 1 "$VG/LV1" "${DEVS[0]}" "${DEVS[2]}:0-2" >"$SCRATCH/o" 2>&1 || rc=$?
test_eq "with D0 and D2:0-2 (3 extents for 5): exit 5, nothing written" "$rc $(seqno)" "5 $before"
test_eq "-m 1 (raid1 by default here) with D0 D1: exit 5" \
    "$(lvx lvconvert -y --type raid1 -m 1 "$VG/LV1" "${DEVS[1]}" >/dev/null 2>&1; echo $?) $(seqno)" "5 $before"
uspace_run_ok "with D2: converted" lvx lvconvert -q -y --type raid1 -m 1 "$VG/LV1" "${DEVS[2]}"
test_eq "... rimage_1 and rmeta_1 on D2" "$(pvs_of LV1_rimage_1) $(pvs_of LV1_rmeta_1)" "${DEVS[2]} ${DEVS[2]}"
test_eq "... rimage_0 keeps D0 D1" "$(pvs_of LV1_rimage_0)" "$D01"
uspace_run_ok "LV1 removed" lvx lvremove -q -f "$VG/LV1"

# ---- a repair's new image (LVM2's lvconvert-raid-allocation.sh:72-76): each image on two
# PVs; D0 lost; the new image may take the lost image's other PV but never the PVs of
# the image that survives (lvx put it there: fake redundancy)
uspace_run_ok "raid1 LV2 -l 3: image 0 on D0:0-1 D1:0-1, image 1 on D2:0-1 D3:0-1" \
    lvx lvcreate -q -Zn --type raid1 -m 1 -l 3 -n LV2 "$VG" "${DEVS[0]}:0-1" "${DEVS[1]}:0-1" \
    "${DEVS[2]}:0-1" "${DEVS[3]}:0-1"
OTHER=$(pvs_of LV2_rimage_0 | tr ' ' '\n' | grep -vxF "${DEVS[0]}")     # image 0's other PV
KEPT=$(pvs_of LV2_rimage_1)
test_eq "image 0 on D0 and one other PV, image 1 on two PVs apart from it" \
    "$(wc -w <<<"$OTHER $KEPT") $(grep -cwF -- "$OTHER" <<<"$KEPT")" "3 0"
uspace_run_ok "LV2 deactivated" lvx lvchange -q -an "$VG/LV2"
HIDE0="--devices=${DEVS[1]},${DEVS[2]},${DEVS[3]}"
uspace_run_ok "D0 missing: LV2 activated degraded" lvx lvchange -q -ay "$HIDE0" "$VG/LV2"
uspace_run_ok "lvconvert -y --repair LV2 D1 D2 D3 (every PV but the lost one)" \
    lvx lvconvert -q -y --repair "$HIDE0" "$VG/LV2" "${DEVS[1]}" "${DEVS[2]}" "${DEVS[3]}"
test_eq "... the new rimage_0 and rmeta_0 on image 0's other PV, rimage_1 kept" \
    "$(pvs_of LV2_rimage_0 "$HIDE0") $(pvs_of LV2_rmeta_0 "$HIDE0") / $(pvs_of LV2_rimage_1 "$HIDE0")" \
    "$OTHER $OTHER / $KEPT"
uspace_run_ok "LV2 removed, D0 back in the VG" sh -c "
    $LVX lvchange -q -an $HIDE0 $VG/LV2 && $LVX lvremove -q -f $HIDE0 $VG/LV2 &&
    $LVX vgreduce -q --removemissing $HIDE0 $VG && $LVX pvcreate -q -ff -y ${DEVS[0]} &&
    $LVX vgextend -q $VG ${DEVS[0]}"

# ---- component LVs down with the VG (LVM2's component-raid.sh)
uspace_run_ok "raid1 r1 -m 1, deactivated" sh -c "
    $LVX lvcreate -q -Zn --type raid1 -m 1 -L 2m -n r1 $VG ${DEVS[0]} ${DEVS[1]} && $LVX lvchange -q -an $VG/r1"
for c in r1_rimage_0 r1_rmeta_0 r1_rimage_1; do
    uspace_run_ok "lvchange -ay -y $c (component, read-only)" lvx lvchange -q -ay -y "$VG/$c"
done
test_eq "the three component links are there" \
    "$(dev_link r1_rimage_0) $(dev_link r1_rmeta_0) $(dev_link r1_rimage_1)" "yes yes yes"
test_eq "lvs: the three active" \
    "$(lvx lvs -a --noheadings -o lv_active "$VG/r1_rimage_0" "$VG/r1_rmeta_0" "$VG/r1_rimage_1" | tr -d ' ' | paste -sd' ')" \
    "active active active"
uspace_run_ok "lvchange -an VG" lvx lvchange -q -an "$VG"
test_eq "... takes the components down (links gone)" \
    "$(dev_link r1_rimage_0) $(dev_link r1_rmeta_0) $(dev_link r1_rimage_1)" "no no no"
test_eq "... lvs: none active" \
    "$(lvx lvs -a --noheadings -o lv_active "$VG" | tr -d ' \n')" ""
uspace_run_ok "r1 activated whole" lvx lvchange -q -ay "$VG/r1"
uspace_run_ok "lvchange -an VG with r1 active" lvx lvchange -q -an "$VG"
test_eq "... r1 and its images down" "$(dev_link r1) $(lvx lvs -a --noheadings -o lv_active "$VG" | tr -d ' \n')" "no "

# ---- lvdisplay's LV Status with a PV missing (LVM2's lvdisplay-raid.sh)
uspace_run_ok "raid0 -i 2 on D2 D3, active; r1 active" sh -c "
    $LVX lvcreate -q -Zn --type raid0 -i 2 -L 2m -n r0 $VG ${DEVS[2]} ${DEVS[3]} && $LVX lvchange -q -ay $VG/r1"
status() { lvx lvdisplay ${2:+"$2"} "$VG/$1" 2>/dev/null | sed -n 's/^ *LV Status *//p'; }
test_eq "r0, r1 with every PV: available" "$(status r0) / $(status r1)" "available / available"
HIDE3="--devices=${DEVS[0]},${DEVS[1]},${DEVS[2]}"
test_eq "D3 missing: r0 NOT available (partial), r1 available" \
    "$(status r0 "$HIDE3") / $(status r1 "$HIDE3")" "NOT available (partial) / available"
HIDE0="--devices=${DEVS[1]},${DEVS[2]},${DEVS[3]}"
test_eq "D0 missing: r1 available (partial) (one leg left), r0 available" \
    "$(status r1 "$HIDE0") / $(status r0 "$HIDE0")" "available (partial) / available"
HIDE01="--devices=${DEVS[2]},${DEVS[3]}"
test_eq "D0 and D1 missing: r1 NOT available (partial)" "$(status r1 "$HIDE01")" "NOT available (partial)"
uspace_run_ok "lvchange -an VG" lvx lvchange -q -an "$VG"
test_eq "inactive r1 with D0 missing: NOT available (partial)" "$(status r1 "$HIDE0")" "NOT available (partial)"

# ---- lvconvert -R of an active raid1 (LVM2's lvconvert-raid-regionsize.sh:31-35)
rs1() { lvx lvs --noheadings -o region_size "$VG/r1" 2>/dev/null | tr -d ' '; }
uspace_run_ok "r1 active, 2 MiB written" sh -c "
    $LVX lvchange -q -ay $VG/r1 && head -c 2097152 /dev/urandom >$SCRATCH/r1 &&
    dd if=$SCRATCH/r1 of=$DM_DEV_DIR/$VG/r1 bs=1M oflag=direct status=none"
for _ in $(seq 100); do [[ $(lvx lvs --noheadings -o copy_percent "$VG/r1" | tr -d ' ') == 100.00 ]] && break; sleep 0.1; done
before=$(seqno)
out=$(lvx lvconvert --type raid1 -y -R 128K "$VG/r1" 2>&1 | grep -v 'NOT backed up'; exit "${PIPESTATUS[0]}"); rc=$?
test_eq "--type raid1 -y -R 128K: LVM2's two lines, exit 0" "$rc $(tr -s ' ' <<<"$out" | sed 's/^ //' | paste -sd'|')" \
    "0 Changed region size on raid1 LV $VG/r1 to 128.00 KiB.|Logical volume $VG/r1 successfully converted."
test_eq "... region size 128k, one commit" "$(rs1) $(seqno)" "128.00k $((before + 1))"
before=$(seqno)
out=$(lvx lvconvert --regionsize 128K "$VG/r1" 2>&1); rc=$?
test_eq "--regionsize 128K again: LVM2's refusal, exit 5, nothing written" \
    "$rc $(tr -s ' ' <<<"$out" | sed 's/^ //') $(seqno)" "5 Region size is already 128.00 KiB on raid1 LV $VG/r1. $before"
test_eq "-R 1G: too large, exit 5" "$(lvx lvconvert -y -R 1G "$VG/r1" 2>&1 | tr -s ' ' | sed 's/^ //'; echo "${PIPESTATUS[0]} $(seqno)")" \
    "Region size is too large for raid1 LV $VG/r1.
5 $before"
test_eq "-R 512K answered n: NOT converted, exit 5" \
    "$(echo n | lvx lvconvert -R 512K "$VG/r1" 2>&1 | grep -c 'NOT converted'; echo "${PIPESTATUS[1]} $(seqno)")" "1
5 $before"
for _ in $(seq 100); do [[ $(lvx lvs --noheadings -o copy_percent "$VG/r1" | tr -d ' ') == 100.00 ]] && break; sleep 0.1; done
test_ok "r1 reads its data (the daemon resynced to the new bitmap)" cmp "$SCRATCH/r1" "$DM_DEV_DIR/$VG/r1"
uspace_run_ok "r1 deactivated and activated" sh -c "$LVX lvchange -q -an $VG/r1 && $LVX lvchange -q -ay $VG/r1"
test_ok "... still reads its data" cmp "$SCRATCH/r1" "$DM_DEV_DIR/$VG/r1"
test_eq "... in sync at once (the bitmap the daemon wrote has 128k regions)" \
    "$(lvx lvs --noheadings -o copy_percent,region_size "$VG/r1" | xargs)" "100.00 128.00k"
uspace_run_ok "r1 deactivated" lvx lvchange -q -an "$VG/r1"

uspace_run_ok "vgremove" lvx vgremove -q -f "$VG"

# ---- lvextend past 2^21 regions (LVM2's lvcreate-large-raid.sh:73-77; metadata only)
BVG=${VG}b
rs() { LVX_ACTIVATION_BACKEND=none lvx lvs --noheadings --units m -o lv_size,region_size "$BVG/r" 2>/dev/null | xargs; }
uspace_run_ok "VG on two sparse 6 TiB PVs, raid1 -L 3T --nosync (no activation)" sh -c "
    $LVX vgcreate -q $BVG ${BIG[*]} &&
    LVX_ACTIVATION_BACKEND=none $LVX lvcreate -q -an --type raid1 -m 1 -L 3T --nosync -n r $BVG"
test_eq "3 TiB: region size 2 MiB (2^21 regions cover 4 TiB)" "$(rs)" "3145728.00m 2.00m"
uspace_run_ok "lvextend -L 5T" env LVX_ACTIVATION_BACKEND=none "$LVX" lvextend -q -L 5T "$BVG/r"
test_eq "5 TiB: region size 4 MiB" "$(rs)" "5242880.00m 4.00m"
uspace_run_ok "lvextend -L +512G" env LVX_ACTIVATION_BACKEND=none "$LVX" lvextend -q -L +512G "$BVG/r"
test_eq "5.5 TiB: region size stays 4 MiB" "$(rs)" "5767168.00m 4.00m"
uspace_run_ok "vgremove" lvx vgremove -q -f "$BVG"
done_testing
