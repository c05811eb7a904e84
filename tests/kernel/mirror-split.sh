#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/mirror-split.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0786-kernel-mirror-split.sh) with 10 virtio disks, lvx at /t/lvx and the
# host's LVM2/dmsetup.  Prints TAP.  lvconvert --splitmirrors N (N > 1) of active,
# in-sync old-style mirrors, LVM2 on its VG (vda-vde), lvx on its twin (vdf-vdj):
#   - a 3-image disk-log mirror split 2: NAME a 2-image core-log mirror, the rest linear;
#   - a 4-image disk-log mirror split 2: both mirrors of 2 images, the log kept;
#   - a 4-image core-log mirror split 2 of the images on the PVs named (1st and 3rd);
#   - refusals: too few images on the PVs named, a raid1 LV (one image at a time);
# output and exit codes equal LVM2's, the metadata text (ids, times normalized), dm
# names/UUID forms and tables equal; every LV reads the data written before the split.
# shellcheck disable=SC2086
. /t/guest-tap.sh

LVM_VG=lvm-ms
LVX_VG=lvx-ms
pv_map a:f b:g c:h d:i e:j
REP=lv_name,lv_attr,lv_size,copy_percent,devices,mirror_log,region_size,seg_type
report() {  # report TOOL VG
    $1 lvs -a --noheadings --separator , -o $REP "$2" 2>/dev/null | trim | sed "s/$2/VG/g" |
        sed -E 's#/dev/vd[af]#PV0#g;s#/dev/vd[bg]#PV1#g;s#/dev/vd[ch]#PV2#g;s#/dev/vd[di]#PV3#g;s#/dev/vd[ej]#PV4#g'
}
both_pv() {  # both_pv DESC ARGS...: as `both`, P0..P4 the VG's PVs
    local desc=$1 ra=0 rb=0 oa ob a i
    shift
    local la=() lx=() L=(a b c d e) X=(f g h i j)
    for a in "$@"; do
        case $a in
        P[0-4]) i=${a#P}; la+=("/dev/vd${L[$i]}"); lx+=("/dev/vd${X[$i]}") ;;
        *) la+=("${a//VG/$LVM_VG}"); lx+=("${a//VG/$LVX_VG}") ;;
        esac
    done
    oa=$(lvm "${la[@]}" 2>&1) || ra=$?
    ob=$($LVX "${lx[@]}" 2>&1) || rb=$?
    check_eq "$desc: lvx's exit status and output equal LVM2's" \
        "$rb ${ob//$LVX_VG/VG}" "$ra ${oa//$LVM_VG/VG}"
}
dd if=/dev/urandom of=/tmp/D bs=1M count=8 2>/dev/null

check "LVM2 makes lvm-ms, lvx makes lvx-ms (5 PVs each)" sh -c \
    "lvm pvcreate -q /dev/vd[a-e] && lvm vgcreate -q lvm-ms /dev/vd[a-e] &&
     $LVX pvcreate -q /dev/vd[f-j] && $LVX vgcreate -q lvx-ms /dev/vd[f-j]"
# on the PVs named (the log of a mirror made on all PVs goes to a PV LVM2 chooses its
# own way: not what this test is about)
both_pv "m3: --type mirror -m2 (disk log)" lvcreate -q --type mirror -m2 -L 8m -n m3 VG P0 P1 P2 P3
both_pv "m4: --type mirror -m3 (disk log)" lvcreate -q --type mirror -m3 -L 8m -n m4 VG P0 P1 P2 P3 P4
both_pv "c4: --type mirror -m3 --corelog" lvcreate -q --type mirror -m3 --corelog -L 8m -n c4 VG P0 P1 P2 P3
both_pv "r3: --type raid1 -m2" lvcreate -q --type raid1 -m2 -L 8m -n r3 VG P0 P1 P2
for vg in $LVM_VG $LVX_VG; do
    for lv in m3 m4 c4 r3; do
        dd if=/tmp/D of=/dev/$vg/$lv bs=1M oflag=direct 2>/dev/null
        wait_sync lvm $vg/$lv
    done
done
check_eq "the LVs in sync, the same LVs on both sides" "$(report lvm $LVX_VG)" "$(report lvm $LVM_VG)"

both_pv "--splitmirrors 2 naming one PV: refused" lvconvert --splitmirrors 2 -n x VG/c4 P0
both "--splitmirrors 2 of a raid1 LV: refused" lvconvert -y --splitmirrors 2 -n x VG/r3
both "--splitmirrors 2 of the 3-image m3" lvconvert --splitmirrors 2 -n s3 VG/m3
both "--splitmirrors 2 of the 4-image m4" lvconvert --splitmirrors 2 -n s4 VG/m4
both_pv "--splitmirrors 2 of c4's images on the 1st and 3rd PVs" \
    lvconvert --splitmirrors 2 -n t4 VG/c4 P2 P0
check_eq "metadata of lvx's VG equals LVM2's (ids, times, hosts aside)" \
    "$(meta $LVX $LVX_VG)" "$(meta lvm $LVM_VG)"
check_eq "dm devices: names and UUID forms as LVM2's" "$(dm_forms $LVX_VG)" "$(dm_forms $LVM_VG)"
check_eq "dm tables as LVM2's (devices as names, PVs as LVM2's)" \
    "$(tables $LVX_VG)" "$(tables $LVM_VG)"
check_eq "reports (copy_percent of the new mirrors too) as LVM2's" \
    "$(report lvm $LVX_VG)" "$(report lvm $LVM_VG)"
note "$(tables $LVX_VG | grep ' mirror ')"
for lv in m3 s3 m4 s4 c4 t4 r3; do
    check "$lv (lvx's) reads the data written before the split" cmp -n 8388608 /tmp/D /dev/$LVX_VG/$lv
done
for lv in s3_mimage_0 s3_mimage_1 t4_mimage_0 t4_mimage_1; do
    check "lvx's image $lv holds the data" cmp -n 8388608 /tmp/D /dev/mapper/lvx--ms-$lv
done
check "lvx deactivates its VG, LVM2 activates it" sh -c \
    "$LVX vgchange -an $LVX_VG && lvm vgchange -ay $LVX_VG && lvm vgck $LVX_VG"
for lv in s3 s4 t4; do
    check "$lv (lvx's) read through LVM2's activation" cmp -n 8388608 /tmp/D /dev/$LVX_VG/$lv
done
check "both VGs removed" sh -c "lvm vgremove -ff $LVX_VG && lvm vgremove -ff $LVM_VG"
guest_done
