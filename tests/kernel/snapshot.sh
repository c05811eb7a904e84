#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/snapshot.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0701-kernel-snapshot.sh) with 4 virtio disks, lvx at /t/lvx and the host's
# LVM2/dmsetup.  Prints TAP (also to /out/result.tap).  COW snapshots, both tools:
#
#   vda-vdb  VG "lvm-sn": origin + snapshots made and activated by LVM2
#   vdc-vdd  VG "lvx-sn": the same made and activated by lvx (lvcreate -s)
#
# Checks: lvcreate -s messages and exit codes equal LVM2's (plain, %ORIGIN with 64k
# chunks, the "larger than the origin" trim, errors); the metadata text equal to
# LVM2's once ids/times/names are normalized; dm names, UUIDs and tables of the set
# (origin, origin-real, snapshot, snapshot-cow) equal to LVM2's in the same run; the
# snapshot keeps the old data while the origin is rewritten, byte for byte, on both
# sides; reports (origin, snap_percent, data_percent, lv_attr) equal in both tools;
# lvx activates LVM2's VG with LVM2's tables and LVM2 activates lvx's VG and reads
# lvx's snapshot; lvextend of an active snapshot; overflow invalidates a snapshot
# (attr I, 100.00) and the origin keeps working; lvremove of a snapshot and of an
# origin with snapshots, no device left behind.
# shellcheck disable=SC2086  # disk lists split on purpose
# shellcheck source=tests/kernel/guest-tap.sh
. /t/guest-tap.sh

LVM_VG=lvm-sn
LVX_VG=lvx-sn
# lvx's PVs as LVM2's (same order) in `tables`
PVMAP="s/ $(devnum /dev/vdc) / $(devnum /dev/vda) /g;s/ $(devnum /dev/vdd) / $(devnum /dev/vdb) /g;"
dm_of() { dmsetup info -c --noheadings --separator ' ' -o name,uuid | grep "^${1//-/--}-" | sort; }

REP=lv_name,origin,lv_attr,lv_size,snap_percent,data_percent,chunk_size,origin_size
report() {  # report TOOL VG
    $1 lvs -a --noheadings --separator , -o $REP "$2" 2>/dev/null | trim
}

for p in A B C; do dd if=/dev/urandom of=/tmp/$p bs=1M count=8 2>/dev/null; done
check_eq "three 8 MiB random patterns" "$(cat /tmp/A /tmp/B /tmp/C | wc -c)" 25165824

# ---------------------------------------------------------------- create
check "LVM2 makes lvm-sn with an active 40m origin" sh -c \
    "lvm pvcreate -q /dev/vda /dev/vdb && lvm vgcreate -q lvm-sn /dev/vda /dev/vdb &&
     lvm lvcreate -q -y -L 40m -n orig lvm-sn"
check "lvx makes lvx-sn with an active 40m origin" sh -c \
    "$LVX pvcreate -q /dev/vdc /dev/vdd && $LVX vgcreate -q lvx-sn /dev/vdc /dev/vdd &&
     $LVX lvcreate -q -y -L 40m -n orig lvx-sn"
check "pattern A written to both origins" sh -c \
    "dd if=/tmp/A of=/dev/lvm-sn/orig bs=1M oflag=direct 2>/dev/null &&
     dd if=/tmp/A of=/dev/lvx-sn/orig bs=1M oflag=direct 2>/dev/null"

both "lvcreate -s -L 12m" lvcreate -s -L 12m -n s1 VG/orig
both "lvcreate -s -l 50%ORIGIN -c 64k" lvcreate -s -l 50%ORIGIN -c 64k -n s2 VG/orig
both "lvcreate -s larger than the origin (trimmed)" lvcreate -s -L 1g -n s3 VG/orig
both "lvcreate -s with 512k chunks" lvcreate -s -L 4m -c 512k -n s4 VG/orig
both "lvcreate -s of a snapshot" lvcreate -s -L 4m -n s9 VG/s1
both "lvcreate -s without a size" lvcreate -s -n s9 VG/orig
both "lvcreate -s with a bad chunk size" lvcreate -s -L 4m -c 3k -n s9 VG/orig
both "lvcreate -s of a missing origin" lvcreate -s -L 4m -n s9 VG/none

check_eq "metadata of lvx's snapshots equals LVM2's (ids, times, names normalized)" \
    "$(meta $LVX lvx-sn)" "$(meta lvm lvm-sn)"
check_eq "dm devices of the set: names and UUID forms as LVM2's" \
    "$(dm_of lvx-sn | sed -E 's/^lvx--sn-/VG-/; s/ LVM-[A-Za-z0-9]{64}/ LVM-U/')" \
    "$(dm_of lvm-sn | sed -E 's/^lvm--sn-/VG-/; s/ LVM-[A-Za-z0-9]{64}/ LVM-U/')"
uuids=$(lvm lvs -a --noheadings --separator ' ' -o lv_name,vg_uuid,lv_uuid lvx-sn 2>/dev/null | tr -d -)
u() { awk -v l="$1" '$1 == l { print "LVM-" $2 $3 }' <<<"$uuids"; }
check_eq "UUIDs of lvx's devices: origin, -real, snapshot, -cow" \
    "$(dm_of lvx-sn | grep -E '^lvx--sn-(orig|orig-real|s1|s1-cow) ')" \
    "lvx--sn-orig $(u orig)
lvx--sn-orig-real $(u orig)-real
lvx--sn-s1 $(u s1)
lvx--sn-s1-cow $(u s1)-cow"
check_eq "dm tables of lvx's set equal LVM2's (devices as names)" "$(tables lvx-sn)" "$(tables lvm-sn)"
note "$(tables lvx-sn)"
for vg in lvm-sn lvx-sn; do
    check_eq "lvx lvtable $vg equals dmsetup table (every device of the sets)" \
        "$($LVX lvtable $vg 2>&1 | sort)" "$(dmsetup table | grep "^${vg//-/--}-" | sort)"
done

# ---------------------------------------------------------------- data
check "pattern B written over both origins" sh -c \
    "dd if=/tmp/B of=/dev/lvm-sn/orig bs=1M oflag=direct 2>/dev/null &&
     dd if=/tmp/B of=/dev/lvx-sn/orig bs=1M oflag=direct 2>/dev/null"
for vg in lvm-sn lvx-sn; do
    check "$vg: the snapshots still read pattern A, the origin B" sh -c \
        "cmp -n 8388608 /tmp/A /dev/$vg/s1 && cmp -n 8388608 /tmp/A /dev/$vg/s2 &&
         cmp -n 8388608 /tmp/A /dev/$vg/s3 && cmp -n 8388608 /tmp/B /dev/$vg/orig"
done
check_eq "reports: lvx on its VG equals LVM2 on its VG (origin, attr, Snap%, Data%, chunk)" \
    "$(report $LVX lvx-sn)" "$(report lvm lvm-sn)"
check_eq "reports: lvx on LVM2's VG equals LVM2's" "$(report $LVX lvm-sn)" "$(report lvm lvm-sn)"
check_eq "reports: LVM2 on lvx's VG equals lvx's" "$(report lvm lvx-sn)" "$(report $LVX lvx-sn)"
note "$(report $LVX lvx-sn)"

both "lvextend of an active snapshot" lvextend -L +4m VG/s1
check_eq "dm tables equal after lvextend of the snapshot" "$(tables lvx-sn)" "$(tables lvm-sn)"

# ---------------------------------------------------------------- each tool activates the other's
check "lvx deactivates its VG, LVM2 deactivates its own" sh -c \
    "$LVX vgchange -an lvx-sn && lvm vgchange -an lvm-sn"
check_eq "no device of either VG left" "$(dmsetup ls | grep -E '^lv[mx]--sn-' || true)" ""
check "LVM2 activates lvx's VG, lvx activates LVM2's" sh -c \
    "lvm vgchange -ay lvx-sn && $LVX vgchange -ay lvm-sn"
check_eq "dm tables: lvx's activation of LVM2's VG equals LVM2's of lvx's" \
    "$(tables lvm-sn)" "$(tables lvx-sn)"
for vg in lvm-sn lvx-sn; do
    check "$vg (activated by the other tool): snapshots read A, origin B" sh -c \
        "cmp -n 8388608 /tmp/A /dev/$vg/s1 && cmp -n 8388608 /tmp/A /dev/$vg/s3 &&
         cmp -n 8388608 /tmp/B /dev/$vg/orig"
done
check "pattern C written to both origins (by the other tool's devices)" sh -c \
    "dd if=/tmp/C of=/dev/lvm-sn/orig bs=1M oflag=direct 2>/dev/null &&
     dd if=/tmp/C of=/dev/lvx-sn/orig bs=1M oflag=direct 2>/dev/null"
check "snapshots still A after C" sh -c \
    "cmp -n 8388608 /tmp/A /dev/lvm-sn/s2 && cmp -n 8388608 /tmp/A /dev/lvx-sn/s2"
check_eq "Snap% equal in both tools for both VGs" \
    "$(report $LVX lvx-sn; report $LVX lvm-sn)" "$(report lvm lvx-sn; report lvm lvm-sn)"

# ---------------------------------------------------------------- overflow
check "fill both origins: 40m through a 16m snapshot" sh -c \
    "dd if=/dev/urandom of=/tmp/D bs=1M count=40 2>/dev/null &&
     dd if=/tmp/D of=/dev/lvm-sn/orig bs=1M oflag=direct 2>/dev/null &&
     dd if=/tmp/D of=/dev/lvx-sn/orig bs=1M oflag=direct 2>/dev/null"
check "the origins keep working (read back)" sh -c \
    "cmp /tmp/D /dev/lvm-sn/orig && cmp /tmp/D /dev/lvx-sn/orig"
check_eq "overflowed snapshot: lvx reports it as LVM2 does (attr I, 100.00)" \
    "$(report $LVX lvx-sn; report $LVX lvm-sn)" "$(report lvm lvx-sn; report lvm lvm-sn)"
note "$(report $LVX lvx-sn)"

# ---------------------------------------------------------------- removal
both "lvremove -y of an active snapshot" lvremove -y VG/s2
check_eq "dm tables equal after removing a snapshot" "$(tables lvx-sn)" "$(tables lvm-sn)"
both "lvremove -f of the origin with its snapshots" lvremove -f VG/orig
check_eq "no device of either VG left" "$(dmsetup ls | grep -E '^lv[mx]--sn-' || true)" ""
check_eq "metadata equal after the removals" "$(meta $LVX lvx-sn)" "$(meta lvm lvm-sn)"

guest_done
