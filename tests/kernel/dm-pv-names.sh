#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/dm-pv-names.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0793-kernel-dm-pv-names.sh) with 2 virtio disks, lvx at /t/lvx and the
# host's LVM2/dmsetup.  Prints TAP.  PVs on device-mapper devices that are not LVs (a
# dm linear device over a disk, as LUKS or multipath put one there), each step run by
# LVM2 and then by lvx on the same devices, exit status and output compared:
#
#   xvda = dm linear over all of vda, xvdb = dm linear over vdb (all, or 1 MiB short)
#
# 1. names and filters: with a global_filter or filter accepting only /dev/mapper/x*,
#    pvcreate, vgcreate, pvs and vgs work and name the PV /dev/mapper/xvda (LVM2's
#    preferred name, not /dev/dm-N); "r|/dev/dm-|" then "a|.*|" accepts the device by
#    its /dev/mapper name; a filter rejecting /dev/vd* leaves the dm device alone.
# 2. duplicates (the PV seen on vdb and on xvdb, no filter): LVM2's "Not using device"
#    and "prefers device ... because ..." warnings for an orphan PV (dm preferred), for
#    a VG PV whose dev_size only the disk matches (size beats dm), and for a PV an
#    active LV uses (used by LV beats dm); vgcreate and vgextend of such a device are
#    refused ("Cannot use device ... with duplicates.", exit 5).
# 3. an LV used as a PV (scan_lvs 1) is named /dev/VG/LV, or by the name a filter
#    accepted it by.
# shellcheck disable=SC2086
# shellcheck source=tests/kernel/guest-tap.sh
. /t/guest-tap.sh

conf() {  # conf LVM.CONF-DEVICES-LINES: a private system dir for both tools
    mkdir -p /tmp/lc
    printf 'devices {\n %s\n use_devicesfile = 0\n hints = "none"\n}\nbackup {\n backup = 0\n archive = 0\n}\n' "$1" >/tmp/lc/lvm.conf
    export LVM_SYSTEM_DIR=/tmp/lc
}
# cmp_run DESC ARGS...: "lvm ARGS" then "lvx ARGS", exit status and output compared
cmp_run() {
    local desc=$1 ra=0 rb=0 oa ob
    shift
    oa=$(command lvm "$@" 2>&1) || ra=$?
    ob=$($LVX "$@" 2>&1) || rb=$?
    check_eq "$desc: lvx's exit status and output equal LVM2's" "$rb $ob" "$ra $oa"
}
# steps TOOL VG: pvcreate, vgcreate, reports, removal of a VG on xvda; output of all
steps() {
    local t=$1 vg=$2
    echo "pvcreate: $($t pvcreate -q -ff -y /dev/mapper/xvda 2>&1; echo rc=$?)"
    echo "vgcreate: $($t vgcreate -q $vg /dev/mapper/xvda 2>&1; echo rc=$?)"
    echo "pvs: $($t pvs -o pv_name,vg_name,pv_size 2>&1; echo rc=$?)"
    echo "pvs dm-0: $($t pvs --noheadings -o pv_name /dev/dm-0 2>&1; echo rc=$?)"
    echo "vgs: $($t vgs -o vg_name,pv_count $vg 2>&1; echo rc=$?)"
    echo "vgremove: $($t vgremove -q -f $vg 2>&1; echo rc=$?)"
    echo "pvremove: $($t pvremove -q -ff -y /dev/mapper/xvda 2>&1; echo rc=$?)"
}
filter_case() {  # filter_case DESC LVM.CONF-LINE
    conf "$2"
    local a b
    a=$(steps "command lvm" vgt | uuids)
    b=$(steps $LVX vgt | uuids)
    check_eq "$1: pvcreate, vgcreate, pvs, vgs, vgremove equal LVM2's" "$b" "$a"
}
uuids() { sed -E 's/[A-Za-z0-9]{6}(-[A-Za-z0-9]{4}){5}-[A-Za-z0-9]{6}/PVUUID/g'; }
wipe() { for d in "$@"; do dd if=/dev/zero of=$d bs=1M count=1 oflag=direct 2>/dev/null; done; }

SA=$(blockdev --getsz /dev/vda) SB=$(blockdev --getsz /dev/vdb)
check "dm linear xvda over vda, xvdb over vdb" sh -c \
    "dmsetup create xvda --table '0 $SA linear /dev/vda 0' && dmsetup create xvdb --table '0 $SB linear /dev/vdb 0'"
note "$(ls -l /dev/mapper/ /dev/disk 2>&1 | head -8)"

# ---------------------------------------------------------------- 1. names and filters
filter_case "global_filter a|^/dev/mapper/x| r|.*|" 'global_filter = [ "a|^/dev/mapper/x|", "r|.*|" ]'
filter_case "filter a|^/dev/mapper/x| r|.*|" 'filter = [ "a|^/dev/mapper/x|", "r|.*|" ]'
filter_case "global_filter r|^/dev/vd|" 'global_filter = [ "r|^/dev/vd|" ]'
# (/dev/vda rejected too: lvx's pvremove reads only the devices it names, so it does not
# warn about the PV's duplicate on the disk as LVM2's does)
filter_case "filter r|/dev/dm-| r|^/dev/vd| a|.*| (the /dev/mapper name accepted)" \
    'filter = [ "r|/dev/dm-|", "r|^/dev/vd|", "a|.*|" ]'
filter_case "filter a|^/dev/dm-0$| r|.*| (the kernel name accepted)" \
    'filter = [ "a|^/dev/dm-0$|", "r|.*|" ]'
conf 'filter = [ "r|^/dev/vd|" ]'
check "lvx pvcreate /dev/dm-0 (filter r|^/dev/vd|)" $LVX pvcreate -q /dev/dm-0
cmp_run "pvs names the PV made through /dev/dm-0 /dev/mapper/xvda" pvs -o pv_name,pv_size
cmp_run "pvs /dev/dm-0" pvs --noheadings -o pv_name /dev/dm-0
check "lvx pvremove /dev/mapper/xvda" $LVX pvremove -q -y /dev/mapper/xvda
wipe /dev/vda

# ---------------------------------------------------------------- 2. duplicates
# an orphan PV on xvdb, seen through vdb too: the dm device is preferred
conf 'global_filter = [ "a|^/dev/mapper/xvdb$|", "r|.*|" ]'
check "LVM2 pvcreate /dev/mapper/xvdb (filter: only it)" command lvm pvcreate -q /dev/mapper/xvdb
conf 'scan = [ "/dev" ]'
cmp_run "orphan PV on vdb and xvdb: pvs" pvs -o pv_name,vg_name
cmp_run "orphan PV on vdb and xvdb: vgcreate of the dm device refused" vgcreate -q vgd /dev/mapper/xvdb
cmp_run "orphan PV on vdb and xvdb: vgcreate of the disk refused" vgcreate -q vgd /dev/vdb
check "LVM2 vgcreate vge on /dev/mapper/xvda" command lvm vgcreate -q vge /dev/mapper/xvda
# LVM2's vgextend words the preference of the orphan "device name matches previous"
# (its rescans under the VG lock); lvx's stays "device is in dm subsystem": the refusal,
# its exit status and the other PV's warning are compared
ra=0 rb=0
oa=$(command lvm vgextend -q vge /dev/mapper/xvdb 2>&1) || ra=$?
ob=$($LVX vgextend -q vge /dev/mapper/xvdb 2>&1) || rb=$?
check_eq "orphan PV on vdb and xvdb: vgextend refused as LVM2 (exit status, last line)" \
    "$rb $(tail -n 1 <<<"$ob")" "$ra $(tail -n 1 <<<"$oa")"
U=$(lvm pvs --noheadings -o pv_uuid /dev/mapper/xvda 2>/dev/null | trim)
check_eq "... the warnings about vge's PV $U as LVM2's" "$(grep -- "$U" <<<"$ob")" "$(grep -- "$U" <<<"$oa")"
check "LVM2 vgremove vge" command lvm vgremove -q -f vge
wipe /dev/vdb /dev/vda

# a VG made on vdb (its dev_size), xvdb 1 MiB shorter: the disk's size is correct
conf 'global_filter = [ "a|^/dev/vdb$|", "r|.*|" ]'
check "LVM2 vgcreate vgs1 /dev/vdb, lvcreate lv1 (inactive; xvdb removed meanwhile)" sh -c \
    "dmsetup remove xvdb && lvm vgcreate -q vgs1 /dev/vdb && lvm lvcreate -q -an -Zn -l 2 -n lv1 vgs1"
check "xvdb 1 MiB shorter than vdb" dmsetup create xvdb --table "0 $((SB - 2048)) linear /dev/vdb 0"
conf 'scan = [ "/dev" ]'
cmp_run "VG PV on vdb and a shorter xvdb: pvs" pvs -o pv_name,vg_name
cmp_run "VG PV on vdb and a shorter xvdb: vgs" vgs -o vg_name,pv_count,lv_count vgs1

# the same VG, xvdb full size again, lv1 active over vdb: the device used by the LV
check "xvdb full size again" sh -c \
    "dmsetup remove xvdb && dmsetup create xvdb --table '0 $SB linear /dev/vdb 0'"
conf 'global_filter = [ "a|^/dev/vdb$|", "r|.*|" ]'
check "LVM2 lvchange -ay vgs1/lv1 (over vdb)" command lvm lvchange -q -ay vgs1/lv1
conf 'scan = [ "/dev" ]'
cmp_run "VG PV on vdb (used by an active LV) and xvdb: pvs" pvs -o pv_name,vg_name
cmp_run "VG PV on vdb (used by an active LV) and xvdb: lvs" lvs -o lv_name,lv_attr vgs1
conf 'global_filter = [ "a|^/dev/vdb$|", "r|.*|" ]'
check "LVM2 vgremove vgs1" command lvm vgremove -q -f vgs1
dmsetup remove xvda
dmsetup remove xvdb

# ---------------------------------------------------------------- 3. an LV as a PV
# (scan_lvs 1): LVM2 names it /dev/VG/LV, not /dev/dm-N
conf 'scan_lvs = 1'
check "LVM2 vgcreate lo /dev/vda, lvcreate lo/lv, pvcreate /dev/lo/lv" sh -c \
    "lvm vgcreate -q lo /dev/vda && lvm lvcreate -q -Zn -l 4 -n lv lo && lvm pvcreate -q /dev/lo/lv"
cmp_run "scan_lvs 1: pvs names the LV's PV /dev/lo/lv" pvs -o pv_name,vg_name,pv_size
conf 'scan_lvs = 1 global_filter = [ "a|^/dev/mapper/lo-lv$|", "a|^/dev/vda$|", "r|.*|" ]'
cmp_run "scan_lvs 1, filter accepting /dev/mapper/lo-lv: pvs names it so" pvs -o pv_name,vg_name
conf 'scan_lvs = 1'
check "LVM2 pvremove /dev/lo/lv, vgremove lo" sh -c "lvm pvremove -q /dev/lo/lv && lvm vgremove -q -f lo"
guest_done
