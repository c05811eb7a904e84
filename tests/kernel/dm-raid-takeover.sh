#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/dm-raid-takeover.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0744-kernel-raid-takeover.sh) with 8 virtio disks, lvx at /t/lvx and the
# host's LVM2/dmsetup.  Prints TAP (also to /out/result.tap when /out is shared).
#
#   vda-vdd  VG "rl": LVs converted by LVM2
#   vde-vdh  VG "rx": the same LVs, the same conversions, by lvx (dm backend)
#
# The takeovers that add or drop parity or mirror images (lvconvert --type raid5_n|
# raid5|raid10 of striped/raid0/raid0_meta LVs and --type raid0|raid0_meta|striped
# back), made by each tool on its own VG on active LVs holding data: after each,
# output and exit code, layout, metadata text (ids and times aside) and dm tables of
# lvx equal LVM2's, the data written before reads back; the kernel's `--syncaction
# check` finds no mismatch in the parity and mirrors lvx's tables made the kernel
# build.  raid6 of 2 stripes becomes raid5_n (LVM2's warnings); refusals as LVM2's
# (the question unanswered, no room for the new images).  At the end LVM2's vgck accepts lvx's VG and LVM2 activates it and
# reads the data.
# shellcheck disable=SC2317,SC2086  # functions called through check(); lists split on purpose
# shellcheck source=tests/kernel/guest-tap.sh
. /t/guest-tap.sh

# shellcheck source=tests/kernel/raid-twins.sh
. /t/raid-twins.sh

lvm pvcreate -q $RL_DISKS >/dev/null && lvm vgcreate -q rl $RL_DISKS >/dev/null
$LVX pvcreate -q $RX_DISKS >/dev/null && $LVX vgcreate -q rx $RX_DISKS >/dev/null
both_create() {   # both_create DESC ARGS...: the same lvcreate by each tool
    local d=$1
    shift
    check "LVM2 lvcreate $d" lvm lvcreate -q -y "$@" rl
    check "lvx lvcreate $d" $LVX lvcreate -q -y "$@" rx
}
fill() {          # fill LV: 8 MiB of data in it, in both VGs
    dd if=/dev/urandom of=/tmp/data.$1 bs=1M count=8 status=none
    dd if=/tmp/data.$1 of=/dev/mapper/rl-$1 bs=1M oflag=direct status=none
    dd if=/tmp/data.$1 of=/dev/mapper/rx-$1 bs=1M oflag=direct status=none
}
step() {          # step DESC ARGS...: twin lvconvert -y ARGS, both in sync, then `same`
    local d=$1
    shift
    conv "$d" -y "$@"
    check "$d: both in sync" wait_sync rl rx
    same "after $d"
}
nomismatch() {    # nomismatch LV: the kernel's check of rx/LV counts no mismatch
    check "lvx lvchange --syncaction check rx/$1" $LVX lvchange --syncaction check rx/$1
    local i
    for i in $(seq 1 60); do
        [ "$(lvm lvs --noheadings -o raid_sync_action rx/$1 2>/dev/null | trim)" = idle ] && break
        sleep 1
    done
    check_eq "$2: the kernel's check finds no mismatch (idle, 0)" \
        "$(lvm lvs --noheadings -o raid_sync_action,raid_mismatch_count rx/$1 2>/dev/null | trim)" "idle0"
}

both_create "--type raid0 -i3 -L 12m -n r" --type raid0 -i3 -L 12m -n r
both_create "-i2 -L 8m -n s (striped)" -i2 -L 8m -n s
both_create "--type raid0_meta -i2 -L 8m -n c" --type raid0_meta -i2 -L 8m -n c
LVS="r s c"
for lv in $LVS; do fill $lv; done
same "striped, raid0 and raid0_meta LVs"

conv "raid0 -> raid5_n unanswered (no -y)" --type raid5_n V/r
step "raid0_meta -> raid6_n_6 of 2 stripes (replaced by raid5_n)" --type raid6_n_6 V/c
nomismatch c "raid5_n made of raid0_meta"
step "raid5_n -> raid0_meta" --type raid0_meta V/c
step "raid0 -> raid5_n (a parity image added)" --type raid5_n V/r
nomismatch r "raid5_n made of raid0"
step "raid5_n -> raid0 (the parity image dropped)" --type raid0 V/r
step "striped -> raid10 (a mirror of each stripe)" --type raid10 V/s
nomismatch s "raid10 made of striped"
step "raid10 -> striped" --type striped V/s
step "raid0 -> raid5 (replaced by raid5_n)" --type raid5 V/r
step "raid5_n -> striped" --type striped V/r
step "raid0_meta -> raid10 with a PV list" --type raid10 V/c %2 %3
step "raid10 -> raid0" --type raid0 V/c
conv "striped of 3 stripes -> raid10 (6 images on 4 PVs)" -y --type raid10 V/r
same "after the refusals"

check "LVM2's vgck accepts lvx's VG" lvm vgck rx
check "LVM2 deactivates and activates lvx's VG" sh -c "lvm vgchange -an rx >/dev/null && lvm vgchange -ay rx >/dev/null"
check "LVM2 reads the data of every LV of lvx's VG" sh -c "$(declare -f data_ok)
    for lv in $LVS; do data_ok rx \$lv || exit 1; done"
lvm vgchange -an rx >/dev/null 2>&1
lvm vgchange -an rl >/dev/null 2>&1

guest_done
