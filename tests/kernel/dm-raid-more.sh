#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/dm-raid-more.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0713-kernel-raid-more.sh) with 8 virtio disks, lvx at /t/lvx and the
# host's LVM2/dmsetup.  Twin VGs (tests/kernel/raid-twins.sh): rl changed by LVM2,
# rx by lvx, compared after every step (layout, metadata text, dm tables, data).
#
#   lvconvert -m +N / -m -N (with and without PVs), LVM2's refusals of impossible
#   counts; lvchange --rebuild PV (raid1, raid5; a PV the LV does not use; no answer
#   to the question), lvchange --resync of an active and of an inactive LV (the
#   kernel resyncs, data intact); lvcreate -m -1 refused as LVM2 refuses it;
#   lvextend of raid1/raid5/raid10 (rounding, allocation, tables), lvreduce rounding
#   down to nothing, lvresize down of raid1, sub-LVs refused; then a
#   disk of each VG unplugged and the VGs activated degraded: lvx's devices (the
#   sub-LVs on the missing PV over "<vg>-<sub-LV>-missing_0_0" error devices, their
#   names, UUIDs and attributes) equal LVM2's, the data reads back through lvx's
#   degraded devices, lvx's deactivation leaves no device.
# shellcheck disable=SC2317,SC2086
# shellcheck source=tests/kernel/guest-tap.sh
. /t/guest-tap.sh
# shellcheck source=tests/kernel/raid-twins.sh
. /t/raid-twins.sh

lvm pvcreate -q $RL_DISKS >/dev/null && lvm vgcreate -q rl $RL_DISKS >/dev/null
$LVX pvcreate -q $RX_DISKS >/dev/null && $LVX vgcreate -q rx $RX_DISKS >/dev/null
mk() {  # mk LV DISKS ARGS...: the same lvcreate in both VGs, data written
    local lv=$1 d=$2 dl="" dx="" i
    shift 2
    for i in $d; do dl="$dl $(disk $i "$RL_DISKS")"; dx="$dx $(disk $i "$RX_DISKS")"; done
    check "LVM2 lvcreate $* -n $lv rl" lvm lvcreate -q -y "$@" -n $lv rl $dl
    check "lvx lvcreate $* -n $lv rx" $LVX lvcreate -q -y "$@" -n $lv rx $dx
    dd if=/dev/urandom of=/tmp/data.$lv bs=1M count=8 status=none
    dd if=/tmp/data.$lv of=/dev/mapper/rl-$lv bs=1M oflag=direct status=none
    dd if=/tmp/data.$lv of=/dev/mapper/rx-$lv bs=1M oflag=direct status=none
}
mk a "0 1" --type raid1 -m1 -L 8m
mk r5 "1 2 3" --type raid5 -i2 -L 8m
LVS="a r5"
wait_sync rl rx
emit "# created at ${SECONDS}s"

# ---------------------------------------------------------------- -m +N / -m -N
conv "-m +1 (raid1 2 -> 3 images)" -y -m +1 V/a
same "after -m +1"
wait_sync rl rx
conv "-m -1 taking the image on disk 0" -y -m -1 V/a %0
same "after -m -1 with a PV"
conv "-m -1 (raid1 -> linear)" -y -m -1 V/a
conv "-m +2 onto disks 2 and 3 (linear -> 3-image raid1)" -y -m +2 V/a %2 %3
same "after -m +2 of a linear LV"
wait_sync rl rx
conv "-m -5 of 3 images: refused" -y -m -5 V/a
conv "-m +70: beyond 64 images, refused" -y -m +70 V/a
twin lvcreate "lvcreate -m -1: refused while parsing" -m -1 -L 4m -n x V/a

emit "# -m done at ${SECONDS}s"
# ---------------------------------------------------------------- --rebuild
twin lvchange "--rebuild disk 2 (raid1)" -y --rebuild %2 V/a
same "after --rebuild of raid1"
wait_sync rl rx
check_eq "the kernel rebuilt and synced lvx's raid1" \
    "$(lvm lvs --noheadings -o sync_percent,lv_health_status,raid_sync_action rx/a | trim)" "100.00idle"
twin lvchange "--rebuild of a PV the LV does not use" -y --rebuild %0 V/a
twin lvchange "--rebuild disks 2 and 3 of raid5: more than its parity" -y --rebuild %2 --rebuild %3 V/r5
twin lvchange "--rebuild disk 2 (raid5)" -y --rebuild %2 V/r5
same "after --rebuild of raid5"
wait_sync rl rx
twin lvchange "--rebuild without an answer to the question" --rebuild %2 V/a

emit "# --rebuild done at ${SECONDS}s"
# ---------------------------------------------------------------- --resync
twin lvchange "--resync of an active raid1" -y --resync V/a
same "after --resync of an active LV (deactivated, rmeta wiped, activated)"
wait_sync rl rx
check "a's data intact after the resync, both VGs" sh -c "$(declare -f data_ok); data_ok rl a && data_ok rx a"
twin lvchange "--resync without an answer" --resync V/r5
check "both tools deactivate r5" sh -c "lvm lvchange -an rl/r5 && $LVX lvchange -an rx/r5"
twin lvchange "--resync of an inactive raid5" -y --resync V/r5
check_eq "after --resync of an inactive LV: metadata equal" "$(meta rx)" "$(meta rl)"
check "both tools activate r5 (full resync)" sh -c "lvm lvchange -ay rl/r5 && $LVX lvchange -ay rx/r5"
wait_sync rl rx
same "after --resync of an inactive LV, activated and synced"
check "LVM2's vgck accepts lvx's VG" lvm vgck rx

emit "# --resync done at ${SECONDS}s"
# ---------------------------------------------------------------- lvextend/lvreduce/lvresize
mk t "0 1 2 3" --type raid10 -i2 -m1 -L 8m
LVS="a r5 t"
wait_sync rl rx
twin lvextend "lvextend -L +4m raid1 (3 images)" -L +4m V/a
twin lvextend "lvextend -L +4m raid5 (rounded up to 2 data stripes)" -L +4m V/r5
twin lvextend "lvextend -l +1 raid10 (rounded up)" -l +1 V/t
same "after lvextend of raid1, raid5, raid10"
wait_sync rl rx
twin lvreduce "lvreduce -l -1 raid5: rounded down to nothing" -y -l -1 V/r5
twin lvresize "lvresize -L 8m raid1 (reduce)" -y -L 8m V/a
twin lvextend "lvextend of an rimage directly: refused" -L +4m V/a_rimage_0
twin lvextend "lvextend of an rmeta directly: refused" -L +4m V/a_rmeta_0
same "after the reductions"
# ---------------------------------------------------------------- degraded activation
check "both VGs deactivated" sh -c "lvm vgchange -q -an rl >/dev/null && $LVX vgchange -q -an rx >/dev/null"
for d in vdd vdh; do   # disk 3 of each VG goes away
    echo "$(cat /sys/block/$d/dev) $d" >>/tmp/gone
    basename "$(readlink -f /sys/block/$d/device)" >/sys/bus/virtio/drivers/virtio_blk/unbind
done
check "LVM2 activates rl degraded" lvm vgchange -ay rl
check "lvx activates rx degraded" $LVX vgchange -ay rx
check_eq "degraded: lvx's devices and tables equal LVM2's (-missing_0_0 error devices)" \
    "$(tables rx)" "$(tables rl)"
check_match "degraded: LVM2 made -missing_0_0 devices at all" "$(tables rl)" "a_rimage_2-missing_0_0: 0 16384 error"
info() {  # names, attributes, UUID suffixes after the VG's and LV's
    dmsetup info -c --noheadings --separator ' ' -o name,attr,uuid | awk -v v="^$1-" '$1 ~ v { sub(v, "", $1); print $1, $2, substr($3, 69) }' | sort
}
check_eq "degraded: names, attributes and UUID suffixes of lvx's devices equal LVM2's" "$(info rx)" "$(info rl)"
uu=$(lvm lvs --noheadings -o vg_uuid,lv_uuid rx/a_rimage_2 2>/dev/null | tr -d ' -')
check_eq "the error device's UUID is the sub-LV's with -missing_0_0" \
    "$(dmsetup info -c --noheadings -o uuid rx-a_rimage_2-missing_0_0)" "LVM-$uu-missing_0_0"
for lv in $LVS; do
    check "degraded: $lv's data reads back through lvx's device" sh -c "$(declare -f data_ok); data_ok rx $lv"
done
check_eq "lvx's health of the degraded LVs equals LVM2's" \
    "$($LVX lvs --noheadings -o lv_name,lv_attr,lv_health_status rx 2>/dev/null)" \
    "$(lvm lvs --noheadings -o lv_name,lv_attr,lv_health_status rx 2>/dev/null)"
check "lvx deactivates rx" $LVX vgchange -an rx
check_eq "no rx device left (error devices included)" "$(dmsetup ls | grep -c '^rx-')" 0
check "LVM2 activates lvx's VG degraded" lvm vgchange -ay rx
check "lvx deactivates what LVM2 activated" $LVX vgchange -an rx
check_eq "no rx device left after that" "$(dmsetup ls | grep -c '^rx-')" 0
lvm vgchange -an rl >/dev/null 2>&1
guest_done
