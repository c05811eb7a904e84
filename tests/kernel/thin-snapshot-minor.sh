#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/thin-snapshot-minor.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0767-kernel-thin-snapshot-minor.sh) with 2 sparse 256M virtio disks, lvx at
# /t/lvx and the host's LVM2/dmsetup.  Prints TAP.  Twin VGs (LVM2 on vda, VG "lvm-sm";
# lvx on vdb, VG "lvx-sm"); LVM2's minors 2345.., lvx's 2355..:
#
#   - lvcreate --minor -T -V of thin lv1, then a COW snapshot snap of it: lv1's device
#     (snapshot-origin) keeps the minor, lv1-real has the kernel's;
#   - after vgchange -an/-ay: the same (lvx used to give lv1's top device the kernel's
#     minor: its snapshot-origin device was made without the LV's minor);
#   - lvchange -y -My --minor of the active lv1: its device moves to the new minor;
#   - lvcreate -s --minor of snap2: snap2's snapshot device has the minor, also after
#     vgchange -an/-ay; snap2-cow has the kernel's;
#   - the metadata equal to LVM2's (minors aside).
# shellcheck disable=SC2086  # disk lists split on purpose
. /t/guest-tap.sh

LVM_VG=lvm-sm
LVX_VG=lvx-sm
minors() {  # minors DM-SUFFIX: "lvx lvm" minors of VG-DM-SUFFIX
    echo "$(kminor $LVX_VG "$1") $(kminor $LVM_VG "$1")"
}
kernels() {  # kernels DM-SUFFIX LVX-FIXED LVM-FIXED: "kernel kernel" when neither has its fixed minor
    local a b
    a=$(kminor $LVX_VG "$1") b=$(kminor $LVM_VG "$1")
    echo "$([ -n "$a" ] && [ "$a" != "$2" ] && echo kernel || echo "$a") $([ -n "$b" ] && [ "$b" != "$3" ] && echo kernel || echo "$b")"
}

check "LVM2 makes lvm-sm on vda, lvx makes lvx-sm on vdb" sh -c \
    "lvm pvcreate -q /dev/vda && lvm vgcreate -q lvm-sm /dev/vda &&
     $LVX pvcreate -q /dev/vdb && $LVX vgcreate -q lvx-sm /dev/vdb"
each "lvcreate -L16M -T VG/tp" lvcreate -q -L16M -T VG/tp
check "LVM2: lvcreate --minor 2345 -T -V8M -n lv1" lvm lvcreate -q --minor 2345 -T -V8M -n lv1 $LVM_VG/tp
check "lvx: lvcreate --minor 2355 -T -V8M -n lv1" $LVX lvcreate -q --minor 2355 -T -V8M -n lv1 $LVX_VG/tp
each "lvcreate -s -L4M -n snap VG/lv1 (a COW snapshot of the thin LV)" lvcreate -q -s -L4M -n snap VG/lv1
check_eq "... lv1's device keeps its minor: 2355 (lvx) 2345 (LVM2)" "$(minors lv1)" "2355 2345"
check_eq "... lv1-real has the kernel's minor, as LVM2's" "$(kernels lv1-real 2355 2345)" "kernel kernel"
each "vgchange -an VG" vgchange -q -an VG
each "vgchange -ay VG" vgchange -q -ay VG
check_eq "after vgchange -an/-ay: lv1's device has its minor, as LVM2's" "$(minors lv1)" "2355 2345"
check_eq "... lv1-real the kernel's, as LVM2's" "$(kernels lv1-real 2355 2345)" "kernel kernel"
check_eq "... lvx's lv_kernel_minor and lv_minor of lv1" \
    "$($LVX lvs --noheadings -o lv_kernel_minor,lv_minor $LVX_VG/lv1 | xargs)" "2355 2355"
check "LVM2: lvchange -y -My --minor 2346 of the active lv1" lvm lvchange -q -y -My --minor 2346 $LVM_VG/lv1
check "lvx: lvchange -y -My --minor 2356 of the active lv1" $LVX lvchange -q -y -My --minor 2356 $LVX_VG/lv1
check_eq "... lv1's device moved to 2356 (lvx) 2346 (LVM2)" "$(minors lv1)" "2356 2346"
check "LVM2: lvcreate -s -L4M --minor 2347 -n snap2 lv1" lvm lvcreate -q -s -L4M --minor 2347 -n snap2 $LVM_VG/lv1
check "lvx: lvcreate -s -L4M --minor 2357 -n snap2 lv1" $LVX lvcreate -q -s -L4M --minor 2357 -n snap2 $LVX_VG/lv1
check_eq "... snap2's device has 2357 (lvx) 2347 (LVM2)" "$(minors snap2)" "2357 2347"
check_eq "... snap2-cow the kernel's, as LVM2's" "$(kernels snap2-cow 2357 2347)" "kernel kernel"
each "vgchange -an VG" vgchange -q -an VG
each "vgchange -ay VG" vgchange -q -ay VG
check_eq "after vgchange -an/-ay: lv1 2356 2346, snap2 2357 2347, as LVM2's" "$(minors lv1) $(minors snap2)" "2356 2346 2357 2347"
check_eq "... -real and -cow the kernel's, as LVM2's" "$(kernels lv1-real 2356 2346) $(kernels snap2-cow 2357 2347)" \
    "kernel kernel kernel kernel"
check_eq "the metadata equal to LVM2's (minors aside)" "$(meta $LVX $LVX_VG | sed -E 's/minor = 235([0-9])/minor = 234\1/')" \
    "$(meta lvm $LVM_VG)"
check "both: vgremove -ff" sh -c "$LVX vgremove -q -ff $LVX_VG && lvm vgremove -q -ff $LVM_VG"
guest_done
