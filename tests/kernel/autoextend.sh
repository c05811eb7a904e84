#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/autoextend.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0724-kernel-autoextend.sh) with 4 sparse 8 GiB virtio disks, lvx at /t/lvx,
# fio at /t/fio and the host's LVM2/dmsetup.  Prints TAP.  `lvextend --use-policies`
# (lvm.conf's activation/thin_pool_autoextend_* and snapshot_autoextend_*) by LVM2 and by
# lvx (kernel backend) on twin VGs in the same states:
#
#   vda-vdb  VG "lvm-ae": LVM2          vdc-vdd  VG "lvx-ae": the same command lines by lvx
#
# Checks: equal output and exit codes for threshold 100 (nothing), at/below the
# threshold (nothing), percent 0, a thin LV, sizes given with it, a threshold below 50
# (raised, warned); equal new sizes for a pool's data (+percent that brings it back to
# the threshold, or the policy's when more), a COW snapshot, a pool's metadata (over
# its minimal threshold, +1%), an inactive pool refused; equal reports and dm tables
# (the thin-pool low water mark from the threshold, as LVM2's).
# shellcheck disable=SC2086
. /t/guest-tap.sh

LVM_VG=lvm-ae
LVX_VG=lvx-ae
PVMAP="s/ $(devnum /dev/vdc) / $(devnum /dev/vda) /g;s/ $(devnum /dev/vdd) / $(devnum /dev/vdb) /g;"
REP=lv_name,lv_size,data_percent,metadata_percent,lv_metadata_size
report() {  # report TOOL VG; the VG's pools committed first (dmsetup status flushes): the
             # kernel commits every second, both tools read without flushing (LVM2's
             # DM_NOFLUSH_FLAG), and Meta% counts a transaction's shadow blocks
    dmsetup ls --target thin-pool | awk -v p="${2//-/--}-" 'index($1, p) == 1 {print $1}' |
        xargs -r -n1 dmsetup status >/dev/null
    $1 lvs -a --noheadings --separator , -o $REP "$2" 2>/dev/null | trim | sed "s/$2/VG/g"
}
# bothc CONFIG DESC ARGS...: `both` with --config CONFIG (LVM2's one --config also
# holds the guest's devices/hints setting: a second --config is refused)
bothc() {
    local cfg=$1 desc=$2 ra=0 rb=0 oa ob
    shift 2
    oa=$(command lvm "${@//VG/$LVM_VG}" --config "devices { hints = \"none\" } $cfg" 2>&1) || ra=$?
    ob=$($LVX "${@//VG/$LVX_VG}" --config "$cfg" 2>&1) || rb=$?
    check_eq "$desc: lvx's exit status and output equal LVM2's" \
        "$rb ${ob//$LVX_VG/VG}" "$ra ${oa//$LVM_VG/VG}"
}
# pol DESC LV SETTINGS...: lvextend --use-policies by both, SETTINGS in activation { }
pol() {
    local desc=$1 lv=$2
    shift 2
    bothc "activation { monitoring = 0 $* }" "$desc" lvextend --use-policies "VG/$lv"
}
# put FILE LV [SEEK_MIB]: the same bytes to both VGs' LV
put() {
    check "$1 written to both $2 (at ${3:-0} MiB)" sh -c \
        "dd if=$1 of=/dev/lvm-ae/$2 bs=1M seek=${3:-0} oflag=direct conv=fsync 2>/dev/null &&
         dd if=$1 of=/dev/lvx-ae/$2 bs=1M seek=${3:-0} oflag=direct conv=fsync 2>/dev/null"
}
same() {
    check_eq "$1: reports equal" "$(report $LVX lvx-ae)" "$(report lvm lvm-ae)"
    check_eq "$1: dm tables equal" "$(tables lvx-ae)" "$(tables lvm-ae)"
}

dd if=/dev/urandom of=/tmp/R30 bs=1M count=30 2>/dev/null
dd if=/dev/urandom of=/tmp/R16 bs=1M count=16 2>/dev/null
dd if=/dev/urandom of=/tmp/R4 bs=1M count=4 2>/dev/null
check "LVM2 makes lvm-ae, lvx makes lvx-ae (1 MiB extents)" sh -c \
    "lvm pvcreate -q /dev/vda /dev/vdb && lvm vgcreate -q -s 1m lvm-ae /dev/vda /dev/vdb &&
     $LVX pvcreate -q /dev/vdc /dev/vdd && $LVX vgcreate -q -s 1m lvx-ae /dev/vdc /dev/vdd"

# ---------------------------------------------------------------- a pool's data
both "lvcreate -T -L 40m VG/pool" lvcreate -T -L 40m VG/pool
both "lvcreate -V 64m -T VG/pool -n thin" lvcreate -V 64m -T VG/pool -n thin
put /tmp/R30 thin
note "pool (LVM2): $(report lvm lvm-ae | grep '^pool,')"
pol "threshold 100 (the default): nothing" pool
pol "threshold 80, 75% used: nothing" pool thin_pool_autoextend_threshold = 80
pol "percent 0: refused" pool thin_pool_autoextend_threshold = 70 thin_pool_autoextend_percent = 0
pol "a thin LV: refused" thin thin_pool_autoextend_threshold = 70
bothc "activation { monitoring = 0 thin_pool_autoextend_threshold = 70 }" \
    "--use-policies with -L +4m: refused" lvextend --use-policies -L +4m VG/pool
bothc "activation { monitoring = 0 thin_pool_autoextend_threshold = 80 }" \
    "--use-policies with -l +1: ignored" lvextend --use-policies -l +1 VG/pool
pol "threshold 40 (raised to 50), 75% used: +50%, more than 20%" pool \
    thin_pool_autoextend_threshold = 40 thin_pool_autoextend_percent = 20
same "after +50%"
pol "at the threshold (50%): nothing" pool thin_pool_autoextend_threshold = 50 \
    thin_pool_autoextend_percent = 10
put /tmp/R16 thin 30
pol "threshold 70, 76.67% used: +30% (the policy's), rounded up to extents" pool \
    thin_pool_autoextend_threshold = 70 thin_pool_autoextend_percent = 30
same "after +30%"

# ---------------------------------------------------------------- a COW snapshot
both "lvcreate -L 16m -n orig" lvcreate -L 16m -n orig VG
both "lvcreate -s -L 5m -n snap VG/orig" lvcreate -s -L 5m -n snap VG/orig
put /tmp/R4 orig
check_eq "snap_percent equal" "$($LVX lvs --noheadings -o snap_percent lvx-ae/snap | trim)" \
    "$(lvm lvs --noheadings -o snap_percent lvm-ae/snap | trim)"
pol "snapshot, threshold 100: nothing" snap
pol "snapshot, threshold 40 (warned), percent 0: refused" snap \
    snapshot_autoextend_threshold = 40 snapshot_autoextend_percent = 0
pol "snapshot, threshold 70, percent 20" snap snapshot_autoextend_threshold = 70 \
    snapshot_autoextend_percent = 20
same "after the snapshot's growth"

# ---------------------------------------------------------------- a pool's metadata
# 2 MiB of metadata, 64 KiB chunks, -Zn; 4 KiB written per chunk, 8192 chunks a step,
# on LVM2's pool until its Meta% passes 55 (the kernel's btree decides how many), then
# the same on lvx's
both "lvcreate -T -L 13g -c 64k --poolmetadatasize 2m -Zn VG/mpool" \
    lvcreate -T -L 13g -c 64k --poolmetadatasize 2m -Zn VG/mpool
both "lvcreate -V 8g -T VG/mpool -n mthin" lvcreate -V 8g -T VG/mpool -n mthin
# strided DEV FROM_STEP STEPS: 4 KiB at the start of each 64 KiB chunk, in order, 32 I/Os
# submitted at a time (libaio): each step's 8192 writes took 3.2-4.3 s one by one (psync)
# under TCG, 1.7-1.9 s so; the pools' Meta% after the same steps is the same either way
# (21.09, 27.54, 40.43, 46.88 % after 1, 2, 4, 5 steps, psync and libaio alike)
strided() {
    /t/fio --name=s --filename="$1" --rw=write:60k --bs=4k --offset=$(($2 * 512))m \
        --size=$(($3 * 512))m --direct=1 --ioengine=libaio --iodepth=32 --iodepth_batch_submit=32 \
        >/dev/null 2>&1
}
steps=0 m=0
while [ $steps -lt 16 ]; do
    strided /dev/lvm-ae/mthin $steps 1 || { fail "fio on LVM2's mthin"; break; }
    steps=$((steps + 1))
    m=$(lvm lvs --noheadings -o metadata_percent lvm-ae/mpool | trim)
    [ "${m%.*}" -ge 55 ] && break
done
note "LVM2's mpool: $steps steps of 8192 chunks, Meta% $m"
check "the same $steps steps on lvx's mthin" strided /dev/lvx-ae/mthin 0 $steps
note "mpool (LVM2): $(report lvm lvm-ae | grep '^mpool,')"
check_eq "mpool's Data% and Meta% equal" "$(report $LVX lvx-ae | grep '^mpool,')" \
    "$(report lvm lvm-ae | grep '^mpool,')"
pol "threshold 50: the metadata grows, the data (under 50%) not" mpool \
    thin_pool_autoextend_threshold = 50 thin_pool_autoextend_percent = 20
# (lvcreate places a two-PV pool's _tmeta apart from LVM2: the sub-LVs' lines aside)
check_eq "after the metadata's growth: reports equal" "$(report $LVX lvx-ae)" "$(report lvm lvm-ae)"
check_eq "after the metadata's growth: dm tables equal but mpool's sub-LVs' placement" \
    "$(tables lvx-ae | grep -v '^VG-mpool_t')" "$(tables lvm-ae | grep -v '^VG-mpool_t')"

# ---------------------------------------------------------------- inactive
check "the first pool and its thin LV deactivated by each tool" sh -c \
    "lvm lvchange -an lvm-ae/thin lvm-ae/pool && $LVX lvchange -an lvx-ae/thin lvx-ae/pool"
pol "an inactive pool: refused" pool thin_pool_autoextend_threshold = 70

guest_done
