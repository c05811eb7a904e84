#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/mirror-fault.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0792-kernel-mirror-fault-policy.sh) with 2 virtio disks, lvx at /t/lvx and
# the host's LVM2/dmsetup.  Prints TAP.  A leg of a mirror or RAID LV that the kernel
# runs (lvx's dm backend, monitored) fails while a writer is at work: the lvx daemon
# sees dm-mirror's / dm-raid's event and runs `lvx lvconvert --repair --use-policies`
# by itself (dmeventd's mirror and raid plugins), which reloads the LV live; the writer
# ends, the data reads back from the LV and every leg left.  The guest runs no
# dmeventd: LVM2's twin VG (same layout, same failure) is repaired by hand with the
# same command, the oracle for the metadata, the dm tables and the command's output.
#
# PVs are dm linear slices of the disks (vda: LVM2's lvm_sN, vdb: lvx's lvx_sN), a leg
# failed by loading the `error` target into its slice:
#   m2  mirror -m1, disk log, mirror_image_fault_policy remove: becomes linear
#   m3  mirror -m2, disk log, remove: 2 images left, the log kept
#   ma  mirror -m2, disk log, allocate: the image replaced on the spare PV (LVM2's
#       resync layer, polled and collapsed)
#   r1  raid1 -m1, raid_fault_policy allocate: the leg replaced on the spare PV
# shellcheck disable=SC2086
. /t/guest-tap.sh

LOG=/run/lvx/lvxd.log
export LVXD_MONITOR_INTERVAL=1 LVX_ACTIVATION_BACKEND=dm
export LVM_SYSTEM_DIR=/tmp/lvmsys
mkdir -p $LVM_SYSTEM_DIR
policies() {  # policies IMAGE_POLICY RAID_POLICY: lvm.conf of both tools
    cat >$LVM_SYSTEM_DIR/lvm.conf <<EOF
devices { hints = "none" }
activation {
    monitoring = 1
    mirror_image_fault_policy = "$1"
    mirror_log_fault_policy = "allocate"
    raid_fault_policy = "$2"
}
EOF
}
SLICE=$((40 * 2048))                 # sectors: 40 MiB a PV, 9 extents
# slices PREFIX DISK: 15 linear slices PREFIX1..15 of DISK, its first 40 MiB left
# alone (a slice there would share its label with the disk: a duplicate PV)
slices() {
    local i
    for i in $(seq 1 15); do
        dmsetup create "$1$i" --table "0 $SLICE linear $2 $((i * SLICE))" || return 1
    done
}
fail_slice() {  # fail_slice NAME: every I/O to it fails from now on
    dmsetup suspend "$1" && dmsetup load "$1" --table "0 $SLICE error" && dmsetup resume "$1"
}
# pvs TOOL-PREFIX FIRST COUNT: the slice paths
pvs_of() { local i; for ((i = $2; i < $2 + $3; i++)); do printf '/dev/mapper/%s%d ' "$1" $i; done; }
make_vgs() {  # make_vgs LVM_VG LVX_VG FIRST COUNT
    lvm pvcreate -q $(pvs_of lvm_s $3 $4) && lvm vgcreate -q $1 $(pvs_of lvm_s $3 $4) &&
        $LVX pvcreate -q $(pvs_of lvx_s $3 $4) && $LVX vgcreate -q $2 $(pvs_of lvx_s $3 $4)
}
both_sync() { wait_sync lvm "$1" && wait_sync $LVX "$2"; }
# after the repair: in sync, or linear (no copy_percent) for both
copy_of() { $1 lvs --noheadings -o copy_percent "$2" 2>/dev/null | trim; }
both_settled() {
    local t
    for ((t = 0; t < 240; t++)); do
        [[ $(copy_of lvm "$1") == @(|100.00) && $(copy_of $LVX "$2") == @(|100.00) ]] && return 0
        sleep 0.5
    done
    return 1
}
fail_both() { fail_slice "lvm_s$1" && fail_slice "lvx_s$1"; }
sum() { dd if="$1" bs=1M count=16 iflag=direct status=none | sha256sum | cut -d' ' -f1; }
# dm tables of VG, device numbers as names, both tools' slices alike
ktables() {
    local vg=${1//-/--} map
    map=$(dmsetup info -c --noheadings --separator ' ' -o major,minor,name |
        awk '{ printf "s/ %s:%s( |$)/ %s\\1/g;", $1, $2, $3 }')
    dmsetup table | grep "^$vg-" | sort | sed -E "$map" | sed "s/$vg-/VG-/g; s/lvx_s/lvm_s/g"
}
# without LVM2's lines about the dmeventd and lvmpolld the guest does not have (run by
# dmeventd, its command leaves monitoring alone)
no_dmeventd() {
    grep -v -e "dmeventd: stat failed" -e "WARNING: Failed to unmonitor" -e "WARNING: Failed to monitor" \
        -e "lvmpolld" || true
}
# the command's lines the daemon logged for VG/LV ("lvconvert VG/LV: LINE")
logged() { sed -n "s|^.*lvconvert $1/$2: ||p" $LOG; }
repaired() { grep -q "lvconvert $1/$2 exited with status" $LOG; }
# failure_seen SECONDS DMNAME: the device's status shows a failed leg (a health word
# with a letter other than A or a) within SECONDS
failure_seen() {
    local t
    for ((t = 0; t < $1 * 5; t++)); do
        dmsetup status "$2" | awk '{ for (i = 4; i <= NF; i++)
            if ($i ~ /^[A-Za-z]+$/ && $i ~ /^[ADSRFUa]+$/ && $i ~ /[DSRFU]/) f = 1 }
            END { exit !f }' && return 0
        sleep 0.2
    done
    return 1
}
# stuck_report VG: what a repair that did not end is waiting for (notes)
stuck_report() {
    local p
    note "$(dmsetup status | grep "^${1//-/--}-")"
    note "$(tail -n 15 $LOG)"
    for p in /proc/[0-9]*; do
        grep -q '^State:.*D' $p/status 2>/dev/null || continue
        note "D: $(cat $p/comm) $(tr '\0' ' ' <$p/cmdline)"
        note "$(cat $p/stack 2>/dev/null)"
    done
    note "$(dmesg | tail -n 30)"
}
# repaired_within SECONDS VG LV: the daemon's command for VG/LV ended within SECONDS
repaired_within() {
    local t
    for ((t = 0; t < $1 * 5; t++)); do
        repaired "$2" "$3" && return 0
        sleep 0.2
    done
    return 1
}

dd if=/dev/urandom of=/tmp/D bs=1M count=16 2>/dev/null
D=$(sha256sum </tmp/D | cut -d' ' -f1)
both_slices() { slices lvm_s /dev/vda && slices lvx_s /dev/vdb; }
check "15 slices of each disk (vda: LVM2's, vdb: lvx's)" both_slices

# scenario NAME FIRST COUNT FAILED POLICY RAID_POLICY CREATE-ARGS...: one VG per tool
# (VG "lvm-NAME" on lvm_sFIRST..., "lvx-NAME" on lvx_sFIRST...), one LV NAME made with
# CREATE-ARGS on the first PVs, slice FIRST+FAILED failed, then a 16 MiB writer
scenario() {
    local name=$1 first=$2 count=$3 failed=$4 lvm_vg=lvm-$1 lvx_vg=lvx-$1
    policies "$5" "$6"
    shift 6
    LVM_VG=$lvm_vg LVX_VG=$lvx_vg
    check "$name: LVM2 makes $lvm_vg, lvx makes $lvx_vg ($count PVs each)" make_vgs \
        $lvm_vg $lvx_vg $first $count
    local out rc=0
    out=$(lvm lvcreate -q -y "$@" -n $name $lvm_vg 2>&1) || rc=$?
    check_eq "$name: lvcreate $* -n $name (LVM2: exit status)" "$rc" 0
    note "$out"
    check "$name: lvcreate $* -n $name (lvx)" $LVX lvcreate -q -y "$@" -n $name $lvx_vg
    check "$name: both in sync" both_sync $lvm_vg/$name $lvx_vg/$name
    check_eq "$name: lvx's LV monitored" \
        "$($LVX lvs --noheadings -o seg_monitor $lvx_vg/$name | trim)" "monitored"
    check "$name: lvxd.log: the daemon watches ${lvx_vg//-/--}-$name" \
        grep -q "Monitoring .* device ${lvx_vg//-/--}-$name for events." $LOG
    local dev=${lvx_vg//-/--}-$name
    local legnum
    legnum=$(dmsetup info -c --noheadings --separator : -o major,minor ${dev}_mimage_$failed 2>/dev/null | trim)
    check "$name: slice $((first + failed)) of each fails (the error target)" \
        fail_both $((first + failed))
    # the writers: lvx's is set free by the daemon's repair, LVM2's (its mirror holds
    # the writes, no dmeventd here) by the same command run by hand at once, as dmeventd
    # would run it
    dd if=/tmp/D of=/dev/$lvx_vg/$name bs=64k oflag=direct conv=fsync status=none &
    local wx=$!
    dd if=/tmp/D of=/dev/$lvm_vg/$name bs=64k oflag=direct conv=fsync status=none &
    local wl=$!
    check "$name: LVM2's mirror reports the failed leg within 30 s (its event)" \
        failure_seen 30 ${lvm_vg//-/--}-$name
    local ra=0 oa
    oa=$(lvm lvconvert --repair --use-policies $lvm_vg/$name 2>&1) || ra=$?
    note "LVM2's lvconvert --repair --use-policies (by hand): exit $ra"
    note "$oa"
    if repaired_within 90 $lvx_vg $name; then
        pass "$name: the daemon's repair ran within 90 s"
    else
        fail "$name: the daemon's repair ran within 90 s"
        stuck_report $lvx_vg
    fi
    local rx=0 rl=0
    timeout 120 sh -c "while kill -0 $wx 2>/dev/null; do sleep 0.2; done" || rx=timeout
    wait $wx || rx=$?
    wait $wl || rl=$?
    check_eq "$name: lvx's writer ended (exit status)" "$rx" 0
    check_eq "$name: LVM2's writer ended (exit status)" "$rl" 0
    note "$(grep -E "$name|${lvx_vg//-/--}" $LOG | tail -n 25)"
    if [[ $name == r* ]]; then
        check "$name: lvxd.log: dmeventd's raid line" \
            grep -q "WARNING: Device #$failed of raid1 array, $dev, has failed." $LOG
    else
        check "$name: lvxd.log: dmeventd's line naming the failed leg ($legnum)" \
            grep -q "Secondary mirror device $legnum has failed (D)." $LOG
        check "$name: lvxd.log: Device failure in $dev, repaired" sh -c \
            "grep -q 'Device failure in $dev.' $LOG &&
             grep -q 'Repair of mirrored device $dev finished successfully.' $LOG"
    fi
    check_eq "$name: the daemon's command exited as LVM2's (status)" \
        "$(sed -n "s|^.*lvconvert $lvx_vg/$name exited with status \([0-9]*\)\.|\1|p" $LOG | tail -n 1)" "$ra"
    check_eq "$name: the daemon's command printed LVM2's lines (missing-PV warnings aside)" \
        "$(logged $lvx_vg $name | quiet_missing | grep -v 'Converted: [0-9.]*%$' | sed "s/$lvx_vg/VG/g")" \
        "$(quiet_missing <<<"$oa" | no_dmeventd | grep -v 'Converted: [0-9.]*%$' | sed "s/$lvm_vg/VG/g")"
    check "$name: both in sync (or linear)" both_settled $lvm_vg/$name $lvx_vg/$name
    check_eq "$name: lvx's LV reads the data" "$(sum /dev/$lvx_vg/$name)" "$D"
    check_eq "$name: LVM2's LV reads the data" "$(sum /dev/$lvm_vg/$name)" "$D"
    local leg
    for leg in $(dmsetup ls | awk '{print $1}' | grep "^${lvx_vg//-/--}-${name}_[mr]image_" | sort); do
        check_eq "$name: lvx's $leg holds the data" "$(sum /dev/mapper/$leg)" "$D"
    done
    check_eq "$name: metadata as LVM2's" "$(meta $LVX $lvx_vg)" "$(meta lvm $lvm_vg)"
    check_eq "$name: dm tables as LVM2's" "$(ktables $lvx_vg)" "$(ktables $lvm_vg)"
}

scenario m2 1 3 1 remove warn --type mirror -m1 -L 16m
scenario m3 4 4 1 remove warn --type mirror -m2 -L 16m
scenario r1 8 3 1 remove allocate --type raid1 -m1 -L 16m
scenario ma 11 5 1 allocate warn --type mirror -m2 -L 16m

check "every VG deactivated" sh -c \
    "for v in m2 m3 r1 ma; do lvm vgchange -an lvm-\$v >/dev/null 2>&1; $LVX vgchange -an lvx-\$v >/dev/null 2>&1; done; true"
check_eq "no dm device of lvx's VGs left" "$(dmsetup ls | grep -c '^lvx--')" 0
note "$(grep -E 'onitoring|failure|failed|has failed|exited|Repair|WARNING' $LOG | tail -n 40)"
guest_done
