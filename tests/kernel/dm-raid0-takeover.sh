#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/dm-raid0-takeover.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0733-kernel-raid0-takeover.sh) with 8 virtio disks, lvx at /t/lvx and the
# host's LVM2/dmsetup.  Prints TAP (also to /out/result.tap when /out is shared).
#
#   vda-vdd  VG "rl": LVs converted by LVM2
#   vde-vdh  VG "rx": the same LVs, the same conversions, by lvx (dm backend)
#
# The takeovers between striped, raid0 and raid0_meta (lvconvert --type striped|raid0|
# raid0_meta) made by each tool on its own VG, on active LVs holding data: a striped LV
# of two segments (extended) -> raid0_meta -> raid0 -> raid0_meta -> striped -> raid0,
# a raid0 LV -> striped, a striped LV -> raid0_meta with a PV list, a striped LV filling
# two PVs -> raid0_meta (no room beside the images: the rmeta go elsewhere); after
# each: lvx's layout and metadata text equal LVM2's (ids and times aside), its dm tables
# equal LVM2's, the data is intact.  Refusals and the unanswered question as LVM2's.
# An inactive LV (LVM2 refuses it) is converted by lvx, with the result of LVM2's
# conversion of the same LV once active; at the end LVM2's vgck accepts lvx's VG and
# LVM2 activates it and reads the data.
# shellcheck disable=SC2317,SC2086  # functions called through check(); lists split on purpose
# shellcheck source=tests/kernel/guest-tap.sh
. /t/guest-tap.sh

# shellcheck source=tests/kernel/raid-twins.sh
. /t/raid-twins.sh

# ---------------------------------------------------------------- set up
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
both_create "-i3 -L 12m -n s (striped)" -i3 -L 12m -n s
both_create "--type raid0 -i3 -L 12m -n r" --type raid0 -i3 -L 12m -n r
both_create "-i3 -l3 -n e, then s extended by 12m (two segments)" -i3 -l3 -n e
check "LVM2 lvextend -L +12m rl/s" lvm lvextend -q -L +12m rl/s
check "lvx lvextend -L +12m rx/s" $LVX lvextend -q -L +12m rx/s
both_create "-i2 -L 8m -n p (striped)" -i2 -L 8m -n p
LVS="s r p"
for lv in $LVS; do fill $lv; done
same "striped and raid0 LVs"

# ---------------------------------------------------------------- takeovers
step() {          # step DESC WHAT ARGS...: twin lvconvert -y ARGS, then `same`
    local d=$1 w=$2
    shift 2
    conv "$d" -y "$@"
    same "after $w"
}
step "striped (two segments) -> raid0_meta" "--type raid0_meta of a striped LV (rimage per stripe, rmeta beside each)" --type raid0_meta V/s
step "raid0_meta -> raid0" "--type raid0 of a raid0_meta LV (rmeta gone)" --type raid0 V/s
step "raid0 -> raid0_meta" "--type raid0_meta of a raid0 LV" --type raid0_meta V/s
step "raid0_meta -> striped" "--type striped of a raid0_meta LV (segments split at the images' boundaries)" --type striped V/s
step "striped -> raid0" "--type raid0 of a striped LV" --type raid0 V/s
step "raid0 (made by lvcreate) -> striped" "--type striped of a raid0 LV" --type striped V/r
step "striped -> raid0_meta with a PV list" "--type raid0_meta with a PV list" --type raid0_meta V/p %2 %3
conv "raid0 -> raid0 (already)" -y --type raid0 V/s
conv "striped -> raid0 unanswered (no -y)" --type raid0 V/r
conv "raid0_meta -> striped unanswered (no -y)" --type striped V/p
same "after the refusals"

# inactive: LVM2 refuses, lvx converts (only the metadata changes); LVM2's conversion
# of its LV, active again, is the oracle
LVS="p"
check "LVM2 and lvx deactivate p" sh -c "lvm lvchange -an rl/p && $LVX lvchange -an rx/p"
check_match "LVM2 refuses to convert inactive rl/p" \
    "$(lvm lvconvert -y --type striped rl/p 2>&1)" "rl/p must be active to perform this operation."
check_eq "lvx converts inactive rx/p to striped" "$($LVX lvconvert -y --type striped rx/p 2>&1 | tail -n1 | sed 's/^ *//')" \
    "Logical volume rx/p successfully converted."
check "LVM2 activates rl/p and converts it to striped" sh -c "lvm lvchange -ay rl/p && lvm lvconvert -q -y --type striped rl/p"
check "lvx activates rx/p" $LVX lvchange -ay rx/p
same "after --type striped of an inactive raid0_meta LV"

# a striped LV filling two PVs: no room for the rmeta beside the images
check "LVM2 and lvx remove every LV" sh -c "lvm lvremove -q -y rl/e rl/s rl/r rl/p >/dev/null && $LVX lvremove -q -y rx/e rx/s rx/r rx/p >/dev/null"
LVS="f"
check "LVM2 lvcreate -i2 -l 100%PVS -n f on disks 0 1" lvm lvcreate -q -y -i2 -l 100%PVS -n f rl "$(disk 0 "$RL_DISKS")" "$(disk 1 "$RL_DISKS")"
check "lvx lvcreate -i2 -l 100%PVS -n f on disks 0 1" $LVX lvcreate -q -y -i2 -l 100%PVS -n f rx "$(disk 0 "$RX_DISKS")" "$(disk 1 "$RX_DISKS")"
fill f
step "striped on full PVs -> raid0_meta (rmeta elsewhere)" "--type raid0_meta of a striped LV on full PVs" --type raid0_meta V/f

check "LVM2's vgck accepts lvx's VG" lvm vgck rx
check "LVM2 deactivates and activates lvx's VG" sh -c "lvm vgchange -an rx >/dev/null && lvm vgchange -ay rx >/dev/null"
check "LVM2 reads the data of every LV of lvx's VG" sh -c "$(declare -f data_ok)
    data_ok rx f"
lvm vgchange -an rx >/dev/null 2>&1
lvm vgchange -an rl >/dev/null 2>&1

guest_done
