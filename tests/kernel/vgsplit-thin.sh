#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/vgsplit-thin.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0763-kernel-vgsplit-thin.sh) with 5 virtio disks, lvx at /t/lvx and the
# host's LVM2/dmsetup/thin-provisioning-tools.  vgsplit/vgmerge of a VG with thin
# pools (LVM2's test vgsplit-thin.sh, its first layout), made by lvx (dm backend) on
# vda-vde: pool1 (vda, vdb) with lv1, a COW snapshot of lv1 (vdb) and lv3 (external
# origin eorigin on vde); pool2 (vdc, vdd) with lv2.
#
# Checks: an active pool refused by lvx as by LVM2 (same words); the inactive VG split
# by LVM2 and by lvx (the same layout restored in between): the same output, exit code
# and metadata of both VGs (the spare moved, the new one LVM2 activates and zeroes);
# after lvx's split LVM2 activates the pools of both VGs (thin_check) and reads the
# data lvx wrote (lv1, lv2, snap, lv3 over its external origin), so does lvx's dm
# backend; after lvx's vgmerge LVM2 activates and reads it all again.
# shellcheck disable=SC2086  # disk lists split on purpose
. /t/guest-tap.sh

sum() { dd if="$1" bs=1M iflag=direct status=none | sha256sum | cut -d' ' -f1; }
meta2() { meta "$1" st1; meta "$1" st2; }
dd if=/dev/urandom of=/tmp/A bs=1M count=4 2>/dev/null
dd if=/dev/urandom of=/tmp/B bs=1M count=4 2>/dev/null
dd if=/dev/urandom of=/tmp/C bs=1M count=1 2>/dev/null
dd if=/dev/urandom of=/tmp/E bs=1M count=4 2>/dev/null
dd if=/dev/urandom of=/tmp/W bs=64k count=1 2>/dev/null

check "lvx: st1 on vda-vde, pool1 with lv1 (vda vdb), pool2 with lv2 (vdc vdd)" sh -c \
    "$LVX pvcreate -q /dev/vd[a-e] && $LVX vgcreate -q st1 /dev/vd[a-e] &&
     $LVX lvcreate -q -T -L8M st1/pool1 -V10M -n lv1 /dev/vda /dev/vdb &&
     $LVX lvcreate -q -T -L8M st1/pool2 -V10M -n lv2 /dev/vdc /dev/vdd"
check "lvx: A to lv1, B to lv2, snapshot snap of lv1 (vdb), C over lv1's start" sh -c \
    "dd if=/tmp/A of=/dev/st1/lv1 bs=1M oflag=direct 2>/dev/null &&
     dd if=/tmp/B of=/dev/st1/lv2 bs=1M oflag=direct 2>/dev/null &&
     $LVX lvcreate -q -s -L4M -n snap st1/lv1 /dev/vdb &&
     dd if=/tmp/C of=/dev/st1/lv1 bs=1M oflag=direct 2>/dev/null"
check "lvx: eorigin on vde (E), read-only; lv3 in pool1 over it, W at its start" sh -c \
    "$LVX lvcreate -q -l1 -n eorigin st1 /dev/vde &&
     dd if=/tmp/E of=/dev/st1/eorigin bs=1M oflag=direct 2>/dev/null &&
     $LVX lvchange -q -an st1/eorigin && $LVX lvchange -q -pr st1/eorigin &&
     $LVX lvcreate -q -an -s st1/eorigin -n lv3 --thinpool st1/pool1 &&
     $LVX lvchange -q -ay st1/lv3 &&
     dd if=/tmp/W of=/dev/st1/lv3 bs=64k oflag=direct 2>/dev/null"
lv1=$(sum /dev/st1/lv1); lv2=$(sum /dev/st1/lv2); snap=$(sum /dev/st1/snap); lv3=$(sum /dev/st1/lv3)
note "sums: lv1 $lv1 lv2 $lv2 snap $snap lv3 $lv3"
check_eq "... snap reads A (then zeros), lv3 W then E" "$snap $lv3" \
    "$( (cat /tmp/A; dd if=/dev/zero bs=1M count=8 2>/dev/null) | sha256sum | cut -d' ' -f1) $( (cat /tmp/W
        tail -c +65537 /tmp/E) | sha256sum | cut -d' ' -f1)"

# ---------------------------------------------------------------- active: refused
ol=$(lvm vgsplit st1 st2 /dev/vda /dev/vdb /dev/vde 2>&1); rl=$?
ox=$($LVX vgsplit st1 st2 /dev/vda /dev/vdb /dev/vde 2>&1); rx=$?
check_eq "vgsplit of the active VG: lvx's exit code and output equal LVM2's" "$rx $ox" "$rl $ol"
check "both tools left st2 unmade" sh -c "! lvm vgs st2 >/dev/null 2>&1"
check "lvx deactivates st1" $LVX vgchange -q -an st1
check "LVM2 saves st1's metadata" lvm vgcfgbackup -q -f /tmp/orig.vg st1

# ---------------------------------------------------------------- LVM2's split, lvx's
ol=$(lvm vgsplit st1 st2 /dev/vda /dev/vdb /dev/vde 2>&1); rl=$?
ml=$(meta2 lvm)
note "LVM2: $ol"
check "LVM2 merges back, st1's metadata restored" sh -c \
    "lvm vgmerge -q st1 st2 && lvm vgcfgrestore -q --force -f /tmp/orig.vg st1"
ox=$($LVX vgsplit st1 st2 /dev/vda /dev/vdb /dev/vde 2>&1); rx=$?
check_eq "lvx vgsplit st1 st2 vda vdb vde: exit code and output equal LVM2's" "$rx $ox" "$rl $ol"
check_eq "... the metadata of st1 and st2 equal LVM2's" "$(meta2 $LVX)" "$ml"
check "LVM2's vgck accepts lvx's st1 and st2" lvm vgck st1 st2

# ---------------------------------------------------------------- data after the split
check "LVM2 activates st2 (pool1, thin_check) and st1 (pool2)" sh -c \
    "lvm vgchange -q -ay st2 && lvm vgchange -q -ay st1"
check_eq "LVM2 reads lv1, snap, lv3 in st2 and lv2 in st1 as lvx wrote them" \
    "$(sum /dev/st2/lv1) $(sum /dev/st2/snap) $(sum /dev/st2/lv3) $(sum /dev/st1/lv2)" \
    "$lv1 $snap $lv3 $lv2"
check "LVM2 deactivates both" sh -c "lvm vgchange -q -an st1 && lvm vgchange -q -an st2"
check "lvx (dm) activates st2 and st1" sh -c "$LVX vgchange -q -ay st2 && $LVX vgchange -q -ay st1"
check_eq "lvx reads the same" \
    "$(sum /dev/st2/lv1) $(sum /dev/st2/snap) $(sum /dev/st2/lv3) $(sum /dev/st1/lv2)" \
    "$lv1 $snap $lv3 $lv2"
check "lvx deactivates both" sh -c "$LVX vgchange -q -an st1 && $LVX vgchange -q -an st2"

# ---------------------------------------------------------------- merge back
check "lvx vgmerge st1 st2" $LVX vgmerge -q st1 st2
check "LVM2's vgck accepts the merged st1" lvm vgck st1
check "LVM2 activates the merged st1" lvm vgchange -q -ay st1
check_eq "LVM2 reads lv1, snap, lv3, lv2 as lvx wrote them" \
    "$(sum /dev/st1/lv1) $(sum /dev/st1/snap) $(sum /dev/st1/lv3) $(sum /dev/st1/lv2)" \
    "$lv1 $snap $lv3 $lv2"
check "LVM2 deactivates st1" lvm vgchange -q -an st1
check_eq "no st1/st2 device left" "$(dmsetup ls | grep -c '^st[12]-')" 0
guest_done
