#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/thin-pool-on-raid.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0772-kernel-thin-pool-on-raid.sh) with 6 sparse 256M virtio disks, lvx at
# /t/lvx and the host's LVM2/dmsetup.  Prints TAP.  Twin VGs (LVM2 on vda-vdc, VG
# "lvm-tr"; lvx on vdd-vdf, VG "lvx-tr"):
#
#   - raid1 p (-l 8) and raid1 m (-L 2), lvconvert --yes --thinpool VG/p --poolmetadata m
#     (LVM2's pvmove-thin-segtypes.sh:59): p_tdata and p_tmeta are raid1 LVs with
#     their images renamed under them; lvs -a and the metadata equal to LVM2's;
#   - thin LV t in the pool: the VG's dm tables, names and UUIDs equal to LVM2's (the
#     raid1 devices under -tpool's tdata/tmeta), also after vgchange -an/-ay;
#   - pvmove vda -> vdc (vdd -> vdf) of the active pool, then pvmove --atomic -n t back
#     (pvmove-thin-segtypes.sh:66-75): data kept, lvs -a, the metadata and the tables
#     equal to LVM2's (the spare's state aside: LVM2 leaves it active after moving it);
#   - the live pool's raid sub-LVs changed (lvextend of the pool: p_tdata's images grow;
#     -m +1, --splitmirrors --name, --trackchanges and --merge of p_tmeta): lines, lvs -a,
#     the metadata and the tables equal to LVM2's, t keeps its data.
# shellcheck disable=SC2086  # disk lists split on purpose
. /t/guest-tap.sh

LVM_VG=lvm-tr
LVX_VG=lvx-tr
pv_map a:d b:e c:f
LV_COLS=lv_name,lv_attr,lv_size,segtype,devices,lv_layout,lv_role,data_lv,metadata_lv,pool_lv
# lvx's tables/forms with its PVs as LVM2's (the twin VG's name mapped)
twin_tables() { tables $LVX_VG | spare; }
lvm_tables() { tables $LVM_VG | spare; }
twin_forms() { dm_forms $LVX_VG; }
# lvs -a of both VGs, lvx's PVs named as their LVM2 twins
# (after a pvmove the spare aside, with $NOSPARE: LVM2 leaves the inactive spare it moved
# active, lvx inactive -- a pvmove difference of any pool's spare, not of raid)
NOSPARE=
spare() { if [ -n "$NOSPARE" ]; then grep -v lvol0_pmspare; else cat; fi; }
same_lvs() {
    check_eq "$1: lvs -a equal to LVM2's" \
        "$($LVX lvs -a -o $LV_COLS $LVX_VG 2>&1 | sed 's|/dev/vdd|/dev/vda|; s|/dev/vde|/dev/vdb|; s|/dev/vdf|/dev/vdc|' | spare)" \
        "$(lvm lvs -a -o $LV_COLS $LVM_VG 2>&1 | spare)"
}

check "LVM2 makes lvm-tr on vda-vdc, lvx makes lvx-tr on vdd-vdf" sh -c \
    "lvm pvcreate -q /dev/vda /dev/vdb /dev/vdc && lvm vgcreate -q lvm-tr /dev/vda /dev/vdb /dev/vdc &&
     $LVX pvcreate -q /dev/vdd /dev/vde /dev/vdf && $LVX vgcreate -q lvx-tr /dev/vdd /dev/vde /dev/vdf"
check "LVM2: raid1 p -l8 and m -L2 on vda vdb" sh -c \
    "lvm lvcreate -q -aey --type raid1 -m 1 -l 8 -n p $LVM_VG /dev/vda /dev/vdb &&
     lvm lvcreate -q -aey --type raid1 -m 1 -L 2 -n m $LVM_VG /dev/vda /dev/vdb"
check "lvx: raid1 p -l8 and m -L2 on vdd vde" sh -c \
    "$LVX lvcreate -q -aey --type raid1 -m 1 -l 8 -n p $LVX_VG /dev/vdd /dev/vde &&
     $LVX lvcreate -q -aey --type raid1 -m 1 -L 2 -n m $LVX_VG /dev/vdd /dev/vde"
for t in lvm $LVX; do for v in p m; do
    [ $t = lvm ] && vg=$LVM_VG || vg=$LVX_VG
    wait_sync $t $vg/$v || note "$t $vg/$v not in sync"
done; done
both "lvconvert --yes --thinpool VG/p --poolmetadata m (pvmove-thin-segtypes.sh:59)" \
    lvconvert --yes --thinpool VG/p --poolmetadata m
same_lvs "the pool on raid1"
check_eq "the metadata equal to LVM2's" "$(meta $LVX $LVX_VG)" "$(meta lvm $LVM_VG)"
check_eq "the tables of the active pool equal LVM2's" "$(twin_tables)" "$(lvm_tables)"
check_eq "... device names and UUID forms too" "$(twin_forms)" "$(dm_forms $LVM_VG)"
each "lvcreate -T VG/p -V 8 -n t" lvcreate -q -T VG/p -V 8 -n t
check_eq "the tables with thin LV t equal LVM2's" "$(twin_tables)" "$(lvm_tables)"
check_eq "... device names and UUID forms too" "$(twin_forms)" "$(dm_forms $LVM_VG)"
check_eq "... the metadata too" "$(meta $LVX $LVX_VG)" "$(meta lvm $LVM_VG)"
dd if=/dev/urandom of=/tmp/d bs=1M count=8 2>/dev/null
check "data into both thin LVs (block devices)" sh -c \
    "test -b /dev/$LVM_VG/t && test -b /dev/$LVX_VG/t &&
     dd if=/tmp/d of=/dev/$LVM_VG/t bs=1M oflag=direct 2>/dev/null &&
     dd if=/tmp/d of=/dev/$LVX_VG/t bs=1M oflag=direct 2>/dev/null"
SUM=$(md5sum </tmp/d)
tsum() { [ -b /dev/$LVX_VG/t ] && md5sum </dev/$LVX_VG/t; }  # lvx's t, a block device
each "vgchange -an VG" vgchange -q -an VG
each "vgchange -ay VG" vgchange -q -ay VG
check_eq "after vgchange -an/-ay: the tables equal LVM2's" "$(twin_tables)" "$(lvm_tables)"
check_eq "... device names and UUID forms too" "$(twin_forms)" "$(dm_forms $LVM_VG)"
check_eq "... lvx's t holds its data" "$(tsum)" "$SUM"
check "LVM2: pvmove /dev/vda /dev/vdc" lvm pvmove -i0 /dev/vda /dev/vdc
check "lvx: pvmove /dev/vdd /dev/vdf" $LVX pvmove -i0 /dev/vdd /dev/vdf
NOSPARE=1
same_lvs "after pvmove"
check_eq "... the metadata equal to LVM2's" "$(meta $LVX $LVX_VG)" "$(meta lvm $LVM_VG)"
check_eq "... the tables equal LVM2's" "$(twin_tables)" "$(lvm_tables)"
check_eq "... lvx's t holds its data" "$(tsum)" "$SUM"
check "LVM2: pvmove --atomic -n t /dev/vdc /dev/vda" lvm pvmove -i0 --atomic -n t /dev/vdc /dev/vda
check "lvx: pvmove --atomic -n t /dev/vdf /dev/vdd" $LVX pvmove -i0 --atomic -n t /dev/vdf /dev/vdd
same_lvs "after pvmove --atomic"
check_eq "... the metadata equal to LVM2's" "$(meta $LVX $LVX_VG)" "$(meta lvm $LVM_VG)"
check_eq "... the tables equal LVM2's" "$(twin_tables)" "$(lvm_tables)"
check_eq "... lvx's t holds its data" "$(tsum)" "$SUM"
# the active pool's raid sub-LVs changed under it (lvextend-thin-raid.sh,
# lvconvert-thin-raid.sh): only the raid device is reloaded, the pool stays live
both "lvextend -l+2 VG/p (p_tdata's images grow)" lvextend -l+2 VG/p
same_lvs "after lvextend"
check_eq "... the metadata equal to LVM2's" "$(meta $LVX $LVX_VG)" "$(meta lvm $LVM_VG)"
check_eq "... the tables equal LVM2's" "$(twin_tables)" "$(lvm_tables)"
check_eq "... lvx's t holds its data" "$(tsum)" "$SUM"
each "lvconvert -y -m +1 VG/p_tmeta" lvconvert -q -y -m +1 VG/p_tmeta
wait_sync lvm $LVM_VG/p_tmeta || note "LVM2's p_tmeta not in sync"
wait_sync $LVX $LVX_VG/p_tmeta || note "lvx's p_tmeta not in sync"
check_eq "... the tables equal LVM2's" "$(twin_tables)" "$(lvm_tables)"
both "lvconvert --splitmirrors 1 --name sm VG/p_tmeta" lvconvert --splitmirrors 1 --name sm VG/p_tmeta
same_lvs "after the split"
check_eq "... the tables equal LVM2's" "$(twin_tables)" "$(lvm_tables)"
both "lvconvert -y --splitmirrors 1 --trackchanges VG/p_tmeta" \
    lvconvert -y --splitmirrors 1 --trackchanges VG/p_tmeta
check_eq "... the tables equal LVM2's" "$(twin_tables)" "$(lvm_tables)"
both "lvconvert --merge VG/p_tmeta_rimage_1" lvconvert --merge VG/p_tmeta_rimage_1
same_lvs "after the merge"
check_eq "... the metadata equal to LVM2's" "$(meta $LVX $LVX_VG)" "$(meta lvm $LVM_VG)"
check_eq "... the tables equal LVM2's" "$(twin_tables)" "$(lvm_tables)"
check_eq "... lvx's t holds its data" "$(tsum)" "$SUM"
check "both: vgremove -ff" sh -c "$LVX vgremove -q -ff $LVX_VG && lvm vgremove -q -ff $LVM_VG"
guest_done
