#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/thin-cow.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0742-kernel-thin-cow.sh) with 4 virtio disks, lvx at /t/lvx and the host's
# LVM2/dmsetup.  Prints TAP (also to /out/result.tap).  COW snapshots of thin LVs
# (`lvcreate -s -L SIZE -n NAME VG/THIN`: an old-style snapshot whose origin is the thin
# LV; the thin LV becomes snapshot-origin over its -real layer, the thin table), both
# tools:
#
#   vda-vdb  VG "lvm-tc": made and activated by LVM2
#   vdc-vdd  VG "lvx-tc": the same made and activated by lvx
#
# Checks: messages and exit codes equal LVM2's; metadata equal once ids/times/names are
# normalized; dm names, UUIDs and tables equal to LVM2's (also with a thin snapshot of
# the origin taken meanwhile, and after the COW snapshot's removal: the thin table back
# on the origin, no -real); the snapshot keeps the old data while the origin is
# rewritten; reports equal; each tool activates the other's VG and reads the same bytes.
# Sparse snapshots too: lvrename (active and inactive) renames NAME_vorigin and its
# devices as LVM2; `lvcreate -s -V -L VG` makes a thin LV in a new pool as LVM2.
# shellcheck disable=SC2086  # disk lists split on purpose
# shellcheck source=tests/kernel/guest-tap.sh
. /t/guest-tap.sh

LVM_VG=lvm-tc LVX_VG=lvx-tc
PVMAP="s/ $(devnum /dev/vdc) / $(devnum /dev/vda) /g;s/ $(devnum /dev/vdd) / $(devnum /dev/vdb) /g;"
report() {  # report TOOL VG
    $1 lvs -a --noheadings --separator , -o \
        lv_name,origin,lv_attr,lv_size,snap_percent,chunk_size,seg_type,lv_role,pool_lv "$2" 2>/dev/null | trim
}
sum() { dd if="$1" bs=1M count=2 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1; }

dd if=/dev/urandom of=/tmp/A bs=1M count=2 2>/dev/null
dd if=/dev/urandom of=/tmp/B bs=1M count=2 2>/dev/null
A=$(md5sum </tmp/A | cut -d' ' -f1) B=$(md5sum </tmp/B | cut -d' ' -f1)
check "LVM2 makes lvm-tc" sh -c \
    "lvm pvcreate -q /dev/vda /dev/vdb && lvm vgcreate -q lvm-tc /dev/vda /dev/vdb"
check "lvx makes lvx-tc" sh -c \
    "$LVX pvcreate -q /dev/vdc /dev/vdd && $LVX vgcreate -q lvx-tc /dev/vdc /dev/vdd"
both "lvcreate -T -L 16m -V 16m (pool and thin LV lv1)" lvcreate -T -L 16m -V 16m -n lv1 VG/pool
for vg in lvm-tc lvx-tc; do
    check "$vg: pattern A written to lv1" \
        dd if=/tmp/A of=/dev/$vg/lv1 bs=1M oflag=direct status=none
done

both "lvcreate -s -L 8m -n os1 VG/lv1 (active thin origin)" lvcreate -s -L 8m -n os1 VG/lv1
both "lvcreate -s -L 8m VG/pool (a thin pool)" lvcreate -s -L 8m -n bad VG/pool
check_eq "metadata of lvx's VG equals LVM2's (ids, times, names normalized)" \
    "$(meta $LVX lvx-tc)" "$(meta lvm lvm-tc)"
note "$(diff <(meta $LVX lvx-tc) <(meta lvm lvm-tc))"
check_eq "dm devices: names and UUID forms as LVM2's" "$(dm_forms lvx-tc)" "$(dm_forms lvm-tc)"
check_eq "dm tables equal LVM2's (devices as names)" "$(tables lvx-tc)" "$(tables lvm-tc)"
note "$(tables lvx-tc)"
check_eq "/dev/VG links equal" "$(ls /dev/lvx-tc | xargs)" "$(ls /dev/lvm-tc | xargs)"

for vg in lvm-tc lvx-tc; do
    check "$vg: pattern B written over lv1" \
        dd if=/tmp/B of=/dev/$vg/lv1 bs=1M oflag=direct status=none
    check_eq "$vg: lv1 reads B, os1 still reads A" "$(sum /dev/$vg/lv1) $(sum /dev/$vg/os1)" "$B $A"
done
check_eq "reports: lvx on its VG equals LVM2 on its VG" "$(report $LVX lvx-tc)" "$(report lvm lvm-tc)"
check_eq "reports: LVM2 on lvx's VG equals lvx's" "$(report lvm lvx-tc)" "$(report $LVX lvx-tc)"
note "$(report $LVX lvx-tc)"

both "lvcreate -s -n sn1 VG/lv1 (a thin snapshot of the COW origin)" \
    lvcreate -K -s -n sn1 VG/lv1
both "lvcreate -s -L 8m -n os2 VG/sn1 (a COW snapshot of that)" lvcreate -s -L 8m -n os2 VG/sn1
check_eq "dm tables equal LVM2's" "$(tables lvx-tc)" "$(tables lvm-tc)"
check_eq "metadata equal" "$(meta $LVX lvx-tc)" "$(meta lvm lvm-tc)"
for vg in lvm-tc lvx-tc; do
    check_eq "$vg: sn1 and os2 read B" "$(sum /dev/$vg/sn1) $(sum /dev/$vg/os2)" "$B $B"
done

check "lvx deactivates its VG, LVM2 its own" sh -c \
    "$LVX vgchange -an lvx-tc && lvm vgchange -an lvm-tc"
check_eq "no device of either VG left" "$(dmsetup ls | grep -E '^lv[mx]--tc-' || true)" ""
check "LVM2 activates lvx's VG, lvx activates LVM2's" sh -c \
    "lvm vgchange -ay -K lvx-tc && $LVX vgchange -ay -K lvm-tc"
check_eq "dm tables: lvx's activation of LVM2's VG equals LVM2's of lvx's" \
    "$(tables lvm-tc)" "$(tables lvx-tc)"
for vg in lvm-tc lvx-tc; do
    check_eq "$vg (activated by the other tool): lv1 B, os1 A" \
        "$(sum /dev/$vg/lv1) $(sum /dev/$vg/os1)" "$B $A"
done

both "lvremove -f VG/os1 (active)" lvremove -f VG/os1
check_eq "dm tables equal after the removal (lv1 thin again)" "$(tables lvx-tc)" "$(tables lvm-tc)"
check_eq "metadata equal after the removal" "$(meta $LVX lvx-tc)" "$(meta lvm lvm-tc)"
both "lvchange -an VG/lv1" lvchange -an VG/lv1
both "lvcreate -s -L 8m -n os3 VG/lv1 (inactive thin origin)" lvcreate -s -L 8m -n os3 VG/lv1
check_eq "dm tables equal" "$(tables lvx-tc)" "$(tables lvm-tc)"
both "lvchange -ay VG/os3 (the set with it)" lvchange -ay VG/os3
check_eq "dm tables equal" "$(tables lvx-tc)" "$(tables lvm-tc)"
check_eq "reports equal" "$(report $LVX lvx-tc)" "$(report lvm lvm-tc)"
check_eq "reports with data_percent equal" \
    "$(report $LVX lvx-tc; $LVX lvs --noheadings -o lv_name,data_percent lvx-tc | trim)" \
    "$(report lvm lvm-tc; lvm lvs --noheadings -o lv_name,data_percent lvm-tc | trim)"
# ---- sparse snapshots: lvrename takes NAME_vorigin along; -s -V VG makes a thin LV
both "lvcreate --type snapshot -L 8m -V 32m -n sp" lvcreate --type snapshot -L 8m -V 32m -n sp VG
both "lvrename VG/sp VG/sp2 (active)" lvrename VG/sp VG/sp2
check_eq "dm devices after the rename: names and UUID forms as LVM2's" \
    "$(dm_forms lvx-tc)" "$(dm_forms lvm-tc)"
check_eq "dm tables equal after the rename" "$(tables lvx-tc)" "$(tables lvm-tc)"
check_eq "/dev/VG links equal (no _vorigin)" "$(ls /dev/lvx-tc | xargs)" "$(ls /dev/lvm-tc | xargs)"
both "lvchange -an VG/sp2" lvchange -an VG/sp2
both "lvrename VG sp2 sp3 (inactive)" lvrename VG sp2 sp3
check_eq "metadata equal after the renames" "$(meta $LVX lvx-tc)" "$(meta lvm lvm-tc)"
both "lvrename of the hidden sp3_vorigin" lvrename VG/sp3_vorigin VG/x
both "lvcreate -s -V 32m -L 8m -n tv VG (a thin LV in a new pool)" \
    lvcreate -s -V 32m -L 8m -n tv VG
check_eq "metadata equal" "$(meta $LVX lvx-tc)" "$(meta lvm lvm-tc)"
check_eq "dm tables equal" "$(tables lvx-tc)" "$(tables lvm-tc)"
both "lvremove -f VG/pool (thin LVs after their COW snapshots)" lvremove -f VG/pool
both "lvremove -f VG/lvol1" lvremove -f VG/lvol1
both "lvremove -f of the VG's last LVs" lvremove -f VG
check_eq "no device of either VG left" "$(dmsetup ls | grep -E '^lv[mx]--tc-' || true)" ""

guest_done
