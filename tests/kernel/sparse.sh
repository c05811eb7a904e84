#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/sparse.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0740-kernel-sparse.sh) with 4 virtio disks, lvx at /t/lvx and the host's
# LVM2/dmsetup.  Prints TAP (also to /out/result.tap).  Sparse snapshots (`lvcreate
# --type snapshot -L SIZE -n NAME VG --virtualsize VSIZE`), both tools:
#
#   vda-vdb  VG "lvm-sp": made and activated by LVM2
#   vdc-vdd  VG "lvx-sp": the same made and activated by lvx
#
# Checks: lvcreate's messages and exit codes equal LVM2's (rounded virtual size, the
# too-large and shared-origin errors); the metadata text equal to LVM2's once
# ids/times/names are normalized; dm names, UUIDs and tables (zero target under
# NAME_vorigin-real, snapshot-origin, -cow, snapshot) equal to LVM2's; data written to
# the sparse LV read back; reports equal; each tool activates the other's VG and reads
# the data; lvremove takes the _vorigin along, no device left.
# shellcheck disable=SC2086  # disk lists split on purpose
# shellcheck source=tests/kernel/guest-tap.sh
. /t/guest-tap.sh

LVM_VG=lvm-sp LVX_VG=lvx-sp
PVMAP="s/ $(devnum /dev/vdc) / $(devnum /dev/vda) /g;s/ $(devnum /dev/vdd) / $(devnum /dev/vdb) /g;"
report() {  # report TOOL VG
    $1 lvs -a --noheadings --separator , \
        -o lv_name,origin,lv_attr,lv_size,snap_percent,chunk_size,seg_type,lv_role "$2" 2>/dev/null | trim
}

dd if=/dev/urandom of=/tmp/A bs=1M count=3 2>/dev/null
check_eq "a 3 MiB random pattern" "$(wc -c </tmp/A)" 3145728

check "LVM2 makes lvm-sp" sh -c \
    "lvm pvcreate -q /dev/vda /dev/vdb && lvm vgcreate -q lvm-sp /dev/vda /dev/vdb"
check "lvx makes lvx-sp" sh -c \
    "$LVX pvcreate -q /dev/vdc /dev/vdd && $LVX vgcreate -q lvx-sp /dev/vdc /dev/vdd"

both "lvcreate --type snapshot -s -L 8m --virtualsize 1001m" \
    lvcreate --type snapshot -s -L 8m -n sp VG --virtualsize 1001m
both "lvcreate --type snapshot -l 2 -V 2t" lvcreate --type snapshot -l 2 -n big -V 2t VG
both "lvcreate -s of a virtual origin" lvcreate -s -L 4m -n s9 VG/sp_vorigin
both "lvcreate --type snapshot -V 20P (too large)" \
    lvcreate --type snapshot -s -L 4m -n s9 VG --virtualsize 20P

check_eq "metadata of lvx's sparse snapshots equals LVM2's (ids, times, names normalized)" \
    "$(meta $LVX lvx-sp)" "$(meta lvm lvm-sp)"
note "$(diff <(meta $LVX lvx-sp) <(meta lvm lvm-sp))"
check_eq "dm devices: names and UUID forms as LVM2's" "$(dm_forms lvx-sp)" "$(dm_forms lvm-sp)"
check_eq "dm tables of lvx's sets equal LVM2's (devices as names)" "$(tables lvx-sp)" "$(tables lvm-sp)"
note "$(tables lvx-sp)"
check_eq "read-only flags of the devices equal LVM2's" \
    "$(for d in $(dmsetup ls | awk '/^lvx--sp-/ {print $1}' | sort); do echo "${d#lvx--sp-} $(blockdev --getro /dev/mapper/$d)"; done)" \
    "$(for d in $(dmsetup ls | awk '/^lvm--sp-/ {print $1}' | sort); do echo "${d#lvm--sp-} $(blockdev --getro /dev/mapper/$d)"; done)"
check_eq "lvx lvtable lvx-sp equals dmsetup table (its blank after \"zero\" aside)" \
    "$($LVX lvtable lvx-sp 2>&1 | sort)" "$(dmsetup table | grep '^lvx--sp-' | sed 's/ $//' | sort)"
check_eq "/dev/VG/sp links: sp and big only, on both sides" \
    "$(ls /dev/lvx-sp | xargs)" "$(ls /dev/lvm-sp | xargs)"

for vg in lvm-sp lvx-sp; do
    check "$vg: pattern A written at 500 MiB and read back" bash -c \
        "dd if=/tmp/A of=/dev/$vg/sp bs=1M seek=500 oflag=direct 2>/dev/null &&
         cmp -n 3145728 /tmp/A <(dd if=/dev/$vg/sp bs=1M skip=500 count=3 iflag=direct 2>/dev/null) &&
         cmp -n 1048576 /dev/zero /dev/$vg/sp"
done
check_eq "reports: lvx on its VG equals LVM2 on its VG" "$(report $LVX lvx-sp)" "$(report lvm lvm-sp)"
check_eq "reports: lvx on LVM2's VG equals LVM2's" "$(report $LVX lvm-sp)" "$(report lvm lvm-sp)"
check_eq "reports: LVM2 on lvx's VG equals lvx's" "$(report lvm lvx-sp)" "$(report $LVX lvx-sp)"
note "$(report $LVX lvx-sp)"

check "lvx deactivates its VG, LVM2 its own" sh -c \
    "$LVX vgchange -an lvx-sp && lvm vgchange -an lvm-sp"
check_eq "no device of either VG left" "$(dmsetup ls | grep -E '^lv[mx]--sp-' || true)" ""
check "LVM2 activates lvx's VG, lvx activates LVM2's" sh -c \
    "lvm vgchange -ay lvx-sp && $LVX vgchange -ay lvm-sp"
check_eq "dm tables: lvx's activation of LVM2's VG equals LVM2's of lvx's" \
    "$(tables lvm-sp)" "$(tables lvx-sp)"
for vg in lvm-sp lvx-sp; do
    check "$vg (activated by the other tool): pattern A read back" bash -c \
        "cmp -n 3145728 /tmp/A <(dd if=/dev/$vg/sp bs=1M skip=500 count=3 iflag=direct 2>/dev/null)"
done

both "lvchange -an of a sparse LV" lvchange -an VG/sp
check_eq "dm tables equal after lvchange -an" "$(tables lvx-sp)" "$(tables lvm-sp)"
both "lvchange -ay of a sparse LV" lvchange -ay VG/sp
both "lvremove -f of an active sparse LV" lvremove -f VG/sp
check_eq "dm tables equal after the removal" "$(tables lvx-sp)" "$(tables lvm-sp)"
check_eq "metadata equal after the removal" "$(meta $LVX lvx-sp)" "$(meta lvm lvm-sp)"
both "lvremove -f of the VG's last LV" lvremove -f VG
check_eq "no device of either VG left" "$(dmsetup ls | grep -E '^lv[mx]--sp-' || true)" ""

guest_done
