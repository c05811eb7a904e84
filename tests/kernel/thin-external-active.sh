#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/thin-external-active.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0753-kernel-thin-external-active.sh) with 2 virtio disks, lvx at /t/lvx and
# the host's LVM2/dmsetup.  Twin VGs, "lvm-xa" made by LVM2 on vda and "lvx-xa" by lvx on
# vdb, the same command lines on both:
#   * lvconvert --type thin --thinpool VG/pool VG/conv --originname corig of an ACTIVE
#     (and open) LV: the same lines, metadata, dm devices (names, UUIDs, read-only) and
#     tables (conv reloaded as thin over corig-real, the new pool's -tpool layer), conv
#     reads its old bytes, a write reads back equal on both;
#   * the external origin activated itself: stacked over its -real device (LVM2's layer:
#     "linear <corig-real> 0", read-only), deactivating conv or corig leaves the other's
#     devices as LVM2's;
#   * lvchange -p rw of the external origin (and -prw of the VG): LVM2's lines and exit;
#   * lvremove -f VG: thin pools with their thin LVs first, LVM2's lines in its order.
# shellcheck disable=SC2086  # lists split on purpose
. /t/guest-tap.sh

LVM_VG=lvm-xa
LVX_VG=lvx-xa
PVMAP="s/ $(devnum /dev/vdb) / $(devnum /dev/vda) /g;"
sum() { dd if="$1" bs=1M iflag=direct status=none | sha256sum | cut -d' ' -f1; }
state() { check_eq "$1: dm devices as LVM2's" "$(dm_of lvx-xa)" "$(dm_of lvm-xa)"
          check_eq "$1: dm tables as LVM2's" "$(tables lvx-xa)" "$(tables lvm-xa)"; }
dm_of() {
    dmsetup info -c --noheadings --separator ' ' -o name,uuid,attr | grep "^${1//-/--}-" | sort |
        sed -E "s/^${1//-/--}-/VG-/; s/ LVM-[A-Za-z0-9]{64}/ LVM-U/"
}

dd if=/dev/urandom of=/tmp/A bs=1M count=8 2>/dev/null
dd if=/dev/urandom of=/tmp/W bs=64k count=1 2>/dev/null
check "LVM2 makes lvm-xa, lvx makes lvx-xa" sh -c \
    "lvm pvcreate -q /dev/vda && lvm vgcreate -q lvm-xa /dev/vda &&
     $LVX pvcreate -q /dev/vdb && $LVX vgcreate -q lvx-xa /dev/vdb"
both "lvcreate -T -L 32m VG/pool" lvcreate -T -L 32m VG/pool
both "lvcreate -L 8m -n conv VG" lvcreate -L 8m -n conv VG
check "A written to both conv" sh -c \
    "dd if=/tmp/A of=/dev/lvm-xa/conv bs=1M oflag=direct 2>/dev/null &&
     dd if=/tmp/A of=/dev/lvx-xa/conv bs=1M oflag=direct 2>/dev/null"
exec 7</dev/lvm-xa/conv 8</dev/lvx-xa/conv      # both held open through the conversion
both "lvconvert --type thin of the active, open VG/conv" \
    lvconvert --type thin --thinpool VG/pool VG/conv --originname corig
state "after the conversion"
note "$(tables lvm-xa)"
exec 7<&- 8<&-
check_eq "conv reads A on both" "$(sum /dev/lvx-xa/conv) $(sum /dev/lvm-xa/conv)" "$(sum /tmp/A) $(sum /tmp/A)"
check_eq "metadata of lvx's VG equals LVM2's (ids, times out)" "$(meta $LVX lvx-xa)" "$(meta lvm lvm-xa)"
check "the kernel writes 4 KiB at 100 KiB into both conv" sh -c \
    "for v in lvm-xa lvx-xa; do
         dd if=/tmp/W of=/dev/\$v/conv bs=1k count=4 seek=100 oflag=direct 2>/dev/null || exit 1; done"
check_eq "both conv read the same" "$(sum /dev/lvx-xa/conv)" "$(sum /dev/lvm-xa/conv)"
both "lvchange -ay VG/corig (the external origin itself)" lvchange -ay VG/corig
state "the external origin active beside its thin LV"
check_eq "corig reads A on both" "$(sum /dev/lvx-xa/corig) $(sum /dev/lvm-xa/corig)" "$(sum /tmp/A) $(sum /tmp/A)"
both "lvchange -p rw VG/corig: refused" lvchange -p rw VG/corig
both "lvchange -prw VG: pool and corig refused, conv already writable" lvchange -prw VG
both "lvchange -an VG/conv" lvchange -an VG/conv
state "the external origin active alone"
both "lvchange -ay VG/conv" lvchange -ay VG/conv
both "lvchange -an VG/corig" lvchange -an VG/corig
state "the thin LV active alone"
check_eq "reports as LVM2's" \
    "$($LVX lvs -a --noheadings -o lv_name,lv_attr,origin,data_percent lvx-xa | trim)" \
    "$(lvm lvs -a --noheadings -o lv_name,lv_attr,origin,data_percent lvm-xa | trim)"
both "lvcreate -L 4m -n plain VG" lvcreate -L 4m -n plain VG
both "lvcreate -T VG/pool -V 4m -n thin2" lvcreate -T VG/pool -V 4m -n thin2
both "lvcreate -T -L 8m VG/pool2" lvcreate -T -L 8m VG/pool2
both "lvcreate -T VG/pool2 -V 4m -n thin3" lvcreate -T VG/pool2 -V 4m -n thin3
both "lvremove -f VG: pools with their thin LVs first" lvremove -f VG
check_eq "no device of either VG left" "$(dmsetup ls | grep -cE '^lv[mx]--xa-')" 0
guest_done
