#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/thin.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0702-kernel-thin.sh) with 4 virtio disks, lvx at /t/lvx and the host's
# LVM2/dmsetup/thin-provisioning-tools.  Prints TAP (also to /out/result.tap).  Thin
# pools, thin LVs and thin snapshots, both tools:
#
#   vda-vdb  VG "lvm-th": made, written and activated by LVM2
#   vdc-vdd  VG "lvx-th": the same command lines through lvx
#
# Checks: lvcreate -T/-V/--type thin-pool/thin/-s output and exit codes equal LVM2's;
# the metadata text equal to LVM2's once ids/times/names are normalized (sub-LVs,
# pmspare, transaction and device ids, placement); dm names, UUID forms and tables
# (tmeta, tdata, tpool, pool, thin) equal; reports (attr, Data%, Meta%, #Thins,
# TransId, ThId, discards, zero, chunk) equal; the thin snapshot keeps the old data;
# lvextend of pool data/metadata and of a thin LV, --errorwhenfull, --discards and -Z
# (lvchange of an active
# pool: table reloaded with error_if_no_space; lvcreate), lvreduce of a thin LV and the
# refusal for a pool, lvremove of a thin snapshot (delete
# message) with equal output and tables; each tool activates the other's VG (LVM2 runs
# thin_check on lvx's pool) with equal tables and reads the other's data byte for byte;
# thin_check accepts lvx's pool metadata; lvconvert --merge of thin snapshots (at once
# with the origin active and closed, delayed while it is open and ended at its next
# activation); lvremove of a pool with its thin LVs; a used pool has no /dev/VG/POOL link.
# shellcheck disable=SC2086  # disk lists split on purpose
. /t/guest-tap.sh

LVM_VG=lvm-th
LVX_VG=lvx-th

# lvx's PVs as LVM2's (same order) in `tables`
PVMAP="s/ $(devnum /dev/vdc) / $(devnum /dev/vda) /g;s/ $(devnum /dev/vdd) / $(devnum /dev/vdb) /g;"
# names, UUID forms (suffixes) and read-only state of a VG's devices
dm_of() {
    dmsetup info -c --noheadings --separator ' ' -o name,uuid,attr | grep "^${1//-/--}-" | sort |
        sed -E "s/^${1//-/--}-/VG-/; s/ LVM-[A-Za-z0-9]{64}/ LVM-U/"
}

REP=lv_name,lv_attr,lv_size,pool_lv,origin,data_percent,metadata_percent,thin_count,transaction_id,thin_id,discards,zero,chunk_size,lv_metadata_size,seg_pe_ranges
report() {  # report TOOL VG; the VG's pools committed first (dmsetup status flushes): the
             # kernel commits every second, and Meta% counts a transaction's shadow blocks
    dmsetup ls --target thin-pool | awk -v p="${2//-/--}-" 'index($1, p) == 1 {print $1}' |
        xargs -r -n1 dmsetup status >/dev/null
    $1 lvs -a --noheadings --separator , -o $REP "$2" 2>/dev/null | trim | sed "s/$2/VG/g;s#/dev/vd[ac]#PV0#g;s#/dev/vd[bd]#PV1#g"
}

for p in A B C; do dd if=/dev/urandom of=/tmp/$p bs=1M count=8 2>/dev/null; done
check_eq "three 8 MiB random patterns" "$(cat /tmp/A /tmp/B /tmp/C | wc -c)" 25165824

# ---------------------------------------------------------------- create
check "LVM2 makes lvm-th, lvx makes lvx-th" sh -c \
    "lvm pvcreate -q /dev/vda /dev/vdb && lvm vgcreate -q lvm-th /dev/vda /dev/vdb &&
     $LVX pvcreate -q /dev/vdc /dev/vdd && $LVX vgcreate -q lvx-th /dev/vdc /dev/vdd"
both "lvcreate -T -L 16m VG/pool" lvcreate -T -L 16m VG/pool
check_eq "a new pool: one thin-pool device under the pool's name, as LVM2's" \
    "$(dm_of lvx-th; tables lvx-th)" "$(dm_of lvm-th; tables lvm-th)"
both "lvcreate -V 32m -T VG/pool -n thin1" lvcreate -V 32m -T VG/pool -n thin1
check_eq "the pool is used now: no /dev/VG/pool link, as LVM2's (_lv_has_mknode)" \
    "$(ls /dev/lvx-th | xargs)" "$(ls /dev/lvm-th | xargs)"
check "pattern A written to both thin LVs" sh -c \
    "dd if=/tmp/A of=/dev/lvm-th/thin1 bs=1M oflag=direct 2>/dev/null &&
     dd if=/tmp/A of=/dev/lvx-th/thin1 bs=1M oflag=direct 2>/dev/null"
both "lvcreate -s VG/thin1 (thin snapshot, activation skipped)" lvcreate -s VG/thin1 -n snap1
both "lvcreate -s -kn VG/thin1 (thin snapshot, active)" lvcreate -s -kn VG/thin1 -n snap2
check "pattern B written over both origins" sh -c \
    "dd if=/tmp/B of=/dev/lvm-th/thin1 bs=1M oflag=direct 2>/dev/null &&
     dd if=/tmp/B of=/dev/lvx-th/thin1 bs=1M oflag=direct 2>/dev/null"
for vg in lvm-th lvx-th; do
    check "$vg: the snapshot reads A, the origin B" sh -c \
        "cmp -n 8388608 /tmp/A /dev/$vg/snap2 && cmp -n 8388608 /tmp/B /dev/$vg/thin1"
done
both "lvcreate --type thin-pool -c 256k --poolmetadatasize 8m -Zn --discards nopassdown" \
    lvcreate --type thin-pool -L 100m -c 256k --poolmetadatasize 8m -Zn --discards nopassdown -n pool2 VG
both "lvcreate --type thin --thinpool pool2" lvcreate --type thin -V 64m --thinpool pool2 -n thin2 VG
both "lvcreate -T -L -V: a pool and a thin LV at once" lvcreate -T -L 8m -V 16m -n thin3 VG/pool3
check "pattern C written to both thin2" sh -c \
    "dd if=/tmp/C of=/dev/lvm-th/thin2 bs=1M oflag=direct 2>/dev/null &&
     dd if=/tmp/C of=/dev/lvx-th/thin2 bs=1M oflag=direct 2>/dev/null"

check_eq "metadata of lvx's thin VG equals LVM2's (ids, times, names normalized)" \
    "$(meta $LVX lvx-th)" "$(meta lvm lvm-th)"
check_eq "dm devices: names, UUID suffixes and read-only states as LVM2's" \
    "$(dm_of lvx-th)" "$(dm_of lvm-th)"
check_eq "dm tables of lvx's devices equal LVM2's (devices as names)" "$(tables lvx-th)" "$(tables lvm-th)"
check_eq "reports: lvx on its VG equals LVM2 on its VG" "$(report $LVX lvx-th)" "$(report lvm lvm-th)"

# ---------------------------------------------------------------- resize, remove
both "lvextend -L +8m of an active pool" lvextend -L +8m VG/pool
both "lvextend --poolmetadatasize +4m" lvextend --poolmetadatasize +4m VG/pool
both "lvextend -L +16m of an active thin LV" lvextend -L +16m VG/thin1
both "lvremove -y of an active thin snapshot" lvremove -y VG/snap2
check_eq "dm tables equal after the resizes and the removal" "$(tables lvx-th)" "$(tables lvm-th)"
check_eq "metadata equal after the resizes and the removal" "$(meta $LVX lvx-th)" "$(meta lvm lvm-th)"
both "lvchange --errorwhenfull y of an active pool" lvchange --errorwhenfull y VG/pool
check_match "lvx's active pool table carries error_if_no_space" \
    "$(dmsetup table lvx--th-pool-tpool 2>&1)" " error_if_no_space"
both "lvchange --errorwhenfull y again: refused" lvchange --errorwhenfull y VG/pool
both "lvcreate -T --errorwhenfull y" lvcreate -T -L 8m --errorwhenfull y VG/pool4
both "lvchange --discards nopassdown of an active pool" lvchange --discards nopassdown VG/pool
check_match "lvx's active pool table carries no_discard_passdown" \
    "$(dmsetup table lvx--th-pool-tpool 2>&1)" " no_discard_passdown"
both "lvchange --discards ignore of an active pool: refused" lvchange --discards ignore VG/pool
both "lvchange -Zn of an active pool" lvchange -Zn VG/pool
both "lvchange -Zy --discards passdown of an active pool (LVM2's second run fails)" \
    lvchange -Zy --discards passdown VG/pool
check_eq "dm tables equal after --errorwhenfull, --discards and -Z" "$(tables lvx-th)" "$(tables lvm-th)"
check_eq "metadata equal after --errorwhenfull (ERROR_WHEN_FULL)" "$(meta $LVX lvx-th)" "$(meta lvm lvm-th)"
both "lvreduce -f of an active thin LV" lvreduce -f -L -8m VG/thin1
both "lvreduce of a pool is refused" lvreduce -f -L -4m VG/pool
check_eq "dm tables equal after lvreduce of a thin LV" "$(tables lvx-th)" "$(tables lvm-th)"

# ---------------------------------------------------------------- each tool activates the other's
check "lvx deactivates its VG, LVM2 deactivates its own" sh -c \
    "$LVX vgchange -an lvx-th && lvm vgchange -an lvm-th"
check_eq "no device of either VG left" "$(dmsetup ls | grep -E '^lv[mx]--th-' || true)" ""
check "thin_check accepts lvx's pool metadata (tmeta activated read-only by LVM2)" sh -c \
    "lvm lvchange -ay -y lvx-th/pool_tmeta && thin_check /dev/mapper/lvx--th-pool_tmeta &&
     lvm lvchange -an lvx-th/pool_tmeta"
check "LVM2 activates lvx's VG (thin_check at activation), lvx activates LVM2's" sh -c \
    "lvm vgchange -ay lvx-th && $LVX vgchange -ay lvm-th"
check_eq "dm tables: lvx's activation of LVM2's VG equals LVM2's of lvx's" \
    "$(tables lvm-th)" "$(tables lvx-th)"
check_eq "/dev/VG links: lvx's activation of LVM2's VG as LVM2's of lvx's (no used pool's)" \
    "$(ls /dev/lvm-th | xargs)" "$(ls /dev/lvx-th | xargs)"
for vg in lvm-th lvx-th; do
    check "$vg (activated by the other tool): thin1 reads B, thin2 C" sh -c \
        "cmp -n 8388608 /tmp/B /dev/$vg/thin1 && cmp -n 8388608 /tmp/C /dev/$vg/thin2"
done
check "the snapshots, activated with -K by the other tool, read A" sh -c \
    "lvm lvchange -ay -K lvx-th/snap1 && $LVX lvchange -ay -K lvm-th/snap1 &&
     cmp -n 8388608 /tmp/A /dev/lvx-th/snap1 && cmp -n 8388608 /tmp/A /dev/lvm-th/snap1"
check_eq "reports equal in both tools for both VGs" \
    "$(report $LVX lvx-th; report $LVX lvm-th)" "$(report lvm lvx-th; report lvm lvm-th)"
# aligned columns: LVM2 left-aligns percent fields (Data%, Meta%: not numbers to libdm)
check_eq "lvs -a of both VGs (active pools, aligned columns) equal in both tools" \
    "$($LVX lvs -a lvm-th lvx-th 2>&1)" "$(lvm lvs -a lvm-th lvx-th 2>&1)"
check "lvx removes a thin LV of LVM2's pool, LVM2 one of lvx's (delete messages)" sh -c \
    "$LVX lvremove -y lvm-th/thin3 && lvm lvremove -y lvx-th/thin3"
check "both VGs deactivated and activated again by their own tools (transaction ids agree)" sh -c \
    "lvm vgchange -an lvx-th && $LVX vgchange -an lvm-th &&
     $LVX vgchange -ay lvx-th && lvm vgchange -ay lvm-th"
check_eq "dm tables equal after the cross removals" "$(tables lvx-th)" "$(tables lvm-th)"

# ---------------------------------------------------------------- thin snapshot merges
dd if=/dev/urandom of=/tmp/D bs=1M count=8 2>/dev/null
dd if=/dev/urandom of=/tmp/E bs=1M count=8 2>/dev/null
both "lvcreate -s -kn VG/thin2 -n msnap" lvcreate -s -kn VG/thin2 -n msnap
check "pattern D written to both msnap" sh -c \
    "dd if=/tmp/D of=/dev/lvm-th/msnap bs=1M oflag=direct 2>/dev/null &&
     dd if=/tmp/D of=/dev/lvx-th/msnap bs=1M oflag=direct 2>/dev/null"
both "lvconvert --merge of a thin snapshot, origin active and closed: at once" \
    lvconvert --merge VG/msnap
check_eq "dm tables equal after the merge (thin2 maps msnap's thin id)" "$(tables lvx-th)" "$(tables lvm-th)"
check_eq "metadata equal after the merge" "$(meta $LVX lvx-th)" "$(meta lvm lvm-th)"
check "thin2 reads D in both VGs" sh -c \
    "cmp -n 8388608 /tmp/D /dev/lvm-th/thin2 && cmp -n 8388608 /tmp/D /dev/lvx-th/thin2"
both "lvcreate -s -kn VG/thin2 -n msnap2" lvcreate -s -kn VG/thin2 -n msnap2
check "pattern E written to both msnap2" sh -c \
    "dd if=/tmp/E of=/dev/lvm-th/msnap2 bs=1M oflag=direct 2>/dev/null &&
     dd if=/tmp/E of=/dev/lvx-th/msnap2 bs=1M oflag=direct 2>/dev/null"
exec 8</dev/lvm-th/thin2 9</dev/lvx-th/thin2
both "lvconvert --merge of a thin snapshot whose origin is open: delayed" \
    lvconvert --merge VG/msnap2
check_eq "metadata equal while the merge waits (msnap2 hidden, merge = thin2)" \
    "$(meta $LVX lvx-th)" "$(meta lvm lvm-th)"
check_eq "reports equal while the merge waits" \
    "$(report $LVX lvx-th)" "$(report lvm lvm-th)"
exec 8<&- 9<&-
check "each tool deactivates and activates its thin2: the merge ends" sh -c \
    "lvm lvchange -an lvm-th/thin2 && lvm lvchange -ay lvm-th/thin2 &&
     $LVX lvchange -an lvx-th/thin2 && $LVX lvchange -ay lvx-th/thin2"
for i in $(seq 1 20); do lvm lvs lvm-th/msnap2 >/dev/null 2>&1 || break; sleep 1; done
check "thin2 reads E in both VGs" sh -c \
    "cmp -n 8388608 /tmp/E /dev/lvm-th/thin2 && cmp -n 8388608 /tmp/E /dev/lvx-th/thin2"
check_eq "metadata equal after the merge at activation" "$(meta $LVX lvx-th)" "$(meta lvm lvm-th)"
check "LVM2 activates lvx's merged thin2 and reads E" sh -c \
    "$LVX lvchange -an lvx-th/thin2 && lvm lvchange -ay lvx-th/thin2 &&
     cmp -n 8388608 /tmp/E /dev/lvx-th/thin2"
both "lvremove -y of a pool with its thin LVs" lvremove -y VG/pool2
check "thin_check accepts lvx's pool metadata again after the removals" sh -c \
    "$LVX vgchange -an lvx-th && lvm lvchange -ay -y lvx-th/pool_tmeta &&
     thin_check /dev/mapper/lvx--th-pool_tmeta && lvm lvchange -an lvx-th/pool_tmeta"
check_eq "metadata equal at the end" "$(meta $LVX lvx-th)" "$(meta lvm lvm-th)"

guest_done
