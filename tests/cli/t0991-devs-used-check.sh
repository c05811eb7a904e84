#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0991-devs-used-check: LVM2's "Device mismatch detected" warning of the report
# commands (LVM2's test vg-check-devs-used, run against the kernel in the guest by
# bench/lvm2-testsuite): an active LV of a VG sits on a device that is no longer one of
# the VG's PVs (the PV's disk cloned and the clone seen instead).  This host has no
# device-mapper, so the kernel's view is a sysfs tree made by the test (LVX_SYSFS_DIR:
# class/misc/device-mapper, devices/virtual/block/dm-N/dm/{uuid,name} and slaves/,
# block/dm-N linked to it, as the kernel lays them out) naming the real loop devices: the LV's dm
# device on D1 and D2, a layer device of the same VG (a -real, left out as LVM2 leaves
# internal LVs out) and a foreign dm device.  Checks: no warning while the PVs are
# D1 and D2; after D1 is cloned to D3 and the report sees D2 and D3, pvs/vgs/lvs warn
# "... vg1/lv which is accessing D1 instead of D3." once each; a layer whose slaves are
# the PVs and another VG's device do not warn; without LVM devices in sysfs nothing;
# without device-mapper in the kernel (the same tree, no class/misc/device-mapper)
# nothing either.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_loop
need_lvx
plan_later
D1=$(make_loop 32M) && D2=$(make_loop 32M) && D3=$(make_loop 32M) ||
    { _tap_result 1 "loop devices"; done_testing; }
X() { lvx "$@" 2>&1 >/dev/null | grep "Device mismatch"; }

test_ok "vg1 on D1 D2, lv over both" sh -c \
    "'$LVX' pvcreate -q $D1 $D2 --devices $D1,$D2 && '$LVX' vgcreate -q vg1 $D1 $D2 --devices $D1,$D2 &&
     '$LVX' lvcreate -q -an -Zn -l 12 -n lv vg1 $D1 $D2 --devices $D1,$D2 &&
     '$LVX' lvcreate -q -an -Zn -l 1 -n other vg1 $D2 --devices $D1,$D2"
vgid=$(lvx vgs --noheadings -o vg_uuid vg1 --devices "$D1,$D2" | tr -d ' -')
lvid=$(lvx lvs --noheadings -o lv_uuid vg1/lv --devices "$D1,$D2" | tr -d ' -')
oid=$(lvx lvs --noheadings -o lv_uuid vg1/other --devices "$D1,$D2" | tr -d ' -')
majmin() { printf '%d:%d' "0x$(stat -c %t "$1")" "0x$(stat -c %T "$1")"; }
SYS=$SCRATCH/sys
# dm NAME KNAME UUID SLAVE...: a dm device in the fake sysfs, its slaves "kname=maj:min"
dm() {
    local k=$2 s
    mkdir -p "$SYS/devices/virtual/block/$k/dm" "$SYS/devices/virtual/block/$k/slaves" \
        "$SYS/block" "$SYS/class/misc/device-mapper"
    ln -sfn "../devices/virtual/block/$k" "$SYS/block/$k"
    echo "$1" >"$SYS/block/$k/dm/name"
    echo "$3" >"$SYS/block/$k/dm/uuid"
    shift 3
    for s in "$@"; do
        mkdir -p "$SYS/block/$k/slaves/${s%%=*}"
        echo "${s#*=}" >"$SYS/block/$k/slaves/${s%%=*}/dev"
    done
}
k1=$(basename "$D1") k2=$(basename "$D2")
dm vg1-lv-real dm-1 "LVM-$vgid$lvid-real" "$k1=$(majmin "$D1")" "$k2=$(majmin "$D2")"
dm vg1-lv dm-0 "LVM-$vgid$lvid" "dm-1=253:1"
dm vg1-other dm-2 "LVM-$vgid$oid" "$k2=$(majmin "$D2")"
dm foreign dm-3 "CRYPT-LUKS2-0123" "$k1=$(majmin "$D1")"
export LVX_SYSFS_DIR=$SYS

test_eq "the PVs are the devices the LVs sit on: no warning" "$(X pvs --devices "$D1,$D2")" ""
dd if="$D1" of="$D3" bs=1M oflag=direct status=none
want="  WARNING: Device mismatch detected for vg1/lv which is accessing /dev/$k1 instead of $D3."
test_eq "D1 cloned to D3, pvs --devices D2,D3: lvx warns for vg1/lv" "$(X pvs --devices "$D2,$D3")" "$want"
test_eq "... vgs too" "$(X vgs --devices "$D2,$D3")" "$want"
test_eq "... lvs too" "$(X lvs --devices "$D2,$D3")" "$want"
test_eq "... vg1/other (on D2 only) gets none" "$(X lvs --devices "$D2,$D3" | grep -c other)" 0
test_eq "without LVM devices in sysfs: no warning" \
    "$(LVX_SYSFS_DIR=$SCRATCH/nosys X pvs --devices "$D2,$D3")" ""
# a kernel without device-mapper (no class/misc/device-mapper) has no dm device: the
# same tree without that entry is not walked (as on the daemon's hosts)
cp -a "$SYS" "$SCRATCH/nodm" && rm -r "$SCRATCH/nodm/class/misc/device-mapper"
test_eq "without device-mapper in the kernel: not walked, no warning" \
    "$(LVX_SYSFS_DIR=$SCRATCH/nodm X pvs --devices "$D2,$D3")" ""
test_eq "the report itself is unchanged (lv on D3 and D2)" \
    "$(lvx lvs --noheadings -o devices vg1/lv --devices "$D2,$D3" 2>/dev/null | tr -d ' ' | paste -sd,)" "$D3(0),$D2(0)"
lvx vgremove -q -ff vg1 --devices "$D2,$D3" >/dev/null 2>&1
done_testing
