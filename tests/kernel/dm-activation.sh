#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/dm-activation.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0700-kernel-dm.sh) with 10 virtio disks, lvx at /t/lvx and the host's
# LVM2/dmsetup/mkfs.xfs.  Prints TAP (also to /out/result.tap when /out is shared).
#
#   vda-vdd  VG "lvm-vg" made and activated by LVM2
#   vde-vdh  VG "lvx-vg", the same LVs made and activated by lvx
#   vdi-vdj  VG "part-vg" (lvx), vdj wiped later: partial activation
#
# Checks: dm tables equal (device numbers mapped), DM names and UUIDs as LVM2's, /dev
# nodes and links, read-only and read-ahead as LVM2's, LVM2 sees lvx's LVs active and
# open, each tool deactivates the other's VG, mkfs.xfs stripe geometry on a 4-stripe
# LV, data written and read back, lvextend of a mounted striped LV under a writer +
# xfs_growfs, rename and remove of active LVs, partial activation, no leftovers after
# a failed activation.
# shellcheck disable=SC2317,SC2086,SC2012  # functions called through check(); disk lists split on purpose
# shellcheck source=tests/kernel/guest-tap.sh
. /t/guest-tap.sh
dmname() { printf '%s-%s' "${1//-/--}" "${2//-/--}"; }

LVM_DISKS="/dev/vda /dev/vdb /dev/vdc /dev/vdd"
LVX_DISKS="/dev/vde /dev/vdf /dev/vdg /dev/vdh"
LVS="lin-1 s2 s3 s4 ms ro"

# ---------------------------------------------------------------- set up
# The same LVs on both sides: linear, 2/3/4 stripes of 64k/128k/256k, a segment mix
# (linear, 3 stripes, linear) and a read-only LV.
make_lvs() {  # make_lvs TOOL VG
    local t=$1 vg=$2
    $t lvcreate -q -y -L 40m -n lin-1 "$vg" &&
    $t lvcreate -q -y -i2 -I64k -L 32m -n s2 "$vg" &&
    $t lvcreate -q -y -i3 -I128k -L 48m -n s3 "$vg" &&
    $t lvcreate -q -y -i4 -I256k -L 1g -n s4 "$vg" &&
    $t lvcreate -q -y -L 8m -n ms "$vg" &&
    $t lvextend -q -i3 -I64k -L +24m "$vg/ms" &&
    $t lvextend -q -i1 -L +8m "$vg/ms" &&
    $t lvcreate -q -y -pr -Zn -L 8m -n ro "$vg"
}
setup_side() {  # setup_side TOOL VG DISKS...
    local t=$1 vg=$2
    shift 2
    $t pvcreate -q "$@" && $t vgcreate -q "$vg" "$@" && make_lvs "$t" "$vg"
}
check "LVM2 makes VG lvm-vg and its LVs (active)" setup_side lvm lvm-vg $LVM_DISKS
check "lvx makes VG lvx-vg and the same LVs (active)" setup_side $LVX lvx-vg $LVX_DISKS

# sed script mapping lvx's PV device numbers to LVM2's (same PV order)
MAP=
set -- $LVM_DISKS
for d in $LVX_DISKS; do MAP="$MAP;s/ $(devnum "$d") / $(devnum "$1") /g"; shift; done

emit "# setup done at ${SECONDS}s"
# ---------------------------------------------------------------- tables, names, nodes
for lv in $LVS; do
    a=$(dmsetup table "$(dmname lvm-vg "$lv")" 2>&1)
    b=$(dmsetup table "$(dmname lvx-vg "$lv")" 2>&1 | sed "$MAP")
    check_eq "dm table of $lv: lvx's equals LVM2's (device numbers mapped)" "$b" "$a"
done
uuids=$(lvm lvs --noheadings --separator ' ' -o vg_name,lv_name,vg_uuid,lv_uuid lvm-vg lvx-vg 2>/dev/null)
dminfo=$(dmsetup info -c --noheadings --separator ' ' -o name,uuid)
for vg in lvm-vg lvx-vg; do
    for lv in $LVS; do
        name=$(dmname "$vg" "$lv")
        uu=$(awk -v v="$vg" -v l="$lv" '$1 == v && $2 == l { print $3 $4 }' <<<"$uuids" | tr -d -)
        got=$(awk -v n="$name" '$1 == n' <<<"$dminfo")
        check_eq "$vg/$lv: DM name and UUID of LVM2's form" "$got" "$name LVM-$uu"
    done
done
check "/dev/lvx-vg/s2 -> ../mapper/lvx--vg-s2, a block node with the device's number" \
    sh -c "[ \"\$(readlink /dev/lvx-vg/s2)\" = ../mapper/lvx--vg-s2 ] && [ -b /dev/mapper/lvx--vg-s2 ] &&
           [ \"\$(stat -L -c %t:%T /dev/lvx-vg/s2)\" = \"\$(dmsetup info -c --noheadings -o major,minor lvx--vg-s2 | awk -F: '{printf \"%x:%x\", \$1, \$2}')\" ]"
check_eq "read-only LV: same dm attributes as LVM2's (read-only)" \
    "$(dmsetup info -c --noheadings -o attr lvx--vg-ro)" "$(dmsetup info -c --noheadings -o attr lvm--vg-ro)"
check_eq "read-only LV: writes are refused by the kernel" \
    "$(dd if=/dev/zero of=/dev/lvx-vg/ro bs=4k count=1 oflag=direct 2>/dev/null && echo written || echo refused)" refused
for lv in lin-1 s2 s4; do
    check_eq "read-ahead of $lv equals LVM2's" "$(blockdev --getra /dev/lvx-vg/$lv)" \
        "$(blockdev --getra /dev/lvm-vg/$lv)"
done

# ---------------------------------------------------------------- reports
got=$($LVX lvs --noheadings --separator , -o lv_name,lv_attr,lv_active,lv_activation_backend,lv_kernel_major,lv_kernel_minor lvm-vg/s2 2>&1 | trim)
kmm=$(dmsetup info -c --noheadings --separator , -o major,minor lvm--vg-s2 | trim)
check_eq "lvx lvs sees LVM2's active LV (attr, active, backend, kernel numbers)" "$got" "s2,-wi-a-----,active,dm,$kmm"

emit "# checks of tables and reports done at ${SECONDS}s"
# ---------------------------------------------------------------- xfs on the 4-stripe LV
mkdir -p /mnt/x
out=$(mkfs.xfs -f -K /dev/lvx-vg/s4 2>&1)
if grep -q 'sunit=64 .*swidth=256 blks' <<<"$out"; then pass "mkfs.xfs picks sunit=64 swidth=256 blks on lvx's 4 x 256k LV"
else fail "mkfs.xfs picks sunit=64 swidth=256 blks on lvx's 4 x 256k LV"; note "$out"; fi
check "mount it" mount /dev/lvx-vg/s4 /mnt/x
head -c 8M /dev/urandom >/tmp/f1
head -c 64M /dev/urandom >/tmp/big
check "write a file and read it back after a remount" sh -c \
    "cp /tmp/f1 /mnt/x/f1 && sync && umount /mnt/x && mount /dev/lvx-vg/s4 /mnt/x && cmp /tmp/f1 /mnt/x/f1"
attr=$(lvm lvs --noheadings -o lv_attr,lv_device_open lvx-vg/s4 2>/dev/null | trim)
check_eq "LVM2's lvs shows lvx's mounted LV active and open" "$attr" "-wi-ao----open"
# the display commands' device lines (LV Status, # open, read-ahead, Block device, Open LV)
check_eq "lvx lvdisplay of the mounted LV equals LVM2's" "$($LVX lvdisplay lvx-vg/s4 2>&1)" \
    "$(lvm lvdisplay lvx-vg/s4 2>&1)"
check_eq "lvx lvdisplay -c of the VG equals LVM2's" "$($LVX lvdisplay -c lvx-vg 2>&1)" \
    "$(lvm lvdisplay -c lvx-vg 2>&1)"
check_eq "lvx vgdisplay (Open LV) equals LVM2's" "$($LVX vgdisplay lvx-vg 2>&1)" \
    "$(lvm vgdisplay lvx-vg 2>&1)"
check_fail "lvx refuses to deactivate the mounted LV" "contains a filesystem in use" $LVX lvchange -an lvx-vg/s4

# ---------------------------------------------------------------- grow under a writer
# the writer: 1 MiB chunks of /tmp/big, each written with fsync, until told to stop
rm -f /tmp/stop /tmp/written
(
    i=0
    while [ ! -e /tmp/stop ] && [ $i -lt 512 ]; do
        dd if=/tmp/big of=/mnt/x/w bs=1M count=1 seek=$i skip=$((i % 64)) conv=notrunc,fsync \
            status=none || exit 1
        i=$((i + 1))
    done
    echo $i >/tmp/written
) &
ddpid=$!
sleep 1
check "lvx lvextend +64m of the mounted 4-stripe LV while a writer runs" $LVX lvextend -L +64m lvx-vg/s4
before_stop=$(ls /tmp/written 2>/dev/null)
touch /tmp/stop
wait $ddpid
check_eq "the writer saw no I/O error" "$?" 0
check_eq "the writer was still writing when lvextend returned" "$before_stop" ""
n=$(cat /tmp/written 2>/dev/null || echo 0)
emit "# the writer wrote $n MiB"
# what the file must hold: /tmp/big repeated, cut at n MiB
( q=$((n / 64)); while [ $q -gt 0 ]; do cat /tmp/big; q=$((q - 1)); done
  head -c $(((n % 64) * 1048576)) /tmp/big ) >/tmp/exp
check "xfs_growfs" xfs_growfs /mnt/x
check_eq "LV size after lvextend (1088 MiB = 2228224 sectors)" "$(blockdev --getsz /dev/lvx-vg/s4)" 2228224
check "data intact after the grow (the writer's chunks and the earlier file)" sh -c \
    "[ $n -gt 0 ] && cmp /tmp/exp /mnt/x/w && cmp /tmp/f1 /mnt/x/f1"
check_eq "the grown table has LVM2's form (2nd segment appended)" \
    "$(dmsetup table lvx--vg-s4 | wc -l)" \
    "$(lvm lvs --noheadings -o seg_count lvx-vg/s4 2>/dev/null | trim)"
check "no I/O errors in the kernel log" sh -c "! dmesg | grep -i -E 'I/O error|Buffer I/O'"
umount /mnt/x

emit "# xfs checks done at ${SECONDS}s"
# ---------------------------------------------------------------- cross deactivation
check "lvx vgchange -an deactivates LVM2's VG" $LVX vgchange -an lvm-vg
check_eq "no lvm-vg devices or links left" "$(dmsetup ls | grep -c '^lvm--vg-'; ls /dev/lvm-vg 2>/dev/null | wc -l)" "0
0"
check "LVM2 vgchange -an deactivates lvx's VG" lvm vgchange -an lvx-vg
check_eq "no lvx-vg devices left" "$(dmsetup ls | grep -c '^lvx--vg-')" 0
check "lvx vgchange -ay activates LVM2's VG" $LVX vgchange -ay lvm-vg
check_eq "LVM2 sees its LVs active again" \
    "$(lvm lvs --noheadings -o lv_active lvm-vg 2>/dev/null | grep -c active)" 6
check "LVM2's lvchange -an / -ay on an lvx-activated LV" sh -c "lvm lvchange -an lvm-vg/s3 && lvm lvchange -ay lvm-vg/s3"

# ---------------------------------------------------------------- rename and remove active LVs
check "lvx vgchange -ay lvx-vg" $LVX vgchange -ay lvx-vg
dmsetup reload lvx--vg-s3 --table "0 $(blockdev --getsz /dev/lvx-vg/s3) zero" && dmsetup resume lvx--vg-s3
check "lvx lvchange -ay of an active LV whose live table differs reloads it" $LVX lvchange -ay lvx-vg/s3
check_eq "... with the table from the metadata again" "$(dmsetup table lvx--vg-s3 | sed "$MAP")" \
    "$(dmsetup table lvm--vg-s3)"
check "lvx lvrename of an active LV" $LVX lvrename lvx-vg s2 s-two
check "renamed device, link and old ones gone" sh -c \
    "dmsetup info lvx--vg-s--two >/dev/null && [ \"\$(readlink /dev/lvx-vg/s-two)\" = ../mapper/lvx--vg-s--two ] &&
     ! dmsetup info lvx--vg-s2 >/dev/null 2>&1 && [ ! -e /dev/lvx-vg/s2 ]"
check_eq "LVM2 sees the renamed LV active" "$(lvm lvs --noheadings -o lv_attr lvx-vg/s-two 2>/dev/null | trim)" "-wi-a-----"
check "lvx lvchange -pr of an active LV reloads it read-only" sh -c \
    "$LVX lvchange -pr lvx-vg/lin-1 && dmsetup info -c --noheadings -o attr lvx--vg-lin--1 | grep -q '^L--r'"
check "and -prw makes it writable again" sh -c \
    "$LVX lvchange -prw lvx-vg/lin-1 && dmsetup info -c --noheadings -o attr lvx--vg-lin--1 | grep -q '^L--w'"
check_fail "lvx lvremove of an active LV asks first (no answer: not removed)" "not removed" \
    sh -c "$LVX lvremove lvx-vg/s-two </dev/null"
check "lvx lvremove -y removes an active LV" $LVX lvremove -y lvx-vg/s-two
check "its device and link are gone" sh -c "! dmsetup info lvx--vg-s--two >/dev/null 2>&1 && [ ! -e /dev/lvx-vg/s-two ]"

# ---------------------------------------------------------------- failures leave nothing
before=$(dmsetup ls | sort)
check_fail "an activation whose table load the kernel refuses fails" "table load" \
    env LVX_TEST_DM_FAIL=load $LVX lvcreate -q -y -L 8m -n bad lvx-vg
check_eq "no half-made device after the failed table load" "$(dmsetup ls | sort)" "$before"
check "no node left in /dev/mapper" sh -c "[ ! -e /dev/mapper/lvx--vg-bad ] && [ ! -e /dev/lvx-vg/bad ]"
check_eq "the LV that could not be activated was taken out of the VG again (as LVM2)" \
    "$($LVX lvs --noheadings -o lv_name lvx-vg/bad 2>/dev/null | trim)" ""
check "lvx lvcreate -an of an inactive LV" $LVX lvcreate -q -an -Zn -L 8m -n bad lvx-vg
check_fail "a failing resume fails too" "resume" env LVX_TEST_DM_FAIL=resume $LVX lvchange -ay lvx-vg/bad
check_eq "no half-made device after the failed resume" "$(dmsetup ls | sort)" "$before"

emit "# rename/remove/failures done at ${SECONDS}s"
# ---------------------------------------------------------------- partial activation
check "lvx makes part-vg (a on vdi, b on vdj, c striped on both)" sh -c \
    "$LVX pvcreate -q /dev/vdi /dev/vdj && $LVX vgcreate -q part-vg /dev/vdi /dev/vdj &&
     $LVX lvcreate -q -an -Zn -L 16m -n a part-vg /dev/vdi && $LVX lvcreate -q -an -Zn -L 16m -n b part-vg /dev/vdj &&
     $LVX lvcreate -q -an -Zn -i2 -L 16m -n c part-vg"
dd if=/dev/zero of=/dev/vdj bs=1M count=2 2>/dev/null   # vdj's label is gone: a missing PV
out=$($LVX vgchange -ay part-vg 2>&1); rc=$?
check_eq "vgchange -ay of a VG with a missing PV fails (exit 5)" "$rc" 5
check_match "it says why, for each LV on the missing PV" "$out" \
    "Refusing activation of partial LV part-vg/b.  Use '--activationmode partial' to override."
check_match "... also for the LV striped over it" "$out" "Refusing activation of partial LV part-vg/c."
check_eq "only the LV not using the missing PV is active" "$(dmsetup ls | grep -o '^part--vg-[a-z]*' | sort | tr '\n' ' ')" "part--vg-a "
check "--activationmode partial activates the others" $LVX vgchange -ay --activationmode partial part-vg
check_eq "missing areas map to the error target" "$(dmsetup table part--vg-b | sed 's/ *$//')" "0 32768 error"
check "lvx vgchange -an part-vg" $LVX vgchange -an part-vg
check_eq "all part-vg devices gone" "$(dmsetup ls | grep -c '^part--vg-')" 0

# ---------------------------------------------------------------- end
$LVX vgchange -an lvx-vg >/dev/null 2>&1
lvm vgchange -an lvm-vg >/dev/null 2>&1
guest_done
