#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/pvmove-tables.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0719-kernel-pvmove.sh, the first part of its guest-parts.sh) with virtio
# disks vda-vdd (of 128 MiB; more may be there, blank), lvx at /t/lvx and the host's
# LVM2/dmsetup.  pvmove of LVs active in the kernel, between the two tools, one VG "pm"
# (vda vdb vdc; vdd spare): a 2-stripe LV and a linear LV on vda, random data in both.
#
#   1. lvx moves vda -> vdc, its copier is SIGKILLed: lvx's live tables (pvmove0's
#      mirror, the LVs over it) equal the ones LVM2 loads for the same metadata (VG
#      re-activated by LVM2, --poll n); LVM2 reads the VG (vgck, lvs); LVM2 finishes
#      the move (`pvmove` without arguments); data intact.
#   2. LVM2 moves vdc -> vda, its poller is SIGKILLed at the setup and again after its
#      first checkpoint: at each stage LVM2's live tables equal the ones lvx loads when
#      it activates the VG with the move in progress; lvx finishes the move (LVs active
#      in the kernel) while LVM2 reads the VG (vgck, lvs) in a loop; data intact,
#      tables plain again, no pvmove0.
#   3. lvx's move SIGKILLed, the VG deactivated: `lvx vgchange -ay` activates it and, as
#      LVM2's activation, starts a background copier that finishes the move.
#   4. `lvx pvmove --abort` of a running move: copier stopped, pvmove0 gone, LVs where
#      the checkpoints left them (tables equal LVM2's for that metadata), data intact.
# shellcheck disable=SC2086
. /t/guest-tap.sh

VG=pm
sums() { md5sum </dev/$VG/s2 | cut -c1-32; md5sum </dev/$VG/lin | cut -c1-32; }
killall_of() { local p; for p in $(pidof "$1"); do kill -9 "$p" 2>/dev/null; done; }
# wait_seg N: pvmove0's table maps its first N segments linear on their new place (LVM2's
# checkpoint done), at most 60 s
wait_moved() {
    local t
    for ((t = 0; t < 600; t++)); do
        [[ $(dmsetup table "$VG-pvmove0" 2>/dev/null | head -n "$1" | grep -c " linear $2 ") == "$1" ]] &&
            return 0
        sleep 0.1
    done
    return 1
}

check "lvx makes VG pm (vda vdb vdc), s2 (-i2 on vda vdb) and lin (vda), active" sh -c \
    "$LVX pvcreate -q /dev/vda /dev/vdb /dev/vdc /dev/vdd && $LVX vgcreate -q $VG /dev/vda /dev/vdb /dev/vdc &&
     $LVX lvcreate -q -y -i2 -I64k -L 192m -n s2 $VG /dev/vda /dev/vdb &&
     $LVX lvcreate -q -y -L 24m -n lin $VG /dev/vda"
check "random data on s2 and lin" sh -c \
    "dd if=/dev/urandom of=/dev/$VG/s2 bs=1M count=192 oflag=direct 2>/dev/null &&
     dd if=/dev/urandom of=/dev/$VG/lin bs=1M count=24 oflag=direct 2>/dev/null"
SUMS=$(sums)

# ---------------------------------------------------------------- 1: lvx starts, LVM2 finishes
VDA=$(devnum /dev/vda) VDC=$(devnum /dev/vdc)
check "lvx pvmove -b vda vdc (LVs active in the kernel) starts" $LVX pvmove -b -i0 /dev/vda /dev/vdc
# the copier killed at once: a kill between a checkpoint's commit and its table reload
# leaves the old tables under newer metadata (a legal state after a crash, reloaded at
# the next activation, but not what this check compares; 0.3 s was enough for the first
# 96 MiB segment on a fast guest once)
killall_of lvx
TX=$(tables $VG)
note "$TX"
check_match "lvx's pvmove0: dm-mirror with a core log, 2 legs (vda, vdc)" "$TX" " mirror core 1 4096 2 $VDA "
check "LVM2's vgck accepts the VG lvx's move left" lvm vgck $VG
check_match "LVM2's lvs shows pvmove0 moving vda" "$(lvm lvs -a --noheadings -o name,move_pv $VG 2>&1)" "/dev/vda"
check "lvx deactivates the VG (pvmove0 goes with the last LV)" $LVX vgchange -an $VG
check_eq "no device of the VG left" "$(dmsetup ls | grep "^$VG-" || true)" ""
check "LVM2 activates it (--poll n)" lvm vgchange -ay --poll n $VG
TL=$(tables $VG)
check_eq "lvx's live tables of its move equal LVM2's for the same metadata" "$TX" "$TL"
check_eq "data intact mid-move" "$(sums)" "$SUMS"
# -i 1: LVM2 2.03.16's `pvmove -i0` without arguments, resuming, waited 15 s (its default
# polling interval) after its checkpoint for the last 24 MiB (-v: "Moved: 80.00%" at 0.1 s,
# "Moved: 100.00%" at 15.3 s); with -i 1 it polls every second
check "LVM2 finishes the move lvx started (pvmove, no arguments)" lvm pvmove -i 1
check_eq "no pvmove0 left" "$(dmsetup ls | grep -c pvmove || true)" "0"
check_match "s2 on vdc and vdb" "$(dmsetup table $VG-s2)" "striped 2 128 $VDC "
check_eq "data intact after LVM2's end" "$(sums)" "$SUMS"

# ---------------------------------------------------------------- 2: LVM2 starts, lvx finishes
check "LVM2 pvmove -b -i 30 vdc vda (its poller then SIGKILLed)" lvm pvmove -b -i 30 /dev/vdc /dev/vda
killall_of lvm
T1L=$(tables $VG)
note "$T1L"
check_match "stage 1: pvmove0's first segment mirrored" "$T1L" "VG-pvmove0: 0 196608 mirror core 1 4096 2 $VDC "
check "LVM2 deactivates the VG" lvm vgchange -an $VG
check "lvx activates the VG with LVM2's move in progress (--poll n)" $LVX vgchange -ay --poll n $VG
T1X=$(tables $VG)
check_eq "stage 1 (setup): lvx's tables equal LVM2's" "$T1X" "$T1L"
check_eq "data intact (lvx's activation mid-move)" "$(sums)" "$SUMS"
check "lvx deactivates; LVM2 activates (--poll n) and polls every 2 s" sh -c \
    "$LVX vgchange -an $VG && lvm vgchange -ay --poll n $VG"
lvm pvmove -i 2 >/dev/null 2>&1 &
check "LVM2 commits its first checkpoint (pvmove0's first segment on vda)" wait_moved 1 "$VDA"
killall_of lvm
T2L=$(tables $VG)
note "$T2L"
check "LVM2 deactivates; lvx activates (--poll n)" sh -c "lvm vgchange -an $VG && $LVX vgchange -ay --poll n $VG"
T2X=$(tables $VG)
check_eq "stage 2 (a checkpoint): lvx's tables equal LVM2's" "$T2X" "$T2L"
check_match "stage 2: a segment done (linear on vda) and one mirrored" "$T2X" " mirror core 1 4096 2 $VDC "
(for i in $(seq 1 200); do
    lvm vgck $VG >/dev/null 2>&1 && echo ok || echo bad
    p=$(lvm lvs -a --noheadings -o lv_name,copy_percent $VG 2>/dev/null) &&
        echo "ok $(awk '/pvmove0/ { print $2 }' <<<"$p")" || echo bad
 done >/tmp/reads) &
READER=$!
for ((t = 0; t < 300; t++)); do grep -q ok /tmp/reads 2>/dev/null && break; sleep 0.1; done
check "lvx finishes the move LVM2 started (pvmove, no arguments; LVs active)" $LVX pvmove -i0
kill $READER 2>/dev/null
wait $READER 2>/dev/null
note "LVM2 reads during lvx's move: $(grep -c ok /tmp/reads) ok, $(grep -c bad /tmp/reads) failed; copy_percent of pvmove0 seen by LVM2: $(awk 'NF == 2 { print $2 }' /tmp/reads | uniq | tr '\n' ' ')"
check "LVM2 read the VG during lvx's move" grep -q ok /tmp/reads
check_eq "every LVM2 read (vgck, lvs) during lvx's move succeeded" "$(grep -c bad /tmp/reads)" "0"
check_eq "no pvmove0 left" "$(dmsetup ls | grep -c pvmove || true)" "0"
check_match "s2 back on vda" "$(dmsetup table $VG-s2)" "striped 2 128 $VDA "
check_match "lin back on vda" "$(dmsetup table $VG-lin)" "linear $VDA "
check_eq "data intact after lvx's end" "$(sums)" "$SUMS"
check "LVM2's vgck accepts the VG" lvm vgck $VG
check_eq "LVM2 sees no pvmove LV" "$(lvm lvs -a --noheadings -o name $VG | grep -c pvmove || true)" "0"

# ---------------------------------------------------------------- 3: activation polls a move
check "lvx pvmove -b vda vdc, its copier SIGKILLed, the VG deactivated" sh -c \
    "$LVX pvmove -b -i0 /dev/vda /dev/vdc && sleep 0.3 && for p in \$(pidof lvx); do kill -9 \$p; done; $LVX vgchange -an $VG"
check_eq "a move is left in the metadata" "$($LVX lvs -a --noheadings -o name $VG | grep -c pvmove)" "1"
check "lvx vgchange -ay (polling, as LVM2's activation)" $LVX vgchange -ay $VG
# LVM2 reads the VG while the copier runs (between and at its checkpoints)
OK2=0 BAD2=0 SEEN=""
for ((t = 0; t < 300; t++)); do
    out=$(lvm lvs -a --noheadings -o lv_name,copy_percent $VG 2>&1) && OK2=$((OK2 + 1)) || BAD2=$((BAD2 + 1))
    lvm vgck $VG >/dev/null 2>&1 && OK2=$((OK2 + 1)) || BAD2=$((BAD2 + 1))
    grep -q pvmove0 <<<"$out" || break
    SEEN+="$(awk '/pvmove0/ { print $2 }' <<<"$out") "
done
note "LVM2 reads while the activation's copier moved: $OK2 ok, $BAD2 failed; pvmove0's copy_percent seen: $SEEN"
check_eq "LVM2's reads (lvs, vgck) during the move all succeeded" "$BAD2" "0"
check "LVM2 read the VG more than once during the move" test "$OK2" -ge 4
check_eq "the copier the activation started finished the move" \
    "$(dmsetup ls | grep -c pvmove || true) $($LVX lvs -a --noheadings -o name $VG | grep -c pvmove || true)" "0 0"
check_match "s2 on vdc" "$(dmsetup table $VG-s2)" "striped 2 128 $VDC "
check_eq "data intact" "$(sums)" "$SUMS"

# ---------------------------------------------------------------- 4: --abort of lvx's move
check "lvx pvmove -b vdc vda" $LVX pvmove -b -i0 /dev/vdc /dev/vda
for ((t = 0; t < 100; t++)); do dmsetup ls | grep -q pvmove0 && break; sleep 0.1; done
check_match "pvmove0 live with its mirror" "$(dmsetup table $VG-pvmove0 2>&1)" " mirror core 1 4096 2 "
check "lvx pvmove --abort (stops the copier, LVs as the checkpoints left them)" $LVX pvmove --abort
check_eq "no pvmove0 device, no pvmove LV" \
    "$(dmsetup ls | grep -c pvmove || true) $($LVX lvs -a --noheadings -o name $VG | grep -c pvmove || true)" "0 0"
check_eq "no lvx process left" "$(pidof lvx || true)" ""
check_eq "data intact after the abort" "$(sums)" "$SUMS"
check_eq "each LV's table is LVM2's for the metadata (LVM2 re-activates)" "$(tables $VG)" \
    "$(lvm vgchange -an $VG >/dev/null 2>&1 && lvm vgchange -ay --poll n $VG >/dev/null 2>&1 && tables $VG)"
check "LVM2's vgck accepts the VG" lvm vgck $VG
guest_done
