#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/restripe.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0715-kernel-restripe.sh) with 4 virtio disks, lvx at /t/lvx (its kernel
# backend) and the host's LVM2/dmsetup.  Prints TAP (also to /out/result.tap).
#   vda-vdd  VG "rsk" made by lvx; a linear 192m LV on vda with random data.
# Checks: lvx refuses to restripe an LV active in the kernel (exit 5, one line, no
# write); an inactive restripe SIGKILLed mid-way leaves a VG that LVM2 checks (vgck),
# reports (lvs -a: [lv_restripe]) and ACTIVATES with the kernel, reading
# the data back byte for byte through its mixed table; `lvx lvconvert VG/LV` resumes
# it; LVM2 then activates the restriped LV and reads the same bytes.
# shellcheck source=tests/kernel/guest-tap.sh
. /t/guest-tap.sh

VG=rsk
sum() { sha256sum <"$1" | cut -d' ' -f1; }
seqno() { $LVX vgs --noheadings -o vg_seqno $VG | trim; }
# the reservation LV; every LV of the restripe (the reservation, the old extents' holder)
rsv() { lvm lvs -a --noheadings -o lv_name $VG 2>/dev/null | grep -c '\[lv_restripe\]'; }
rs_lvs() { lvm lvs -a --noheadings -o lv_name $VG 2>/dev/null | grep -c 'lv_restripe'; }

check "lvx makes VG rsk on vda-vdd" sh -c "$LVX pvcreate -q /dev/vda /dev/vdb /dev/vdc /dev/vdd &&
    $LVX vgcreate -q -s 4m $VG /dev/vda /dev/vdb /dev/vdc /dev/vdd"
check "lvx lvcreate: a linear 192m LV on vda, active in the kernel" \
    $LVX lvcreate -q -Zn -n lv -L 192m $VG /dev/vda
dd if=/dev/urandom of=/tmp/data bs=1M count=192 status=none
check "random data written through the kernel" \
    dd if=/tmp/data of=/dev/$VG/lv bs=1M oflag=direct status=none
want=$(sum /tmp/data)

s0=$(seqno)
rc=0
out=$($LVX lvconvert --stripes 4 $VG/lv 2>&1) || rc=$?
check_eq "lvx lvconvert --stripes 4 of an LV active in the kernel: exit 5" "$rc" "5"
check_match "... one line saying why" "$out" "is active in the kernel"
check_eq "... no metadata written" "$(seqno)" "$s0"
check "lvx lvchange -an" $LVX lvchange -an $VG/lv

# an inactive restripe SIGKILLed until one is caught mid-way (4 <-> 1 stripes)
t=4 mid=no
for try in 1 2 3 4 5 6 7 8; do
    $LVX lvconvert --stripes $t $VG/lv >/tmp/k.out 2>&1 &
    pid=$!
    sleep "0.$((RANDOM % 8 + 1))"
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    if [ "$(rsv)" = 1 ]; then mid=yes; break; fi
    # killed after the last step, before the old extents were freed: finish that
    [ "$(rs_lvs)" != 0 ] && $LVX lvconvert $VG/lv >/dev/null 2>&1
    [ "$($LVX lvs --noheadings -o stripes $VG/lv | trim)" = $t ] && t=$((5 - t))
done
check_eq "a restripe to $t stripes SIGKILLed mid-way (try $try)" "$mid" "yes"
note "$(lvm lvs -a --noheadings -o lv_name,lv_attr,segtype,stripes,devices $VG 2>&1)"
check "LVM2's vgck accepts the VG left mid-restripe" lvm vgck $VG
check_match "LVM2's lvs -a shows the reservation LV" \
    "$(lvm lvs -a --noheadings -o lv_name $VG 2>&1)" "[lv_restripe]"
check "LVM2 activates the VG mid-restripe (vgchange -ay)" lvm vgchange -ay $VG
note "$(dmsetup table $VG-lv)"
check_eq "the kernel reads the half-restriped LV byte for byte" "$(sum /dev/$VG/lv)" "$want"
check "LVM2 deactivates it" lvm vgchange -an $VG
check "lvx lvconvert $VG/lv resumes the restripe" $LVX lvconvert $VG/lv
check_eq "... no restripe LV left (reservation, old extents)" "$(rs_lvs)" "0"
check_eq "... LVM2 reports $t stripe(s)" "$(lvm lvs --noheadings -o stripes $VG/lv | trim)" "$t"
check "LVM2's vgck" lvm vgck $VG
check "LVM2 activates the restriped LV" lvm vgchange -ay $VG
check_eq "the kernel reads the restriped LV byte for byte" "$(sum /dev/$VG/lv)" "$want"
check "LVM2 deactivates it" lvm vgchange -an $VG
guest_done
