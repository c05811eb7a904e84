#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/dm-raid-convert.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0712-kernel-raid-convert.sh) with 8 virtio disks, lvx at /t/lvx and the
# host's LVM2/dmsetup.  Prints TAP (also to /out/result.tap when /out is shared).
#
#   vda-vdd  VG "rl": LVs converted by LVM2
#   vde-vdh  VG "rx": the same LVs, the same conversions, by lvx (dm backend)
#
# Every conversion (lvconvert -m N up and down, with and without a PV list, linear ->
# raid1 -> linear, --type raid1/linear, mirror -> raid1 -> mirror) is made by each tool on its own VG, on active
# LVs holding data; after each: lvx's layout and metadata text equal LVM2's (ids and
# times aside), its dm tables equal LVM2's (device numbers named, "rebuild N" of the
# new images included), the data is intact; LVM2's vgck accepts lvx's VG, LVM2
# activates lvx's VG and reads the data.  Then --replace PV, and a disk of each VG
# unplugged (virtio unbind: I/O errors, PV missing) followed by --repair: lvx's result
# equals LVM2's (layout, metadata with the PV flagged MISSING, tables), the kernel
# rebuilds the new image, the data is intact, LVM2 activates the repaired LV and its
# --syncaction check finds no mismatch; a raid1 LV with an image on the unplugged disk
# is refused in complete mode as LVM2 refuses it and activated degraded with LVM2's
# devices (the missing image's sub-LVs over "-missing_0_0" error devices), health and
# attributes as LVM2's.
# shellcheck disable=SC2317,SC2086  # functions called through check(); lists split on purpose
# shellcheck source=tests/kernel/guest-tap.sh
. /t/guest-tap.sh

# shellcheck source=tests/kernel/raid-twins.sh
. /t/raid-twins.sh

# ---------------------------------------------------------------- set up
lvm pvcreate -q $RL_DISKS >/dev/null && lvm vgcreate -q rl $RL_DISKS >/dev/null
$LVX pvcreate -q $RX_DISKS >/dev/null && $LVX vgcreate -q rx $RX_DISKS >/dev/null
LVS="a b"
for lv in $LVS; do
    check "LVM2 lvcreate -L 8m -n $lv rl" lvm lvcreate -q -y -L 8m -n $lv rl
    check "lvx lvcreate -L 8m -n $lv rx" $LVX lvcreate -q -y -L 8m -n $lv rx
    dd if=/dev/urandom of=/tmp/data.$lv bs=1M count=8 status=none
    dd if=/tmp/data.$lv of=/dev/mapper/rl-$lv bs=1M oflag=direct status=none
    dd if=/tmp/data.$lv of=/dev/mapper/rx-$lv bs=1M oflag=direct status=none
done
same "linear LVs"

# PHASES=repair (a development run): only the --replace/--repair/degraded part, b made raid1 directly
if [ "${PHASES:-all}" = repair ]; then
    lvm lvconvert -q -y -m2 rl/b >/dev/null 2>&1; $LVX lvconvert -q -y -m2 rx/b >/dev/null 2>&1
    wait_sync rl rx
else
# ---------------------------------------------------------------- conversions
conv "linear -> raid1 (-m1)" -y -m1 V/a
same "after -m1 of a linear LV (new image rebuilding)"
wait_sync rl rx
check_eq "the kernel rebuilt lvx's new image (sync 100%, healthy, idle)" \
    "$(lvm lvs --noheadings -o sync_percent,lv_health_status,raid_sync_action rx/a | trim)" "100.00idle"
conv "raid1 2 -> 3 images (-m2)" -y -m2 V/a
same "after -m2"
wait_sync rl rx
conv "raid1 3 -> 2 images (-m1, the highest goes)" -y -m1 V/a
same "after -m1 of a 3-image raid1"
conv "raid1 2 -> 4 images (-m3)" -y -m3 V/a
wait_sync rl rx
same "after -m3"
# a reload the kernel refuses after the images were renamed: the renames are undone
before=$(dmsetup ls | grep '^rx-' | awk '{ print $1 }' | sort | tr '\n' ' ')
meta=$($LVX lvs -a --noheadings -o lv_name,devices rx 2>/dev/null)
check_fail "lvx lvconvert -m2 rx/a %1 with the table load failing fails" "table load" \
    env LVX_TEST_DM_FAIL=load $LVX lvconvert -q -y -m2 rx/a "$(disk 1 "$RX_DISKS")"
check_eq "its devices keep their names (the images' renames undone)" \
    "$(dmsetup ls | grep '^rx-' | awk '{ print $1 }' | sort | tr '\n' ' ')" "$before"
check_eq "its metadata is unchanged" "$($LVX lvs -a --noheadings -o lv_name,devices rx 2>/dev/null)" "$meta"
same "after the failed -m2"
conv "raid1 4 -> 3 images taking the one on disk 1 (images above move down)" -y -m2 V/a %1
same "after -m2 with a PV list"
conv "raid1 -> linear (-m0)" -y -m0 V/a
same "after -m0"
conv "linear -> raid1 (--type raid1)" -y --type raid1 V/b
wait_sync rl rx
same "after --type raid1"
conv "raid1 -> linear (--type linear)" -y --type linear V/b
same "after --type linear"
conv "linear -> raid1 with 3 images and -R 1m" -y -m2 -R 1m V/b
wait_sync rl rx
same "after -m2 -R 1m of a linear LV"
conv "same image count: a warning only" -y -m2 V/b
out=$($LVX lvconvert -m1 rx/b </dev/null 2>&1); rc=$?
check_eq "no answer to the prompt: not converted, exit 5" "$rc $(echo "$out" | tail -n 1 | sed 's/^ *//')" \
    "5 Logical volume rx/b NOT converted."

# ---------------------------------------------------------------- mirror <-> raid1 (takeover)
check "LVM2 lvcreate --type mirror -m1 -L 8m -n m rl" lvm lvcreate -q -y --type mirror -m1 -L 8m -n m rl
check "lvx lvcreate --type mirror -m1 -L 8m -n m rx" $LVX lvcreate -q -y --type mirror -m1 -L 8m -n m rx
dd if=/dev/urandom of=/tmp/data.m bs=1M count=8 status=none
dd if=/tmp/data.m of=/dev/mapper/rl-m bs=1M oflag=direct status=none
dd if=/tmp/data.m of=/dev/mapper/rx-m bs=1M oflag=direct status=none
LVS="a b m"
wait_sync rl rx
conv "mirror -> raid1 (--type raid1)" -y --type raid1 V/m
same "after --type raid1 of a mirror (rmeta on the images' PVs, log gone)"
wait_sync rl rx
check_eq "the kernel synced lvx's raid1 made of a mirror (100%, idle)" \
    "$(lvm lvs --noheadings -o sync_percent,lv_health_status,raid_sync_action rx/m | trim)" "100.00idle"
conv "raid1 -> mirror (--type mirror)" -y --type mirror V/m
same "after --type mirror of a raid1 LV (rmeta gone, disk log)"
wait_sync rl rx
check "lvx lvconvert -y --type raid1 rx/m (again)" $LVX lvconvert -q -y --type raid1 rx/m
wait_sync rx
out=$($LVX lvconvert --type mirror rx/m </dev/null 2>&1); rc=$?
check_eq "raid1 -> mirror unanswered: not converted, exit 5" "$rc $(echo "$out" | tail -n 1 | sed 's/^ *//')" \
    "5 Logical volume rx/m NOT converted to \"mirror\"."
check "lvx lvconvert -y --type mirror rx/m (back to a mirror)" $LVX lvconvert -q -y --type mirror rx/m
check "m's data intact after three conversions" sh -c "$(declare -f data_ok); data_ok rx m"

# ---------------------------------------------------------------- LVM2 reads lvx's result
check "LVM2's vgck accepts lvx's VG" lvm vgck rx
check "lvx vgchange -an rx" $LVX vgchange -an rx
check_eq "no rx device left" "$(dmsetup ls | grep -c '^rx-')" 0
check "LVM2 activates lvx's VG" lvm vgchange -ay rx
wait_sync rx
for lv in $LVS; do
    check "$lv: LVM2 reads the data lvx's conversions kept" sh -c "$(declare -f data_ok); data_ok rx $lv"
done
check "LVM2 removes m from both VGs" sh -c "lvm lvremove -q -y rl/m rx/m >/dev/null"
fi

# ---------------------------------------------------------------- --replace, a failed disk, --repair
# both VGs activated afresh (live tables without the one-time "rebuild" of earlier steps)
check "LVM2 activates rl afresh, lvx rx" sh -c "lvm vgchange -q -an rl >/dev/null && lvm vgchange -q -ay rl >/dev/null &&
    $LVX vgchange -q -an rx >/dev/null && $LVX vgchange -q -ay rx >/dev/null"
check "LVM2 lvcreate --type raid1 -m1 -L 8m -n c rl (disks 1, 2)" \
    lvm lvcreate -q -y --type raid1 -m1 -L 8m -n c rl "$(disk 1 "$RL_DISKS")" "$(disk 2 "$RL_DISKS")"
check "lvx lvcreate --type raid1 -m1 -L 8m -n c rx (disks 1, 2)" \
    $LVX lvcreate -q -y --type raid1 -m1 -L 8m -n c rx "$(disk 1 "$RX_DISKS")" "$(disk 2 "$RX_DISKS")"
dd if=/dev/urandom of=/tmp/data.c bs=1M count=8 status=none
dd if=/tmp/data.c of=/dev/mapper/rl-c bs=1M oflag=direct status=none
dd if=/tmp/data.c of=/dev/mapper/rx-c bs=1M oflag=direct status=none
LVS="a b c"
wait_sync rl rx
conv "--replace disk 2" -y --replace %2 V/c
same "after --replace of disk 2"
wait_sync rl rx
check_eq "the kernel rebuilt lvx's replacement image" \
    "$(lvm lvs --noheadings -o sync_percent,lv_health_status,raid_sync_action rx/c | trim)" "100.00idle"
fail_disk() {  # the virtio disk goes away (hot unplug): I/O errors, its PV missing
    echo "$(cat /sys/block/$1/dev) $1" >>/tmp/gone
    basename "$(readlink -f /sys/block/$1/device)" >/sys/bus/virtio/drivers/virtio_blk/unbind
}
fail_disk vdb
fail_disk vdf
check_eq "disk 1 of each VG is gone" "$(ls /sys/block | grep -c -e '^vdb$' -e '^vdf$')" 0
for v in rl rx; do   # writes reach the dead image: the kernel marks it failed
    dd if=/tmp/data.c of=/dev/mapper/$v-c bs=1M oflag=direct status=none
done
check_eq "the kernel sees rx/c degraded (a dead image)" \
    "$(dmsetup status rx-c | awk '{ print $6 }' | tr -d 'A')" "D"
outl=$(lvm lvconvert -y --repair rl/c 2>&1); rcl=$?
outx=$($LVX lvconvert -y --repair rx/c 2>&1); rcx=$?
check_eq "--repair: lvx exits as LVM2 (0) and says it replaced the faulty devices" \
    "$rcx $(echo "$outx" | grep -v WARNING | sed 's/rx/V/g')" "$rcl $(echo "$outl" | grep -v WARNING | sed 's/rl/V/g')"
[ $rcx = 0 ] || note "$outx"
check_eq "after --repair: lvx's layout equals LVM2's" "$(layout rx)" "$(layout rl)"
check_eq "after --repair: lvx's metadata text equals LVM2's (missing PV flagged)" "$(meta rx)" "$(meta rl)"
check_eq "after --repair: lvx's dm tables equal LVM2's" "$(tables rx)" "$(tables rl)"
wait_sync rl rx
check_eq "the kernel rebuilt the repaired image of lvx's LV (healthy, in sync)" \
    "$(lvm lvs --noheadings -o sync_percent,lv_health_status,raid_sync_action rx/c | trim)" "100.00idle"
check "c's data intact after the repair, both VGs" sh -c "$(declare -f data_ok); data_ok rl c && data_ok rx c"
check "lvx deactivates rx/c" $LVX lvchange -an rx/c
check "LVM2 activates lvx's repaired LV" lvm lvchange -ay rx/c
check "LVM2 reads c's data from it" sh -c "$(declare -f data_ok); data_ok rx c"
check "lvx lvchange --syncaction check rx/c" $LVX lvchange --syncaction check rx/c
check_eq "the kernel is checking (or done already)" \
    "$(dmsetup status rx-c | awk '{ print ($8 == "check" || $8 == "idle") ? "ok" : $8 }')" "ok"
for i in $(seq 1 60); do
    [ "$(lvm lvs --noheadings -o raid_sync_action rx/c 2>/dev/null | trim)" = idle ] && break; sleep 1
done
check_eq "the check found no mismatch between the old and the rebuilt image" \
    "$(lvm lvs --noheadings -o raid_mismatch_count,lv_health_status rx/c 2>/dev/null | trim)" "0"
F=lv_name,sync_percent,raid_sync_action,raid_mismatch_count,raid_min_recovery_rate,raid_max_recovery_rate,raid_write_behind,region_size
check_eq "lvx lvs of the RAID fields equals LVM2's" "$($LVX lvs -a -o $F rx 2>/dev/null)" "$(lvm lvs -a -o $F rx 2>/dev/null)"
# degraded activation: b has an image on the unplugged disk
check "LVM2 deactivates rl/b, lvx rx/b" sh -c "lvm lvchange -an rl/b && $LVX lvchange -an rx/b"
outl=$(lvm lvchange -ay --activationmode complete rl/b 2>&1); rcl=$?
outx=$($LVX lvchange -ay --activationmode complete rx/b 2>&1); rcx=$?
check_eq "--activationmode complete: lvx refuses the degraded raid1 LV as LVM2 does" \
    "$rcx $(echo "$outx" | grep -v WARNING | sed 's/rx/V/g; s/^ *//')" "$rcl $(echo "$outl" | grep -v WARNING | sed 's/rl/V/g; s/^ *//')"
check "LVM2 activates rl/b degraded (its default mode)" lvm lvchange -ay rl/b
check "lvx activates rx/b degraded (the default mode)" $LVX lvchange -ay rx/b
check_eq "degraded: lvx's devices of b equal LVM2's (the missing image's sub-LVs over -missing_0_0 error devices)" \
    "$(tables rx | grep '^b[:_]')" "$(tables rl | grep '^b[:_]')"
check "degraded: b's data readable through lvx's device" sh -c "$(declare -f data_ok); data_ok rx b"
check_eq "lvx's health and attributes of the degraded LV equal LVM2's" \
    "$($LVX lvs --noheadings -o lv_attr,lv_health_status,sync_percent rx/b 2>/dev/null)" \
    "$(lvm lvs --noheadings -o lv_attr,lv_health_status,sync_percent rx/b 2>/dev/null)"
lvm vgchange -an rx >/dev/null 2>&1
lvm vgchange -an rl >/dev/null 2>&1

guest_done
