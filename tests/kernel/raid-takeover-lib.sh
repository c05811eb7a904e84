# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC2086
#
# tests/kernel/raid-takeover-lib.sh - helpers of the takeover guest scripts
# (dm-raid-takeover.sh, dm-raid4-takeover.sh), sourced after /t/raid-twins.sh, put at
# /t/raid-takeover-lib.sh by their t0744 files.  Makes the twin VGs rl and rx.
#
#   both_create DESC ARGS   the same lvcreate by each tool
#   fill LV                 8 MiB of random data written to the LV in both VGs
#   step DESC ARGS          twin lvconvert -y ARGS, both in sync, then `same`
#   nomismatch LV DESC      lvx's --syncaction check of rx/LV: idle, no mismatch
#   the_end                 LVM2's vgck of rx, LVM2 reactivates it and reads $LVS
lvm pvcreate -q $RL_DISKS >/dev/null && lvm vgcreate -q rl $RL_DISKS >/dev/null
$LVX pvcreate -q $RX_DISKS >/dev/null && $LVX vgcreate -q rx $RX_DISKS >/dev/null
both_create() {
    local d=$1
    shift
    check "LVM2 lvcreate $d" lvm lvcreate -q -y "$@" rl
    check "lvx lvcreate $d" $LVX lvcreate -q -y "$@" rx
}
fill() {
    dd if=/dev/urandom of=/tmp/data.$1 bs=1M count=8 status=none
    dd if=/tmp/data.$1 of=/dev/mapper/rl-$1 bs=1M oflag=direct status=none
    dd if=/tmp/data.$1 of=/dev/mapper/rx-$1 bs=1M oflag=direct status=none
}
step() {
    local d=$1
    shift
    conv "$d" -y "$@"
    check "$d: both in sync" wait_sync rl rx
    same "after $d"
}
nomismatch() {
    check "lvx lvchange --syncaction check rx/$1" $LVX lvchange --syncaction check rx/$1
    local i
    dm_settle idle rx
    for i in $(seq 1 60); do
        [ "$(lvm lvs --noheadings -o raid_sync_action rx/$1 2>/dev/null | trim)" = idle ] && break
        sleep 1
    done
    check_eq "$2: the kernel's check finds no mismatch (idle, 0)" \
        "$(lvm lvs --noheadings -o raid_sync_action,raid_mismatch_count rx/$1 2>/dev/null | trim)" "idle0"
}
the_end() {
    check "LVM2's vgck accepts lvx's VG" lvm vgck rx
    check "LVM2 deactivates and activates lvx's VG" sh -c "lvm vgchange -an rx >/dev/null && lvm vgchange -ay rx >/dev/null"
    check "LVM2 reads the data of every LV of lvx's VG" sh -c "$(declare -f data_ok)
        for lv in $LVS; do data_ok rx \$lv || exit 1; done"
    lvm vgchange -an rx >/dev/null 2>&1
    lvm vgchange -an rl >/dev/null 2>&1
}
