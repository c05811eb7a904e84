# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC2086
#
# tests/kernel/mirror-lost.sh - sourced by the guest scripts that repair a mirror whose
# PVs were lost (mirror-repair.sh, mirror-repair-linear.sh), after guest-tap.sh, with
# LVM_VG and LVX_VG set.  Disks vda-vde are LVM2's, vdf-vdj lvx's (pv_map a:f ... e:j).
#
#   mirror_lost MIB LOST...   checks: both tools make their VG over their 5 disks and a
#                             3-image disk-log mirror "m" of MIB MiB (images on PVs 0-2,
#                             the log on PV 3), in sync, /tmp/A (MIB MiB of random data,
#                             its sha256 in $A) written to each, both deactivated, the
#                             labels of PVs LOST... (0-4) wiped on each, both activated
#                             with --activationmode partial (exit status as LVM2's)
#   repair_both DESC ARGS...  lvconvert ARGS... VG/m by each tool (LVM2 without
#                             guest-tap.sh's --config: give one in ARGS), then checks:
#                             exit status and output as LVM2's (LVM2's poll's progress
#                             lines below 100% aside: how many is timing; the missing
#                             PVs' warnings aside), both in sync, metadata and dm tables
#                             as LVM2's
#   sync_both                 both mirrors in sync
#   img_sum DMNAME            sha256 of the first MIB MiB of /dev/mapper/DMNAME

pv_map a:f b:g c:h d:i e:j
LOST_MIB=0
sync_both() { wait_sync lvm $LVM_VG/m && wait_sync lvm $LVX_VG/m; }
img_sum() { dd if="/dev/mapper/$1" bs=1M count=$LOST_MIB iflag=direct status=none | sha256sum | cut -d' ' -f1; }

mirror_lost() {
    local mib=$1 k wipe="" ra=0 rb=0
    shift
    LOST_MIB=$mib
    local lvm_d=(/dev/vda /dev/vdb /dev/vdc /dev/vdd /dev/vde) lvx_d=(/dev/vdf /dev/vdg /dev/vdh /dev/vdi /dev/vdj)
    for k in "$@"; do wipe+=" ${lvm_d[$k]} ${lvx_d[$k]}"; done
    dd if=/dev/urandom of=/tmp/A bs=1M count=$mib 2>/dev/null
    A=$(sha256sum </tmp/A | cut -d' ' -f1)
    check "LVM2 makes $LVM_VG, lvx makes $LVX_VG" sh -c \
        "lvm pvcreate -q ${lvm_d[*]} && lvm vgcreate -q $LVM_VG ${lvm_d[*]} &&
         $LVX pvcreate -q ${lvx_d[*]} && $LVX vgcreate -q $LVX_VG ${lvx_d[*]}"
    check "lvcreate --type mirror -m2 (disk log) by each tool: images on PVs 0-2, log on PV 3" sh -c \
        "lvm lvcreate -q --type mirror -m2 -L ${mib}m -n m $LVM_VG ${lvm_d[*]:0:4} &&
         $LVX lvcreate -q --type mirror -m2 -L ${mib}m -n m $LVX_VG ${lvx_d[*]:0:4}"
    check "both in sync" sync_both
    check "$mib MiB written to each" sh -c \
        "dd if=/tmp/A of=/dev/$LVM_VG/m bs=1M oflag=direct status=none &&
         dd if=/tmp/A of=/dev/$LVX_VG/m bs=1M oflag=direct status=none"
    check "both deactivated, the labels of PVs $* wiped on each (lost disks)" sh -c \
        "lvm vgchange -an $LVM_VG >/dev/null && $LVX vgchange -an $LVX_VG >/dev/null &&
         for d in $wipe; do dd if=/dev/zero of=\$d bs=1M count=1 oflag=direct status=none || exit 1; done"
    oa=$(lvm vgchange -ay --activationmode partial $LVM_VG 2>&1) || ra=$?
    ob=$($LVX vgchange -ay --activationmode partial $LVX_VG 2>&1) || rb=$?
    check_eq "vgchange -ay --activationmode partial: exit status as LVM2's" "$rb" "$ra"
}

repair_both() {
    local desc=$1 ra=0 rb=0 oa ob
    shift
    oa=$(command lvm lvconvert "$@" $LVM_VG/m 2>&1) || ra=$?
    ob=$($LVX lvconvert "$@" $LVX_VG/m 2>&1) || rb=$?
    note "LVM2: $oa"
    note "lvx: $ob"
    check_eq "$desc: exit status and output as LVM2's (progress lines below 100% aside)" \
        "$rb $(quiet_missing <<<"${ob//$LVX_VG/VG}" | grep -v "Converted: [0-9.]*%$" ; grep -c "Converted: 100.00%$" <<<"$ob")" \
        "$ra $(quiet_missing <<<"${oa//$LVM_VG/VG}" | grep -v "Converted: [0-9.]*%$" ; grep -c "Converted: 100.00%$" <<<"$oa")"
    check "$desc: both in sync" sync_both
    check_eq "$desc: metadata as LVM2's" "$(meta $LVX $LVX_VG)" "$(meta lvm $LVM_VG)"
    check_eq "$desc: dm tables as LVM2's" "$(tables $LVX_VG)" "$(tables $LVM_VG)"
}
