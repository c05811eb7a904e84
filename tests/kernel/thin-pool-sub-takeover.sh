#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/thin-pool-sub-takeover.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0784-kernel-thin-pool-sub-takeover.sh) with 8 sparse 128M virtio disks, lvx
# at /t/lvx and the host's LVM2/dmsetup.  Prints TAP.  Twin VGs (LVM2 on vda-vdd, VG
# "lvm-tt"; lvx on vde-vdh, VG "lvx-tt"), a pool -L4 -i2 with thin LV t holding data:
#   - lvconvert --type raid10 of the live pool's striped _tdata, then --type striped
#     back (LVM2's lvconvert-raid-takeover-thin.sh:29-33): lines, the dm tables equal
#     LVM2's, t keeps its data;
#   - its _tmeta made raid1 (--type raid1 -m1), the VG deactivated, lvconvert --repair
#     of the pool (LVM2's lvconvert-repair-thin-raid.sh:52): lvs -a equal LVM2's (the
#     raid1 pool_meta0, a linear _tmeta), and t, activated again, keeps its data.
# shellcheck disable=SC2086  # disk lists split on purpose
. /t/guest-tap.sh

LVM_VG=lvm-tt
LVX_VG=lvx-tt
pv_map a:e b:f c:g d:h
LV_COLS=lv_name,lv_size,segtype,lv_layout,lv_role,devices
same_lvs() {
    check_eq "$1: lvs -a equal to LVM2's" \
        "$($LVX lvs -a -o $LV_COLS $LVX_VG 2>&1 | sed 's|/dev/vde|/dev/vda|; s|/dev/vdf|/dev/vdb|; s|/dev/vdg|/dev/vdc|; s|/dev/vdh|/dev/vdd|')" \
        "$(lvm lvs -a -o $LV_COLS $LVM_VG 2>&1)"
}
same_tables() {
    check_eq "$1: the dm tables equal LVM2's" "$(tables $LVX_VG)" "$(tables $LVM_VG)"
}
tsum() { [ -b /dev/$LVX_VG/t ] && head -c 8388608 /dev/$LVX_VG/t | md5sum; }

check "LVM2 makes lvm-tt on vda-vdd, lvx makes lvx-tt on vde-vdh" sh -c \
    "lvm pvcreate -q /dev/vd[a-d] && lvm vgcreate -q $LVM_VG /dev/vd[a-d] &&
     $LVX pvcreate -q /dev/vd[e-h] && $LVX vgcreate -q $LVX_VG /dev/vd[e-h]"
each "lvcreate -L8 -i2 -T VG/pool -V10 -n t" lvcreate -q -L8 -i2 -T VG/pool -V10 -n t
dd if=/dev/urandom of=/tmp/d bs=1M count=8 2>/dev/null
check "data into lvx's t" dd if=/tmp/d of=/dev/$LVX_VG/t bs=1M oflag=direct
SUM=$(md5sum </tmp/d)

both "lvconvert --type raid10 -y VG/pool_tdata (striped, live pool)" \
    lvconvert --type raid10 -y VG/pool_tdata
for t in lvm $LVX; do
    [ $t = lvm ] && vg=$LVM_VG || vg=$LVX_VG
    wait_sync $t $vg/pool_tdata || note "$t $vg/pool_tdata not in sync"
done
same_tables "raid10 _tdata"
check_eq "... t keeps its data" "$(tsum)" "$SUM"
both "lvconvert --type striped -y VG/pool_tdata" lvconvert --type striped -y VG/pool_tdata
same_tables "striped _tdata again"
check_eq "... t keeps its data" "$(tsum)" "$SUM"

each "lvconvert --type raid1 -m1 -y VG/pool_tmeta" lvconvert -q --type raid1 -m1 -y VG/pool_tmeta
for t in lvm $LVX; do
    [ $t = lvm ] && vg=$LVM_VG || vg=$LVX_VG
    wait_sync $t $vg/pool_tmeta || note "$t $vg/pool_tmeta not in sync"
done
each "vgchange -an VG" vgchange -q -an VG
each "lvconvert -y --repair VG/pool (inactive)" lvconvert -q -y --repair VG/pool
same_lvs "after the repair of the raid1 _tmeta"
each "vgchange -ay VG" vgchange -q -ay VG
check_eq "... t keeps its data" "$(tsum)" "$SUM"
guest_done
