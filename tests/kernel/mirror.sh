#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/mirror.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0718-kernel-mirror.sh) with 6 virtio disks, lvx at /t/lvx and the host's
# LVM2/dmsetup.  Prints TAP (also to /out/result.tap).  Old-style mirrors
# (`lvcreate --type mirror`, the dm-mirror target), both tools:
#
#   vda-vdc  VG "lvm-mi": made, written and activated by LVM2
#   vdd-vdf  VG "lvx-mi": the same command lines through lvx
#
# Checks: lvcreate --type mirror (disk and core log, -m2, --nosync, -R, --corelog,
# --addtag, PV lists, --alloc anywhere, refusals) output and exit codes equal LVM2's;
# the metadata text equal to LVM2's once ids/times/names are normalized (images, log,
# placement, flags); dm names, UUID forms and tables (mirror disk/core lines, nosync,
# sub-LV devices) equal; reports (attr, Cpy%Sync, devices, log, region, roles) and
# lvdisplay -m equal, also lvx's on LVM2's VG; data written through each tool's
# activation lands on every image; each tool activates the other's VG with equal
# tables and reads the other's data byte for byte; lvrename of an active mirror (sub-LV
# devices renamed); lvconvert of inactive LVs linear -> mirror -> linear with the data
# kept and synced to the new image by the kernel; lvremove takes the sub-LVs along.
# shellcheck disable=SC2086  # disk lists split on purpose
. /t/guest-tap.sh

LVM_VG=lvm-mi
LVX_VG=lvx-mi

# lvx's PVs as LVM2's (same order) in `tables`
PVMAP="s/ $(devnum /dev/vdd) / $(devnum /dev/vda) /g;s/ $(devnum /dev/vde) / $(devnum /dev/vdb) /g;"
PVMAP+="s/ $(devnum /dev/vdf) / $(devnum /dev/vdc) /g;"
# names, UUID forms (suffixes) and read-only state of a VG's devices
dm_of() {
    dmsetup info -c --noheadings --separator ' ' -o name,uuid,attr | grep "^${1//-/--}-" | sort |
        sed -E "s/^${1//-/--}-/VG-/; s/ LVM-[A-Za-z0-9]{64}/ LVM-U/"
}
pvs_of() { sed "s#/dev/vd[ad]#PV0#g;s#/dev/vd[be]#PV1#g;s#/dev/vd[cf]#PV2#g"; }

REP=lv_name,lv_attr,lv_size,copy_percent,sync_percent,devices,mirror_log,region_size,seg_type,lv_layout,lv_role,seg_pe_ranges,lv_tags,lv_health_status
report() {  # report TOOL VG
    $1 lvs -a --noheadings --separator , -o $REP "$2" 2>/dev/null | trim | sed "s/$2/VG/g" | pvs_of
}
# both_pv DESC ARGS...: as `both`, with P0 P1 P2 the VG's first, second, third PV
both_pv() {
    local desc=$1 ra=0 rb=0 oa ob a
    shift
    local la=() lx=()
    for a in "$@"; do
        case $a in
        P0) la+=(/dev/vda); lx+=(/dev/vdd) ;;
        P1) la+=(/dev/vdb); lx+=(/dev/vde) ;;
        P2) la+=(/dev/vdc); lx+=(/dev/vdf) ;;
        *) la+=("${a//VG/$LVM_VG}"); lx+=("${a//VG/$LVX_VG}") ;;
        esac
    done
    oa=$(lvm "${la[@]}" 2>&1) || ra=$?
    ob=$($LVX "${lx[@]}" 2>&1) || rb=$?
    check_eq "$desc: lvx's exit status and output equal LVM2's" \
        "$rb $(pvs_of <<<"${ob//$LVX_VG/VG}")" "$ra $(pvs_of <<<"${oa//$LVM_VG/VG}")"
}
# wait_sync VG LV...: the mirrors' Cpy%Sync reach 100 (at most 120 s)
wait_sync() {
    local vg=$1 lv t
    shift
    for lv in "$@"; do
        for ((t = 0; t < 240; t++)); do
            [[ $(lvm lvs --noheadings -o copy_percent "$vg/$lv" 2>/dev/null | trim) == 100.00 ]] &&
                break
            sleep 0.5
        done
    done
}

for p in A B; do dd if=/dev/urandom of=/tmp/$p bs=1M count=8 2>/dev/null; done
check_eq "two 8 MiB random patterns" "$(cat /tmp/A /tmp/B | wc -c)" 16777216

# ---------------------------------------------------------------- create
check "LVM2 makes lvm-mi, lvx makes lvx-mi" sh -c \
    "lvm pvcreate -q /dev/vda /dev/vdb /dev/vdc && lvm vgcreate -q lvm-mi /dev/vda /dev/vdb /dev/vdc &&
     $LVX pvcreate -q /dev/vdd /dev/vde /dev/vdf && $LVX vgcreate -q lvx-mi /dev/vdd /dev/vde /dev/vdf"
both "lvcreate --type mirror -m1 (disk log)" lvcreate --type mirror -m1 -L 8m -n m1 VG
both "lvcreate --type mirror --mirrorlog core" lvcreate --type mirror -m1 -L 8m --mirrorlog core -n m2 VG
both "lvcreate --type mirror -m2 --nosync -R 512k" lvcreate --type mirror -m2 -L 4m --nosync -R 512k -n m3 VG
both "lvcreate --type mirror --corelog --nosync (no -m: 2 images)" \
    lvcreate --type mirror --corelog --nosync -L 4m -n m4 VG
both "lvcreate --type mirror -R 8m over 12 MiB" lvcreate --type mirror -m1 -L 12m -R 8m -n m5 VG
both "lvcreate --type mirror -R 16m over 4 MiB (reduced)" lvcreate --type mirror -m1 -L 4m -R 16m -n m6 VG
both "lvcreate --type mirror --addtag" lvcreate --type mirror -m1 -L 4m --addtag t1 -n m7 VG
both_pv "lvcreate --type mirror on two PVs (the log shares one)" \
    lvcreate --type mirror -m1 -L 4m -n m8 VG P0 P1
both_pv "lvcreate --type mirror --alloc anywhere on two PVs" \
    lvcreate --type mirror -m1 -L 4m --alloc anywhere -n m9 VG P0 P1
both_pv "lvcreate --type mirror -m2 on two PVs: refused" lvcreate --type mirror -m2 -L 4m -n m10 VG P0 P1
both "lvcreate --type mirror --mirrorlog mirrored: refused" \
    lvcreate --type mirror -m1 -L 4m --mirrorlog mirrored -n m11 VG
both "lvcreate --type mirror --mirrorlog bogus: refused" \
    lvcreate --type mirror -m1 -L 4m --mirrorlog bogus -n m11 VG
both "lvcreate --type mirror -m0: refused" lvcreate --type mirror -m0 -L 4m -n m11 VG
both "lvcreate --type mirror -R 3m: refused" lvcreate --type mirror -m1 -L 4m -R 3m -n m11 VG
both "lvcreate --type raid1 --mirrorlog core: refused" \
    lvcreate --type raid1 -m1 -L 4m --mirrorlog core -n m11 VG
both "lvcreate --type mirror -an" lvcreate --type mirror -m1 -L 4m -an -n m12 VG
wait_sync lvm-mi m1 m2 m5 m6 m7 m8 m9
wait_sync lvx-mi m1 m2 m5 m6 m7 m8 m9

check_eq "metadata of lvx's mirror VG equals LVM2's (ids, times, names normalized)" \
    "$(meta $LVX lvx-mi)" "$(meta lvm lvm-mi)"
check_eq "dm devices: names, UUID suffixes and read-only states as LVM2's" \
    "$(dm_of lvx-mi)" "$(dm_of lvm-mi)"
check_eq "dm tables of lvx's devices equal LVM2's (devices as names)" "$(tables lvx-mi)" "$(tables lvm-mi)"
check_eq "reports: lvx on its VG equals LVM2 on its VG" "$(report $LVX lvx-mi)" "$(report lvm lvm-mi)"
check_eq "reports: lvx on LVM2's VG equals LVM2's" "$(report $LVX lvm-mi)" "$(report lvm lvm-mi)"
check_eq "lvs -a (default columns): lvx on LVM2's VG equals LVM2's" \
    "$($LVX lvs -a lvm-mi 2>&1)" "$(lvm lvs -a lvm-mi 2>&1)"
# the lines of the active device too (LV Status, # open, read-ahead in use, Block
# device: cmd/lvdisplay.c takes them from the backend's status)
for lv in m1 m1_mlog m1_mimage_1 m3; do
    check_eq "lvdisplay -a -m of LVM2's $lv: lvx equals LVM2" \
        "$($LVX lvdisplay -a -m lvm-mi/$lv 2>&1)" "$(lvm lvdisplay -a -m lvm-mi/$lv 2>&1)"
done
note "$(tables lvx-mi | grep ' mirror ')"

# ---------------------------------------------------------------- data
check "pattern A written to both m1, B to both m2" sh -c \
    "dd if=/tmp/A of=/dev/lvm-mi/m1 bs=1M oflag=direct 2>/dev/null &&
     dd if=/tmp/A of=/dev/lvx-mi/m1 bs=1M oflag=direct 2>/dev/null &&
     dd if=/tmp/B of=/dev/lvm-mi/m2 bs=1M oflag=direct 2>/dev/null &&
     dd if=/tmp/B of=/dev/lvx-mi/m2 bs=1M oflag=direct 2>/dev/null"
for vg in lvm-mi lvx-mi; do
    check "$vg: every image of m1 holds A, of m2 B" sh -c \
        "cmp /tmp/A /dev/mapper/${vg//-/--}-m1_mimage_0 && cmp /tmp/A /dev/mapper/${vg//-/--}-m1_mimage_1 &&
         cmp /tmp/B /dev/mapper/${vg//-/--}-m2_mimage_0 && cmp /tmp/B /dev/mapper/${vg//-/--}-m2_mimage_1"
done

# ---------------------------------------------------------------- each tool activates the other's
check "lvx deactivates its VG, LVM2 deactivates its own" sh -c \
    "$LVX vgchange -an lvx-mi && lvm vgchange -an lvm-mi"
check_eq "no device of either VG left" "$(dmsetup ls | grep -E '^lv[mx]--mi-' || true)" ""
check "LVM2 activates lvx's VG, lvx activates LVM2's" sh -c \
    "lvm vgchange -ay lvx-mi && $LVX vgchange -ay lvm-mi"
check_eq "dm tables: lvx's activation of LVM2's VG equals LVM2's of lvx's" \
    "$(tables lvm-mi)" "$(tables lvx-mi)"
check_eq "dm devices of both activations alike" "$(dm_of lvm-mi)" "$(dm_of lvx-mi)"
for vg in lvm-mi lvx-mi; do
    check "$vg (activated by the other tool): m1 reads A, m2 B" sh -c \
        "cmp /tmp/A /dev/$vg/m1 && cmp /tmp/B /dev/$vg/m2"
done
wait_sync lvm-mi m1 m2 m5 m6 m7 m8 m9 m12
wait_sync lvx-mi m1 m2 m5 m6 m7 m8 m9 m12
check_eq "reports equal in both tools for both VGs" \
    "$(report $LVX lvx-mi; report $LVX lvm-mi)" "$(report lvm lvx-mi; report lvm lvm-mi)"
check "pattern B written to m1 through the other tool's activation" sh -c \
    "dd if=/tmp/B of=/dev/lvm-mi/m1 bs=1M oflag=direct 2>/dev/null &&
     dd if=/tmp/B of=/dev/lvx-mi/m1 bs=1M oflag=direct 2>/dev/null"
check "each tool takes the other's VG down and its own up again" sh -c \
    "lvm vgchange -an lvx-mi && $LVX vgchange -an lvm-mi &&
     $LVX vgchange -ay lvx-mi && lvm vgchange -ay lvm-mi"
for vg in lvm-mi lvx-mi; do
    check "$vg: m1 and both its images read B" sh -c \
        "cmp /tmp/B /dev/$vg/m1 && cmp /tmp/B /dev/mapper/${vg//-/--}-m1_mimage_0 &&
         cmp /tmp/B /dev/mapper/${vg//-/--}-m1_mimage_1"
done

# ---------------------------------------------------------------- rename, convert
both "lvrename of an active mirror" lvrename VG m5 big
check_eq "after the rename: dm names and UUID suffixes as LVM2's" "$(dm_of lvx-mi)" "$(dm_of lvm-mi)"
check_eq "after the rename: dm tables as LVM2's" "$(tables lvx-mi)" "$(tables lvm-mi)"
check_eq "after the rename: metadata as LVM2's" "$(meta $LVX lvx-mi)" "$(meta lvm lvm-mi)"
both "lvconvert -y -m0 of an active mirror (the table reloaded)" lvconvert -y -m0 VG/big
check_eq "after -m0 of the active mirror: dm tables as LVM2's" "$(tables lvx-mi)" "$(tables lvm-mi)"
both "lvcreate of a linear LV" lvcreate -L 8m -n lin VG
check "pattern A written to both, then deactivated" sh -c \
    "dd if=/tmp/A of=/dev/lvm-mi/lin bs=1M oflag=direct 2>/dev/null &&
     dd if=/tmp/A of=/dev/lvx-mi/lin bs=1M oflag=direct 2>/dev/null &&
     lvm lvchange -an lvm-mi/lin && $LVX lvchange -an lvx-mi/lin"
both "lvconvert --type mirror -m1 of an inactive linear LV" lvconvert -y --type mirror -m1 VG/lin
check_eq "metadata after linear -> mirror as LVM2's" "$(meta $LVX lvx-mi)" "$(meta lvm lvm-mi)"
both "lvchange -ay of the converted LV" lvchange -ay VG/lin
wait_sync lvm-mi lin
wait_sync lvx-mi lin
check_eq "the converted mirror: tables as LVM2's" "$(tables lvx-mi | grep -- -lin)" \
    "$(tables lvm-mi | grep -- -lin)"
for vg in lvm-mi lvx-mi; do
    check "$vg: the converted mirror and both its images read A" sh -c \
        "cmp /tmp/A /dev/$vg/lin && cmp /tmp/A /dev/mapper/${vg//-/--}-lin_mimage_0 &&
         cmp /tmp/A /dev/mapper/${vg//-/--}-lin_mimage_1"
done
both "lvchange -an of the mirror" lvchange -an VG/lin
both "lvconvert -m0 of the inactive mirror" lvconvert -y -m0 VG/lin
check_eq "metadata after mirror -> linear as LVM2's" "$(meta $LVX lvx-mi)" "$(meta lvm lvm-mi)"
check "both activate the linear LV again and read A" sh -c \
    "lvm lvchange -ay lvm-mi/lin && $LVX lvchange -ay lvx-mi/lin &&
     cmp /tmp/A /dev/lvm-mi/lin && cmp /tmp/A /dev/lvx-mi/lin"

# ---------------------------------------------------------------- remove
both "lvremove -y of an active mirror" lvremove -y VG/m1
both "lvremove -y of a core-log mirror" lvremove -y VG/m2
check_eq "dm tables equal after the removals (sub-LV devices gone)" "$(tables lvx-mi)" "$(tables lvm-mi)"
check_eq "metadata equal after the removals" "$(meta $LVX lvx-mi)" "$(meta lvm lvm-mi)"
check "lvx removes a mirror of LVM2's VG, LVM2 one of lvx's" sh -c \
    "$LVX lvremove -y lvm-mi/m3 && lvm lvremove -y lvx-mi/m3"
check_eq "metadata equal at the end" "$(meta $LVX lvx-mi)" "$(meta lvm lvm-mi)"
check "both VGs removed" sh -c "$LVX vgremove -ff lvx-mi && lvm vgremove -ff lvm-mi"
check_eq "no device of either VG left at the end" "$(dmsetup ls | grep -E '^lv[mx]--mi-' || true)" ""

guest_done
