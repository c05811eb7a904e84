#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1092-user-mirror-split-n: lvconvert --splitmirrors N (N > 1) --name NEW of old-style
# mirrors the lvx daemon serves (user backend, loop devices), as LVM2 2.03.16's
# _split_mirror_images builds it (the layout t0786 sees LVM2 make in the kernel): the
# last N images leave the mirror in their order; NEW is a mirror of them with a core
# log, NEW_mimage_0 holding the first one's extents, NEW_mimage_1... the others; the
# mirror keeps the rest and its log (down to one image: linear, its log gone).  Both
# read the data written before the split, through the LV and straight from their PVs;
# LVM2's lvs and vgck read the result.  Refusals (LVM2's line, exit 5, no write): too
# few images on the PVs named, more images than the mirror has, a raid1 LV (one image
# at a time there).  Before this change lvx refused any N > 1 of a mirror.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

VG=vgmsn$$
uspace_test_loops "$VG" 5 32M
MIB=1048576

uspace_run_ok "pvcreate, vgcreate" sh -c "$LVX pvcreate ${DEVS[*]} && $LVX vgcreate $VG ${DEVS[*]}"
uspace_run_ok "mirror m (-m3, 8 MiB, images on D0-D3, log on D4), raid1 r (-m2)" sh -c \
    "$LVX lvcreate -Zn --type mirror -m3 -L 8m -n m $VG ${DEVS[*]} &&
     $LVX lvcreate -Zn --type raid1 -m2 -L 4m -n r $VG ${DEVS[*]:0:3}"
head -c $((8 * MIB)) /dev/urandom >"$SCRATCH/d"
uspace_run_ok "8 MiB written to m, 4 MiB to r" sh -c \
    "dd if=$SCRATCH/d of=$DM_DEV_DIR/$VG/m bs=1M oflag=direct conv=fsync status=none &&
     dd if=$SCRATCH/d of=$DM_DEV_DIR/$VG/r bs=1M count=4 oflag=direct conv=fsync status=none"
insync() {
    local _i
    for _i in $(seq 300); do
        [[ $(field "$VG/$1" copy_percent) == 100.00 ]] && return 0
        sleep 0.2
    done
    return 1
}
test_eq "m and r in sync" "$(insync m && insync r && echo yes)" yes

seqno() { lvm2 vgs --noheadings -o vg_seqno "$VG" 2>/dev/null | tr -d ' '; }
refused() {  # refused DESC LINE ARGS...: exit 5, LVM2's line, the metadata unchanged
    local desc=$1 line=$2 rc=0 s0
    shift 2
    s0=$(seqno)
    "$LVX" lvconvert "$@" >"$SCRATCH/r.out" 2>&1 || rc=$?
    test_eq "$desc: exit 5, LVM2's line, no write" "$rc $(cat "$SCRATCH/r.out") $(seqno)" \
        "5   $line $s0"
}
refused "--splitmirrors 2 naming one PV" "Insufficient removable PVs given to satisfy request." \
    --splitmirrors 2 -n x "$VG/m" "${DEVS[1]}"
refused "--splitmirrors 4 of a 4-image mirror" "Unable to reduce images by specified amount - only 4 in m" \
    --splitmirrors 4 -n x "$VG/m"
refused "--splitmirrors 2 of a raid1 LV" "Unable to split more than one image from $VG/r." \
    -y --splitmirrors 2 -n x "$VG/r"

# LVM2's view of the LVs named and their sub-LVs: name segtype devices mirror_log, one
# LV a line (in LVM2's order), PVs as D0..D4
layout() {
    local i out
    out=$(lvm2 lvs -a --noheadings --separator ' ' -o lv_name,segtype,devices,mirror_log "$VG" \
        2>/dev/null | sed 's/^ *//' | grep -E "^\[?($(IFS='|'; echo "$*"))[]_ ]")
    for i in "${!DEVS[@]}"; do out=${out//"${DEVS[$i]}("/D$i(}; done
    echo "$out"
}
# pv_sum LV: sha256 of a linear (sub-)LV's one segment read straight from its PV
pv_sum() {
    local range dev pe n es ps
    range=$(lvm2 lvs -a --noheadings -o seg_pe_ranges "$VG/$1" 2>/dev/null | tr -d ' ')
    dev=${range%%:*}
    pe=${range#*:}
    n=$((${pe#*-} - ${pe%-*} + 1))
    pe=${pe%-*}
    es=$(lvm2 vgs --noheadings --units s --nosuffix -o vg_extent_size "$VG" 2>/dev/null | tr -d ' ')
    ps=$(lvm2 pvs --noheadings --units s --nosuffix -o pe_start "$dev" 2>/dev/null | tr -d ' ')
    dd if="$dev" bs=512 skip=$((ps + pe * es)) count=$((n * es)) iflag=direct status=none |
        sha256sum | cut -d' ' -f1
}

rc=0
timeout 120 "$LVX" lvconvert --splitmirrors 2 -n s "$VG/m" >"$SCRATCH/s.out" 2>&1 || rc=$?
test_eq "--splitmirrors 2 of the 4-image m: exit 0, LVM2's line" \
    "$rc $(grep -v '^ *WARNING: ' "$SCRATCH/s.out")" \
    "0   Logical volume $VG/m converted."
test_eq "... s a core-log mirror of m's last two images (D2, D3), m keeps D0, D1 and its log" \
    "$(layout m s)" "m mirror m_mimage_0(0),m_mimage_1(0) [m_mlog]
[m_mimage_0] linear D0(0) 
[m_mimage_1] linear D1(0) 
[m_mlog] linear D4(0) 
s mirror s_mimage_0(0),s_mimage_1(0) 
[s_mimage_0] linear D2(0) 
[s_mimage_1] linear D3(0) "
# LVM2 loads NEW's first table with "nosync" (its images are in sync): the daemon too
test_eq "... s active, in sync at once (no copy), its region size m's" \
    "$(field "$VG/s" lv_active) $(field "$VG/s" copy_percent) $(field "$VG/s" region_size)" \
    "active 100.00 $(field "$VG/m" region_size)"
test_eq "... the daemon copied nothing to s (no region out of sync at its start)" \
    "$(grep -c "$VG/s: .* mirror regions out of sync" "$LVX_RUN_DIR/lvxd.log")" 0
test_eq "... s and m read the data" "$(lv_sum "$VG/s") $(lv_sum "$VG/m")" \
    "$(fsum "$SCRATCH/d") $(fsum "$SCRATCH/d")"
test_eq "... s_mimage_0 and s_mimage_1 hold it on their PVs" \
    "$(pv_sum s_mimage_0) $(pv_sum s_mimage_1)" "$(fsum "$SCRATCH/d") $(fsum "$SCRATCH/d")"
test_ok "... LVM2's vgck accepts it" lvm2 vgck "$VG"

# a 3-image core-log mirror c on D0-D2: its images on D2 and D0 split (named in that
# order), c linear on D1, its log gone
uspace_run_ok "mirror c (-m2 --corelog, 8 MiB on D0-D2), data written, in sync" sh -c \
    "$LVX lvcreate -Zn --type mirror -m2 --corelog -L 8m -n c $VG ${DEVS[*]:0:3} &&
     dd if=$SCRATCH/d of=$DM_DEV_DIR/$VG/c bs=1M oflag=direct conv=fsync status=none"
test_eq "c in sync" "$(insync c && echo yes)" yes
rc=0
timeout 120 "$LVX" lvconvert --splitmirrors 2 -n t "$VG/c" "${DEVS[2]}" "${DEVS[0]}" \
    >"$SCRATCH/t.out" 2>&1 || rc=$?
test_eq "--splitmirrors 2 of c's images on D2 and D0: exit 0, LVM2's line" \
    "$rc $(grep -v '^ *WARNING: ' "$SCRATCH/t.out")" "0   Logical volume $VG/c converted."
test_eq "... t a mirror of them in their order (D0, D2), c linear on D1" \
    "$(layout c t | grep -v '^\[')" "c linear D1(4) 
t mirror t_mimage_0(0),t_mimage_1(0) "
test_eq "... t's images on D0 and D2" "$(layout t | grep '^\[' | sed 's/([0-9]*)//')" \
    "[t_mimage_0] linear D0 
[t_mimage_1] linear D2 "
test_eq "... t in sync at once, nothing copied" \
    "$(field "$VG/t" copy_percent) $(grep -c "$VG/t: .* mirror regions out of sync" "$LVX_RUN_DIR/lvxd.log")" \
    "100.00 0"
test_eq "... t and c read the data, t's images hold it on their PVs" \
    "$(lv_sum "$VG/t") $(lv_sum "$VG/c") $(pv_sum t_mimage_0) $(pv_sum t_mimage_1)" \
    "$(for _ in 1 2 3 4; do fsum "$SCRATCH/d"; done | paste -sd' ')"
test_ok "... LVM2's vgck accepts it" lvm2 vgck "$VG"
uspace_run_ok "deactivate, activate again: s and t read the data" sh -c \
    "$LVX vgchange -an $VG && $LVX vgchange -ay $VG &&
     cmp $SCRATCH/d $DM_DEV_DIR/$VG/s && cmp $SCRATCH/d $DM_DEV_DIR/$VG/t"
uspace_run_ok "deactivate" "$LVX" vgchange -an "$VG"
done_testing
