#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/pvmove-atomic.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0765-kernel-pvmove-atomic.sh) with 4 virtio disks, lvx at /t/lvx and the
# host's LVM2/dmsetup.  pvmove --atomic of LVs active in the kernel, between the two
# tools, one VG "pa" (vda vdb vdc; vdd spare): LV a (vda), LV b (vda, then vdb), random
# data in both.
#
#   1. lvx's atomic move vda -> vdc, its copier SIGKILLed: pvmove0 one mirror over the
#      devices of pvmove0_mimage_0/1; the tables, names and UUIDs equal the ones LVM2
#      loads for the same metadata (LVM2 re-activates, --poll n); LVM2 finishes it.
#   2. LVM2's atomic move vdc -> vda, its poller SIGKILLed: lvx's tables when it activates
#      the VG equal LVM2's; lvx finishes the move (LVs active).
#   3. --abort of an atomic move, everything back on the source: lvx's of its own move
#      mid-copy, LVM2's of lvx's move, lvx's of LVM2's move.
#   4. lvx's atomic move in the foreground.
# Data intact (md5 of both LVs) after every step.
# shellcheck disable=SC2086
. /t/guest-tap.sh

VG=pa
sums() { md5sum </dev/$VG/a | cut -c1-32; md5sum </dev/$VG/b | cut -c1-32; }
killall_of() { local p; for p in $(pidof "$1"); do kill -9 "$p" 2>/dev/null; done; }
no_move() { echo "$(dmsetup ls | grep -c pvmove || true) $($LVX lvs -a --noheadings -o name $VG | grep -c pvmove || true)"; }
on() {  # on DEV: both LVs' first line maps DEV
    dmsetup table $VG-a | head -1 | grep -q " linear $1 " && dmsetup table $VG-b | head -1 | grep -q " linear $1 "
}
MIRROR=" mirror core 1 4096 2 VG-pvmove0_mimage_0 0 VG-pvmove0_mimage_1 0"

check "lvx makes VG pa (vda vdb vdc), a (120m on vda), b (64m on vda + 8m on vdb), active" sh -c \
    "$LVX pvcreate -q /dev/vda /dev/vdb /dev/vdc /dev/vdd && $LVX vgcreate -q $VG /dev/vda /dev/vdb /dev/vdc &&
     $LVX lvcreate -q -y -L 120m -n a $VG /dev/vda && $LVX lvcreate -q -y -L 64m -n b $VG /dev/vda &&
     $LVX lvextend -q -L +8m $VG/b /dev/vdb"
check "random data on a and b" sh -c \
    "dd if=/dev/urandom of=/dev/$VG/a bs=1M count=120 oflag=direct 2>/dev/null &&
     dd if=/dev/urandom of=/dev/$VG/b bs=1M count=72 oflag=direct 2>/dev/null"
SUMS=$(sums)
VDA=$(devnum /dev/vda) VDC=$(devnum /dev/vdc)

# ---------------------------------------------------------------- 1: lvx starts, LVM2 finishes
check "lvx pvmove --atomic -b vda vdc (LVs active) starts" $LVX pvmove --atomic -b -i0 /dev/vda /dev/vdc
killall_of lvx
TX=$(tables $VG)
FX=$(dm_forms $VG)
note "$TX"
check_match "lvx's pvmove0: one mirror over its two images" "$TX" "VG-pvmove0: 0 376832$MIRROR"
check_match "pvmove0_mimage_0: the old areas (vda)" "$TX" "VG-pvmove0_mimage_0: 0 245760 linear $VDA "
check_match "pvmove0_mimage_1: the new areas (vdc)" "$TX" "VG-pvmove0_mimage_1: 0 245760 linear $VDC "
check "LVM2's vgck accepts lvx's atomic move" lvm vgck $VG
check_match "LVM2's lvs shows pvmove0 moving vda" "$(lvm lvs -a --noheadings -o name,move_pv $VG 2>&1)" "/dev/vda"
check "lvx deactivates the VG (pvmove0 and its images go with the last LV)" $LVX vgchange -an $VG
check_eq "no device of the VG left" "$(dmsetup ls | grep "^$VG-" || true)" ""
check "LVM2 activates it (--poll n)" lvm vgchange -ay --poll n $VG
check_eq "lvx's live tables of its atomic move equal LVM2's for the same metadata" "$TX" "$(tables $VG)"
check_eq "... device names and UUID forms too" "$FX" "$(dm_forms $VG)"
check_eq "data intact mid-move" "$(sums)" "$SUMS"
check "LVM2 finishes the atomic move lvx started (pvmove, no arguments)" lvm pvmove -i0
check_eq "no pvmove device or LV left" "$(no_move)" "0 0"
check "a and b on vdc" on "$VDC"
check_eq "data intact after LVM2's end" "$(sums)" "$SUMS"

# ---------------------------------------------------------------- 2: LVM2 starts, lvx finishes
check "LVM2 pvmove --atomic -b -i 30 vdc vda (its poller then SIGKILLed)" \
    lvm pvmove --atomic -b -i 30 /dev/vdc /dev/vda
killall_of lvm
TL=$(tables $VG)
FL=$(dm_forms $VG)
note "$TL"
check_match "LVM2's pvmove0: one mirror over its two images" "$TL" "VG-pvmove0: 0 376832$MIRROR"
check "LVM2 deactivates the VG" lvm vgchange -an $VG
check "lvx activates the VG with LVM2's atomic move in progress (--poll n)" $LVX vgchange -ay --poll n $VG
check_eq "lvx's tables equal LVM2's" "$(tables $VG)" "$TL"
check_eq "... device names and UUID forms too" "$(dm_forms $VG)" "$FL"
check_eq "data intact (lvx's activation mid-move)" "$(sums)" "$SUMS"
check "lvx finishes LVM2's atomic move (pvmove, no arguments; LVs active)" $LVX pvmove -i0
check_eq "no pvmove device or LV left" "$(no_move)" "0 0"
check "a and b back on vda" on "$VDA"
check_eq "data intact after lvx's end" "$(sums)" "$SUMS"
check "LVM2's vgck accepts the VG" lvm vgck $VG

# ---------------------------------------------------------------- 3: --abort
check "lvx pvmove --atomic -b vda vdc" $LVX pvmove --atomic -b -i0 /dev/vda /dev/vdc
for ((t = 0; t < 100; t++)); do dmsetup ls | grep -q pvmove0 && break; sleep 0.1; done
check_match "pvmove0 live with its mirror" "$(tables $VG)" "$MIRROR"
check "lvx pvmove --abort (stops the copier)" $LVX pvmove --abort
check_eq "no pvmove device or LV left" "$(no_move)" "0 0"
check "everything back on vda" on "$VDA"
check_eq "data intact after lvx's abort" "$(sums)" "$SUMS"
check_eq "each LV's table is LVM2's for the metadata (LVM2 re-activates)" "$(tables $VG)" \
    "$(lvm vgchange -an $VG >/dev/null 2>&1 && lvm vgchange -ay --poll n $VG >/dev/null 2>&1 && tables $VG)"

check "lvx pvmove --atomic -b vda vdc, copier SIGKILLed" sh -c \
    "$LVX pvmove --atomic -b -i0 /dev/vda /dev/vdc && for p in \$(pidof lvx); do kill -9 \$p; done"
check "LVM2 pvmove --abort of lvx's atomic move" lvm pvmove --abort
check_eq "no pvmove device or LV left" "$(no_move)" "0 0"
check "everything back on vda" on "$VDA"
check_eq "data intact after LVM2's abort" "$(sums)" "$SUMS"

check "LVM2 pvmove --atomic -b -i 30 vda vdc, poller SIGKILLed" sh -c \
    "lvm pvmove --atomic -b -i 30 /dev/vda /dev/vdc >/dev/null 2>&1; for p in \$(pidof lvm); do kill -9 \$p; done"
check_match "LVM2's pvmove0 mirror live" "$(tables $VG)" "$MIRROR"
check "lvx pvmove --abort of LVM2's atomic move" $LVX pvmove --abort
check_eq "no pvmove device or LV left" "$(no_move)" "0 0"
check "everything back on vda" on "$VDA"
check_eq "data intact after lvx's abort of LVM2's move" "$(sums)" "$SUMS"
check "LVM2's vgck accepts the VG" lvm vgck $VG

# ---------------------------------------------------------------- 4: foreground
check "lvx pvmove --atomic -i0 vda vdc (foreground)" $LVX pvmove --atomic -i0 /dev/vda /dev/vdc
check_eq "no pvmove device or LV left" "$(no_move)" "0 0"
check "a and b on vdc" on "$VDC"
check_eq "data intact" "$(sums)" "$SUMS"
check_eq "each LV's table is LVM2's for the metadata (LVM2 re-activates)" "$(tables $VG)" \
    "$(lvm vgchange -an $VG >/dev/null 2>&1 && lvm vgchange -ay --poll n $VG >/dev/null 2>&1 && tables $VG)"
guest_done
