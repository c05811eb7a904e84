#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/snapshot-convert.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0764-kernel-snapshot-convert.sh) with 4 virtio disks, lvx at /t/lvx and the
# host's LVM2/dmsetup.  Prints TAP.  lvconvert's COW snapshot forms with the kernel,
# both tools side by side:
#
#   vda-vdb  VG "lvm-sc": LVM2          vdc-vdd  VG "lvx-sc": lvx
#
#   lvconvert --splitsnapshot VG/SNAP   (active: the snapshot's devices go, the origin
#                                        is reloaded without it, SNAP stays active plain)
#   lvconvert -s VG/ORIGIN VG/LV        (LV becomes a COW snapshot of the active ORIGIN)
#   lvconvert -s VG/THIN VG/LV          (a thin origin)
#
# Checks: messages and exit codes equal LVM2's (also the refusals); metadata equal once
# ids/times are normalized; dm names, UUIDs and tables equal; the split LV keeps the
# exception store's bytes; the recombined snapshot starts empty (zeroed) and keeps the
# origin's data while the origin is rewritten; each tool activates the other's VG and
# reads the same bytes.
# shellcheck disable=SC2086  # disk lists split on purpose
# shellcheck source=tests/kernel/guest-tap.sh
. /t/guest-tap.sh

LVM_VG=lvm-sc LVX_VG=lvx-sc
PVMAP="s/ $(devnum /dev/vdc) / $(devnum /dev/vda) /g;s/ $(devnum /dev/vdd) / $(devnum /dev/vdb) /g;"
report() {  # report TOOL VG
    $1 lvs -a --noheadings --separator , -o \
        lv_name,origin,lv_attr,lv_size,snap_percent,chunk_size,seg_type,lv_role "$2" 2>/dev/null | trim
}
sum() { dd if="$1" bs=1M count=${2:-4} iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1; }
same_state() {  # same_state WHAT: metadata, dm forms and tables, reports of both VGs equal
    check_eq "$1: metadata of lvx's VG equals LVM2's (ids, times normalized)" \
        "$(meta $LVX lvx-sc)" "$(meta lvm lvm-sc)"
    note "$(diff <(meta $LVX lvx-sc) <(meta lvm lvm-sc))"
    check_eq "$1: dm names and UUID forms as LVM2's" "$(dm_forms lvx-sc)" "$(dm_forms lvm-sc)"
    check_eq "$1: dm tables equal LVM2's" "$(tables lvx-sc)" "$(tables lvm-sc)"
    note "$(diff <(tables lvx-sc) <(tables lvm-sc))"
    check_eq "$1: reports equal" "$(report $LVX lvx-sc | sed s/lvx-sc/VG/g)" \
        "$(report lvm lvm-sc | sed s/lvm-sc/VG/g)"
}

dd if=/dev/urandom of=/tmp/A bs=1M count=4 2>/dev/null
dd if=/dev/urandom of=/tmp/B bs=1M count=4 2>/dev/null
{ head -c 1048576 /tmp/B; tail -c +1048577 /tmp/A; } >/tmp/BA
A=$(md5sum </tmp/A | cut -d' ' -f1) B=$(md5sum </tmp/B | cut -d' ' -f1) BA=$(md5sum </tmp/BA | cut -d' ' -f1)
check "LVM2 makes lvm-sc" sh -c "lvm pvcreate -q /dev/vda /dev/vdb && lvm vgcreate -q -s 1m lvm-sc /dev/vda /dev/vdb"
check "lvx makes lvx-sc" sh -c "$LVX pvcreate -q /dev/vdc /dev/vdd && $LVX vgcreate -q -s 1m lvx-sc /dev/vdc /dev/vdd"
both "lvcreate -L 4m -n org" lvcreate -q -L 4m -n org VG
both "lvcreate -L 4m -n spare (to become a COW)" lvcreate -q -L 4m -n spare VG
both "lvcreate -L 1m -n tiny" lvcreate -q -L 1m -n tiny VG
for vg in lvm-sc lvx-sc; do
    check "$vg: A written to org, B to spare" sh -c \
        "dd if=/tmp/A of=/dev/$vg/org bs=1M oflag=direct status=none &&
         dd if=/tmp/B of=/dev/$vg/spare bs=1M oflag=direct status=none"
done

# refusals: nothing written
both "lvconvert -s -c 512k of a 1 MiB LV (too small)" lvconvert -y -s -c 512k VG/org VG/tiny
both "lvconvert -s with a 3k chunk" lvconvert -y -s -c 3k VG/org VG/spare
both "lvconvert -s of an LV onto itself" lvconvert -y -s VG/org VG/org
both "lvconvert -s with a missing origin" lvconvert -y -s VG/nothere VG/spare
both "lvconvert --splitsnapshot of a plain LV" lvconvert --splitsnapshot VG/spare
s0=$($LVX vgs --noheadings -o vg_seqno lvx-sc | trim)
rc=0; out=$(echo n | $LVX lvconvert -s lvx-sc/org lvx-sc/spare 2>&1) || rc=$?
check_eq "lvx: answered n: exit 5, 'Conversion aborted.', seqno unchanged, spare still B" \
    "$rc $(grep -c 'Conversion aborted.' <<<"$out") $($LVX vgs --noheadings -o vg_seqno lvx-sc | trim) $(sum /dev/lvx-sc/spare)" \
    "5 1 $s0 $B"
rc2=0; out2=$(echo n | lvm lvconvert -s lvm-sc/org lvm-sc/spare 2>&1) || rc2=$?
check_eq "answered n: lvx's exit status and lines equal LVM2's" "$rc ${out//lvx-sc/VG}" "$rc2 ${out2//lvm-sc/VG}"

# an active LV made the COW of an active origin
both "lvconvert -y -s VG/org VG/spare (both active)" lvconvert -y -s VG/org VG/spare
same_state "after lvconvert -s"
for vg in lvm-sc lvx-sc; do
    check_eq "$vg: the new snapshot reads the origin's data (A)" "$(sum /dev/$vg/spare)" "$A"
    # 1 MiB of B: a COW of the origin's size cannot take every chunk (it would fill)
    check "$vg: 1 MiB of B written over org" dd if=/tmp/B of=/dev/$vg/org bs=1M count=1 oflag=direct status=none
    check_eq "$vg: org reads B's first MiB then A, the snapshot still A" \
        "$(sum /dev/$vg/org) $(sum /dev/$vg/spare)" "$BA $A"
done
both "lvs snap_percent of the snapshot" lvs --noheadings -o snap_percent VG/spare

# split while active: the exception store's bytes stay in the now plain LV
for vg in lvm-sc lvx-sc; do
    dd if=/dev/mapper/${vg//-/--}-spare-cow bs=1M count=4 iflag=direct of=/tmp/cow.$vg 2>/dev/null
done
both "lvconvert -y --splitsnapshot VG/spare (active)" lvconvert -y --splitsnapshot VG/spare
# LVM2 leaves the old VG-spare-cow device mapped (the same extents as VG-spare, never
# removed): lvx removes it; compared without it
check_eq "after --splitsnapshot: dm tables equal LVM2's but for LVM2's leftover -cow device" \
    "$(tables lvx-sc)" "$(tables lvm-sc | grep -v '^VG-spare-cow:')"
check_eq "... lvx leaves no VG-spare-cow device" "$(dmsetup info -c --noheadings -o name | grep -c '^lvx--sc-spare-cow$')" "0"
check_eq "after --splitsnapshot: metadata of lvx's VG equals LVM2's" "$(meta $LVX lvx-sc)" "$(meta lvm lvm-sc)"
check_eq "after --splitsnapshot: reports equal" "$(report $LVX lvx-sc | sed s/lvx-sc/VG/g)" \
    "$(report lvm lvm-sc | sed s/lvm-sc/VG/g)"
dmsetup remove lvm--sc-spare-cow 2>/dev/null
for vg in lvm-sc lvx-sc; do
    check_eq "$vg: the split LV holds the exception store's bytes; org still B" \
        "$(sum /dev/$vg/spare) $(sum /dev/$vg/org)" "$(md5sum </tmp/cow.$vg | cut -d' ' -f1) $BA"
done

# combine with the origin inactive, then activate
both "lvchange -an VG" lvchange -an VG
both "lvconvert -y -s -c 8k VG/org VG/spare (inactive)" lvconvert -y -s -c 8k VG/org VG/spare
both "lvchange -ay VG" lvchange -ay VG
same_state "recombined, activated"
for vg in lvm-sc lvx-sc; do
    check_eq "$vg: the zeroed store starts empty: the snapshot reads org's data" "$(sum /dev/$vg/spare)" "$BA"
done

# a thin origin
both "lvcreate -T -L 8m -V 4m -n th VG/pool" lvcreate -q -T -L 8m -V 4m -n th VG/pool
both "lvcreate -L 4m -n cow2" lvcreate -q -L 4m -n cow2 VG
both "lvconvert -y -s VG/th VG/cow2" lvconvert -y -s VG/th VG/cow2
both "lvconvert -y -s VG/pool VG/tiny (a pool as origin)" lvconvert -y -s -c 4k VG/pool VG/tiny
same_state "thin origin"

# each tool reads the other's VG
check "deactivate both VGs" sh -c "lvm vgchange -q -an lvm-sc && $LVX vgchange -q -an lvx-sc"
check "LVM2 activates lvx's VG, lvx LVM2's" sh -c "lvm vgchange -q -ay lvx-sc && $LVX vgchange -q -ay lvm-sc"
check_eq "both read the same bytes (org, spare)" \
    "$(sum /dev/lvx-sc/org) $(sum /dev/lvx-sc/spare) $(sum /dev/lvm-sc/org) $(sum /dev/lvm-sc/spare)" "$BA $BA $BA $BA"
check "clean up" sh -c "lvm vgchange -q -an lvx-sc && $LVX vgchange -q -an lvm-sc &&
    lvm vgremove -q -ff lvm-sc && $LVX vgremove -q -ff lvx-sc"
guest_done
