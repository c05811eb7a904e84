#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/thin-external.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0743-kernel-thin-external.sh) with 4 virtio disks, lvx at /t/lvx and the
# host's LVM2/dmsetup/thin-provisioning-tools.  Thin LVs with an external origin:
#
#   vda-vdb  VG "lvxt" made by lvx on the host, t1 (external origin ext) written by
#            lvx's daemon; expected sums in /t/host.sums
#   vdc      VG "lvm-xo": made and written here by LVM2 (the host's daemon then serves it)
#   vdd      VG "lvx-xo": the same command lines through lvx (dm backend)
#
# Checks: LVM2 activates lvx's t1 (its thin_check at activation) and reads the bytes
# the daemon wrote, so does lvx's dm backend; lvcreate -s --thinpool of an external
# origin and lvconvert --type thin --originname print and exit as LVM2, write equal
# metadata, and activate equal dm devices (names, UUIDs, read-only states, tables:
# the thin line's external origin device, <ext>-real); the kernel's writes read equal
# on both; no device is left after deactivation.
# shellcheck disable=SC2086  # disk lists split on purpose
. /t/guest-tap.sh

LVM_VG=lvm-xo
LVX_VG=lvx-xo
PVMAP="s/ $(devnum /dev/vdd) / $(devnum /dev/vdc) /g;"
sum() { dd if="$1" bs=1M iflag=direct status=none | sha256sum | cut -d' ' -f1; }
host() { awk -v k="$1" '$1 == k { print $2 }' /t/host.sums; }
dm_of() {
    dmsetup info -c --noheadings --separator ' ' -o name,uuid,attr | grep "^${1//-/--}-" | sort |
        sed -E "s/^${1//-/--}-/VG-/; s/ LVM-[A-Za-z0-9]{64}/ LVM-U/"
}

# ---------------------------------------------------------------- lvx's daemon wrote lvxt
check "LVM2 activates lvxt/t1 (thin_check at activation)" lvm lvchange -ay lvxt/t1
note "$(dmsetup table | grep '^lvxt-')"
check_eq "lvxt/t1 reads back as lvx's daemon served it" "$(sum /dev/lvxt/t1)" "$(host t1)"
check "LVM2 deactivates lvxt/t1" lvm lvchange -an lvxt/t1
check_eq "... and its ext-real goes with it" "$(dmsetup ls | grep -c '^lvxt-ext-real')" 0
check "lvx (dm backend) activates lvxt/t1" $LVX lvchange -ay lvxt/t1
check_eq "lvxt/t1 reads the same through lvx's tables" "$(sum /dev/lvxt/t1)" "$(host t1)"
check "lvx deactivates lvxt" $LVX vgchange -an lvxt
check_eq "no lvxt device left" "$(dmsetup ls | grep -c '^lvxt-')" 0

# ---------------------------------------------------------------- twins
dd if=/dev/urandom of=/tmp/A bs=1M count=8 2>/dev/null
dd if=/dev/urandom of=/tmp/W bs=64k count=1 2>/dev/null
check "LVM2 makes lvm-xo, lvx makes lvx-xo" sh -c \
    "lvm pvcreate -q /dev/vdc && lvm vgcreate -q lvm-xo /dev/vdc &&
     $LVX pvcreate -q /dev/vdd && $LVX vgcreate -q lvx-xo /dev/vdd"
both "lvcreate -T -L 32m VG/pool" lvcreate -T -L 32m VG/pool
both "lvcreate -L 8m -n ext VG" lvcreate -L 8m -n ext VG
both "lvcreate -L 8m -n conv VG" lvcreate -L 8m -n conv VG
check "A written to ext and conv of both" sh -c \
    "for v in lvm-xo lvx-xo; do for l in ext conv; do
         dd if=/tmp/A of=/dev/\$v/\$l bs=1M oflag=direct 2>/dev/null || exit 1; done; done"
both "lvcreate -s --thinpool of a writable origin: refused" lvcreate -s --thinpool VG/pool VG/ext -n t1
both "lvchange -pr VG/ext" lvchange -pr VG/ext
both "lvcreate -s --thinpool of an active origin: refused" lvcreate -s --thinpool VG/pool VG/ext -n t1
both "lvchange -an VG/ext" lvchange -an VG/ext
both "lvcreate -s --thinpool VG/pool VG/ext -n t1" lvcreate -s --thinpool VG/pool VG/ext -n t1
check_eq "dm devices (names, UUID suffixes, read-only) as LVM2's" "$(dm_of lvx-xo)" "$(dm_of lvm-xo)"
check_eq "dm tables as LVM2's (thin with the external origin's -real)" "$(tables lvx-xo)" "$(tables lvm-xo)"
note "$(tables lvm-xo)"
check "the kernel writes 4 KiB at 100 KiB and 64 KiB at 1 MiB into both t1" sh -c \
    "for v in lvm-xo lvx-xo; do
         dd if=/tmp/W of=/dev/\$v/t1 bs=1k count=4 seek=100 oflag=direct 2>/dev/null &&
         dd if=/tmp/W of=/dev/\$v/t1 bs=64k seek=16 oflag=direct 2>/dev/null || exit 1; done"
check_eq "both t1 read the same" "$(sum /dev/lvx-xo/t1)" "$(sum /dev/lvm-xo/t1)"
both "lvcreate --type thin --thinpool pool VG/ext -n t2" lvcreate --type thin --thinpool pool VG/ext -n t2
check_eq "t2 reads the origin (A)" "$(sum /dev/lvx-xo/t2) $(sum /dev/lvm-xo/t2)" "$(sum /tmp/A) $(sum /tmp/A)"
both "lvchange -an VG/conv" lvchange -an VG/conv
both "lvconvert --type thin --thinpool VG/pool VG/conv --originname corig" \
    lvconvert --type thin --thinpool VG/pool VG/conv --originname corig
check_eq "metadata of lvx's VG equals LVM2's (ids, times normalized)" \
    "$(meta $LVX lvx-xo)" "$(meta lvm lvm-xo)"
both "lvchange -ay VG/conv" lvchange -ay VG/conv
check_eq "conv reads A on both" "$(sum /dev/lvx-xo/conv) $(sum /dev/lvm-xo/conv)" "$(sum /tmp/A) $(sum /tmp/A)"
check_eq "dm tables as LVM2's (t1, t2, conv active)" "$(tables lvx-xo)" "$(tables lvm-xo)"
check_eq "reports as LVM2's" \
    "$($LVX lvs -a --noheadings -o lv_name,lv_attr,origin,data_percent lvx-xo | trim)" \
    "$(lvm lvs -a --noheadings -o lv_name,lv_attr,origin,data_percent lvm-xo | trim)"
{
    echo "t1 $(sum /dev/lvm-xo/t1)"
    echo "A $(sum /tmp/A)"
} >/out/guest.sums
both "vgchange -an VG" vgchange -an VG
check_eq "no device of either VG left" "$(dmsetup ls | grep -cE '^lv[mx]--xo-')" 0
guest_done
