#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/snapshot-merge.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0703-kernel-snapshot-merge.sh) with 4 virtio disks, lvx at /t/lvx and the
# host's LVM2/dmsetup.  Prints TAP.  lvconvert --merge of COW snapshots, both tools:
#
#   vda-vdb  VG "lvm-mg" made and changed by LVM2
#   vdc-vdd  VG "lvx-mg" the same by lvx
#
# Checks: a merge with nothing open (messages and exit codes as LVM2's, the progress
# lines aside; the origin reads the snapshot's data again; the snapshot, its -cow and
# the origin's -real are gone; tables, metadata and reports equal LVM2's); a merge of an
# open origin is delayed (LVM2's lines, metadata with merging_store, the tables
# unchanged, S/O attrs), refused a second time; the next activation with --poll n loads
# the snapshot-merge/error tables as LVM2's; the activation after that finishes the
# merge (data, devices, metadata as LVM2's); each tool activates the other's merging VG.
# shellcheck disable=SC2086  # disk lists split on purpose
# shellcheck source=tests/kernel/guest-tap.sh
. /t/guest-tap.sh

LVM_VG=lvm-mg
LVX_VG=lvx-mg
PVMAP="s/ $(devnum /dev/vdc) / $(devnum /dev/vda) /g;s/ $(devnum /dev/vdd) / $(devnum /dev/vdb) /g;"
REP=lv_name,origin,lv_attr,lv_size
report() { $1 lvs -a --noheadings --separator , -o $REP "$2" 2>/dev/null | trim; }
# both, without the progress lines (their count depends on timing)
both_merge() {
    local desc=$1 ra=0 rb=0 oa ob
    shift
    oa=$(lvm "${@//VG/$LVM_VG}" 2>&1 | grep -v ': Merged: '; exit "${PIPESTATUS[0]}") || ra=$?
    ob=$($LVX "${@//VG/$LVX_VG}" 2>&1 | grep -v ': Merged: '; exit "${PIPESTATUS[0]}") || rb=$?
    check_eq "$desc: lvx's exit status and output equal LVM2's" \
        "$rb ${ob//$LVX_VG/VG}" "$ra ${oa//$LVM_VG/VG}"
}
same_state() {  # same_state WHEN
    check_eq "$1: dm tables equal LVM2's" "$(tables lvx-mg)" "$(tables lvm-mg)"
    check_eq "$1: metadata equals LVM2's" "$(meta $LVX lvx-mg)" "$(meta lvm lvm-mg)"
    check_eq "$1: lvs -a equal" "$(report $LVX lvx-mg)" "$(report lvm lvm-mg)"
}
gone() {  # gone VG LV: wait until LV is no longer in VG (LVM2's background poller)
    local i
    for i in $(seq 1 120); do
        lvm lvs "$1/$2" >/dev/null 2>&1 || return 0
        sleep 0.5
    done
    return 1
}

for p in A B C; do dd if=/dev/urandom of=/tmp/$p bs=1M count=4 2>/dev/null; done
check "LVM2 makes lvm-mg with a 16m origin" sh -c \
    "lvm pvcreate -q /dev/vda /dev/vdb && lvm vgcreate -q lvm-mg /dev/vda /dev/vdb &&
     lvm lvcreate -q -y -L 16m -n orig lvm-mg"
check "lvx makes lvx-mg with a 16m origin" sh -c \
    "$LVX pvcreate -q /dev/vdc /dev/vdd && $LVX vgcreate -q lvx-mg /dev/vdc /dev/vdd &&
     $LVX lvcreate -q -y -L 16m -n orig lvx-mg"
wr() { dd if=/tmp/$1 of=/dev/lvm-mg/orig bs=1M oflag=direct 2>/dev/null &&
       dd if=/tmp/$1 of=/dev/lvx-mg/orig bs=1M oflag=direct 2>/dev/null; }
reads() { cmp -n 4194304 /tmp/$1 /dev/lvm-mg/$2 && cmp -n 4194304 /tmp/$1 /dev/lvx-mg/$2; }
check "pattern A on both origins" wr A

# ---------------------------------------------------------------- merge, nothing open
both "lvcreate -s" lvcreate -s -L 8m -n s1 VG/orig
check "pattern B over both origins" wr B
check "the snapshots read A" reads A s1
both "a merge of a plain LV is refused" lvconvert --merge -i 1 VG/none
both_merge "lvconvert --merge -i 1 (nothing open)" lvconvert --merge -i 1 VG/s1
check "after the merge both origins read A again" reads A orig
same_state "after the merge"
check_eq "no snapshot device left of either VG (s1, -cow, -real)" \
    "$(dmsetup ls | grep -E '^lv[mx]--mg-' | cut -f1 | sort)" "lvm--mg-orig
lvx--mg-orig"

# ---------------------------------------------------------------- delayed merge
both "lvcreate -s of the merged origin" lvcreate -s -L 8m -n s2 VG/orig
check "pattern C over both origins" wr C
sleep 600 </dev/lvm-mg/orig &
h1=$!
sleep 600 </dev/lvx-mg/orig &
h2=$!
sleep 1
both "lvconvert --merge of an open origin is delayed" lvconvert --merge VG/s2
same_state "merge delayed"
both "lvconvert --merge of a merging snapshot is refused" lvconvert --merge VG/s2
check "the open origins still read C, the snapshots A" sh -c \
    "cmp -n 4194304 /tmp/C /dev/lvm-mg/orig && cmp -n 4194304 /tmp/C /dev/lvx-mg/orig"
kill $h1 $h2
wait $h1 $h2 2>/dev/null

# ---------------------------------------------------------------- the next activation
check "both deactivated" sh -c "lvm vgchange -an lvm-mg && $LVX vgchange -an lvx-mg"
check "both activated with --poll n (the merge starts, nobody finishes it)" sh -c \
    "lvm vgchange -ay --poll n lvm-mg && $LVX vgchange -ay --poll n lvx-mg"
sleep 1
same_state "merging (snapshot-merge, error)"
note "$(tables lvx-mg)"
check "the merged origins read A" reads A orig
check "both deactivated again" sh -c "lvm vgchange -an lvm-mg && $LVX vgchange -an lvx-mg"
check "each tool activates the other's merging VG, which finishes its merge" sh -c \
    "lvm vgchange -ay lvx-mg >/dev/null && $LVX vgchange -ay lvm-mg >/dev/null"
check "LVM2's poller removed lvx's s2" gone lvx-mg s2
check "lvx removed s2 of LVM2's VG" gone lvm-mg s2
sleep 1
same_state "after the merge at activation"
check "the origins read A" reads A orig
check "no snapshot device left" sh -c "! dmsetup ls | grep -qE '^lv[mx]--mg-(s2|orig-real)'"

both "lvremove -f" lvremove -f VG/orig
guest_done
