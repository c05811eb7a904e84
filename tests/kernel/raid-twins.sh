# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC2086
#
# tests/kernel/raid-twins.sh - helpers of the RAID guest scripts that change twin VGs
# (dm-raid-convert.sh, dm-raid-more.sh): sourced after /t/guest-tap.sh, put at
# /t/raid-twins.sh by their t07NN file.  8 virtio disks:
#
#   vda-vdd  VG "rl": changed by LVM2       vde-vdh  VG "rx": the same changes by lvx
#   (TWIN_DISKS=5 set before sourcing, 10 disks: vda-vde "rl", vdf-vdj "rx";
#    TWIN_DISKS=6, 12 disks: vda-vdf "rl", vdg-vdl "rx")
#
#   disk N LIST        the Nth disk of a list
#   layout VG          LVM2's report of every LV and sub-LV, one line per segment
#   layouts VG...      the same of each VG in one report, each line after its VG's name
#   meta VG            the metadata text without ids, times, hosts and seqno
#   meta_text VG       the same of /tmp/VG.vg already written by vgcfgbackup
#   tables VG          every device of the VG, "<name>: <line>", numbers named, VG -> V
#   tables_in VG NAMES TABLE  the same from `names` and `dmsetup table` already read
#   wait_sync VG...    until every RAID LV of the VGs is in sync
#   data_ok VG LV      the LV still holds /tmp/data.LV (8 MiB)
#   same STEP          layout, metadata, tables and data ($LVS) of rx equal rl's
#   twin CMD DESC ARGS the same command by LVM2 on rl and by lvx on rx: exit status and
#                      output equal (an unanswered question's echo aside); in ARGS %N
#                      is disk N, V/LV an LV; stdin is /dev/null (no answers)
#   conv DESC ARGS     twin lvconvert
#   record NAME        both VGs' metadata, tables, status, LVM2's report to $R/NAME.*
#   idle               every RAID LV of rl and rx idle and in sync (a reshape done)
#   rl_field FIELD VG  LVM2's report field FIELD of VG/$LVS
#   rl_fields F,F.. VG LVM2's report fields of VG/$LVS, one space apart
#   twin_step NAME SEGTYPE DATA_STRIPES STRIPES ARGS   conv of V/$LVS by both, recorded
#                      ($R), idle, LVM2's segtype/data_stripes/stripes checked, then same
# A watchdog: these scripts run in 1-3 minutes; one that is still running after
# TWIN_WATCHDOG seconds (default 480; the guest's limit is 1200) has hung (seen once, in
# t0776 after a --stripesize reshape, not reproduced): the device-mapper state, the
# processes in uninterruptible sleep with their kernel stacks and the kernel's last
# lines go to the TAP stream as comments, for a diagnosis.
twin_watchdog() {
    local p st
    sleep "${TWIN_WATCHDOG:-480}"
    note "watchdog: still running after ${TWIN_WATCHDOG:-480}s; the state:"
    note "$(dmsetup info -c 2>&1)"
    note "$(dmsetup status 2>&1)"
    for p in /proc/[0-9]*; do
        st=$(cut -d' ' -f3 "$p/stat" 2>/dev/null)
        case $st in
        D) note "pid ${p#/proc/} D $(tr '\0' ' ' <"$p/cmdline" 2>/dev/null) wchan $(cat "$p/wchan" 2>/dev/null)"
           note "$(cat "$p/stack" 2>/dev/null)" ;;
        esac
    done
    note "processes: $(for p in /proc/[0-9]*; do tr '\0' ' ' <"$p/cmdline" 2>/dev/null | cut -c1-60; echo; done | grep -e lvm -e lvx -e dmsetup -e 'dd ' | tr '\n' ';')"
    note "$(dmesg 2>&1 | tail -n 40)"
}
twin_watchdog </dev/null &

if [ "${TWIN_DISKS:-4}" = 6 ]; then
    RL_DISKS="/dev/vda /dev/vdb /dev/vdc /dev/vdd /dev/vde /dev/vdf"
    RX_DISKS="/dev/vdg /dev/vdh /dev/vdi /dev/vdj /dev/vdk /dev/vdl"
    RL_RANGE="[a-f]" RX_RANGE="[g-l]"
elif [ "${TWIN_DISKS:-4}" = 5 ]; then
    RL_DISKS="/dev/vda /dev/vdb /dev/vdc /dev/vdd /dev/vde"
    RX_DISKS="/dev/vdf /dev/vdg /dev/vdh /dev/vdi /dev/vdj"
    RL_RANGE="[a-e]" RX_RANGE="[f-j]"
else
    RL_DISKS="/dev/vda /dev/vdb /dev/vdc /dev/vdd"
    RX_DISKS="/dev/vde /dev/vdf /dev/vdg /dev/vdh"
    RL_RANGE="[a-d]" RX_RANGE="[e-h]"
fi
# Under TCG each exec costs 30-50 ms (dmsetup, sed) to 0.2-0.5 s (lvm): the helpers use
# shell builtins where they can, the disk-name sed scripts are made once here, and `same`
# asks LVM2 and dmsetup once for both VGs (one `lvs`, one `vgcfgbackup`, one table)
disk() { local a; read -ra a <<<"$2"; echo "${a[$1]}"; }
# sed scripts naming disk N of either VG DN: in device paths (FMT %s = the disk's name)
# shellcheck disable=SC2059  # the format is the argument
_dnames() {
    local i=0 d x
    read -ra x <<<"$RX_DISKS"
    for d in $RL_DISKS; do
        printf "$1" "${d#/dev/}" "$i" "${x[i]#/dev/}" "$i"
        i=$((i + 1))
    done
}
DN_PATHS=$(_dnames 's#/dev/%s\\([(:]\\)#D%s\\1#g; s#/dev/%s\\([(:]\\)#D%s\\1#g;')
DN_WORDS=$(_dnames 's/ %s( |$)/ D%s\\1/g; s/ %s( |$)/ D%s\\1/g;')
# lines_from PREFIX TEXT: the lines of TEXT that start with PREFIX (grep "^PREFIX")
lines_from() {
    local l
    while IFS= read -r l; do
        case $l in "$1"*) printf '%s\n' "$l" ;; esac
    done <<<"$2"
}
# vg_lines VG TEXT: the lines of TEXT that start with "VG ", without it
vg_lines() {
    local l
    while IFS= read -r l; do
        case $l in "$1 "*) printf '%s\n' "${l#"$1 "}" ;; esac
    done <<<"$2"
}

norm() { sed -e "$DN_PATHS"; }
LAYOUT_FIELDS=lv_name,segtype,lv_size,stripes,region_size,seg_pe_ranges,devices,lv_attr
# layouts VG...: layout's lines of each VG, after its name
layouts() {
    lvm lvs -a --noheadings --segments --units s --separator ' ' -o vg_name,$LAYOUT_FIELDS "$@" 2>/dev/null |
        sed -e "$DN_PATHS" -e 's/^ *//; s/[][]//g'
}
layout() {
    lvm lvs -a --noheadings --segments --units s --separator ' ' -o $LAYOUT_FIELDS "$1" 2>/dev/null |
        sed -e "$DN_PATHS" -e 's/^ *//; s/[][]//g'
}
# meta_text VG: the text of /tmp/VG.vg (written by vgcfgbackup) as meta shows it
meta_text() {
    sed -E '/^[a-z]+ \{/,$!d; /^\t*(id|creation_time|creation_host|seqno|device|dev_size) = /d; s/^(r[lx]) \{/V {/' "/tmp/$1.vg"
}
meta() {
    lvm vgcfgbackup -q -f "/tmp/$1.vg" "$1" >/dev/null 2>&1
    meta_text "$1"
}
names() {
    local maj min name d n
    dmsetup info -c --noheadings --separator ' ' -o major,minor,name | while read -r maj min name _; do
        printf 's/ %s:%s( |$)/ %s\\1/g;' "$maj" "$min" "$name"
    done
    for d in a b c d e f g h i j k l; do
        [ -e /sys/block/vd$d/dev ] && read -r n </sys/block/vd$d/dev && printf 's/ %s( |$)/ vd%s\\1/g;' "$n" "$d"
    done
    # unplugged disks, by the numbers they had
    [ -s /tmp/gone ] && while read -r n d; do printf 's/ %s( |$)/ %s\\1/g;' "$n" "$d"; done </tmp/gone
}
# tables_in VG NAMES TABLE: tables of VG from TABLE (`dmsetup table`), NAMES (`names`)
tables_in() {
    sed -E "/^$1-/!d; $2 s/^$1-//; s/ $1-/ V-/g; $DN_WORDS" <<<"$3" | sort
}
tables() { tables_in "$1" "$(names)" "$(dmsetup table)"; }
# dm_settled MODE VG...: every raid and mirror device of the VGs in sync (MODE idle: and
# each raid's sync action idle), read from dmsetup status (tens of ms under TCG, where one
# `lvm lvs` costs 0.2-0.5 s of the one vCPU the kernel's resync needs).  wait_sync and idle
# first wait with it (dm_settle: 0.3 s steps, at most 120 s), then ask LVM2 as before: they
# return when the kernel is done instead of up to a poll (an LVM2 report and a second's
# sleep) later, and the check is still LVM2's
dm_settled() {
    local mode=$1 pat
    shift
    pat="^($(echo "$@" | sed 's/-/--/g; s/ /|/g'))-"
    dmsetup status 2>/dev/null | grep -E "$pat" | awk -v mode="$mode" '
        $4 == "raid" { split($8, r, "/"); if (r[1] != r[2] || (mode == "idle" && $9 != "idle")) bad = 1 }
        $4 == "mirror" { split($(6 + $5), r, "/"); if (r[1] != r[2]) bad = 1 }
        END { exit bad }'
}
dm_settle() {
    local i
    for i in $(seq 1 400); do dm_settled "$@" && return 0; sleep 0.3; done
    return 1
}
wait_sync() {
    local i
    dm_settle sync "$@"
    for i in $(seq 1 120); do
        [ "$(lvm lvs --noheadings -o sync_percent "$@" 2>/dev/null | trim | grep -v -e '^$' -e '^100.00$' | wc -l)" = 0 ] && return 0
        sleep 1
    done
    return 1
}
data_ok() {        # on a difference: which VG, how many bytes, the first and last offset
    dd if=/dev/mapper/$1-$2 bs=1M count=8 iflag=direct status=none >/tmp/read.$1.$2 || return 1
    cmp -s /tmp/read.$1.$2 /tmp/data.$2 && return 0
    cmp -l /tmp/read.$1.$2 /tmp/data.$2 | awk -v lv="$1/$2" '
        NR == 1 { first = $1 } { last = $1; n++ }
        END { printf "%s: %d bytes differ, offsets %d-%d (1-based)\n", lv, n, first, last }' >&2
    return 1
}
# lvs_data_ok VG...: data_ok of every LV of $LVS in each VG
lvs_data_ok() {
    local lv vg
    for lv in $LVS; do
        for vg in "$@"; do data_ok $vg $lv || return 1; done
    done
}
same() {
    local lay tab nam
    lay=$(layouts rx rl)
    check_eq "$1: lvx's layout equals LVM2's" "$(vg_lines rx "$lay")" "$(vg_lines rl "$lay")"
    lvm vgcfgbackup -q -f "/tmp/%s.vg" rx rl >/dev/null 2>&1
    check_eq "$1: lvx's metadata text equals LVM2's (ids, times aside)" "$(meta_text rx)" "$(meta_text rl)"
    nam=$(names)
    tab=$(dmsetup table)
    check_eq "$1: lvx's dm tables equal LVM2's (device numbers named)" "$(tables_in rx "$nam" "$tab")" "$(tables_in rl "$nam" "$tab")"
    check "$1: the data of every LV intact in both VGs" lvs_data_ok rl rx
}
twin() {
    local cmd=$1 desc=$2 al="" ax="" a rcl rcx outl outx
    shift 2
    for a in "$@"; do
        case $a in
        %[0-9]) al="$al $(disk "${a#%}" "$RL_DISKS")"; ax="$ax $(disk "${a#%}" "$RX_DISKS")" ;;
        V/*) al="$al rl/${a#V/}"; ax="$ax rx/${a#V/}" ;;
        *) al="$al $a"; ax="$ax $a" ;;
        esac
    done
    outl=$(lvm $cmd $al 2>&1 </dev/null); rcl=$?
    outx=$($LVX $cmd $ax 2>&1 </dev/null); rcx=$?
    check_eq "$desc: lvx $cmd exits as LVM2 ($rcl) and says what it says" \
        "$rcx $(sed "s/rx/V/g; s/vd$RX_RANGE/D/g; s/\[y\/n\]: .*\$/[y\/n]:/; /WARNING/d" <<<"$outx")" \
        "$rcl $(sed "s/rl/V/g; s/vd$RL_RANGE/D/g; s/\[y\/n\]: .*\$/[y\/n]:/; /WARNING/d" <<<"$outl")"
}
conv() { twin lvconvert "$@"; }
record() {
    local vg tab st
    lvm vgcfgbackup -f "$R/$1.%s.vg" rl rx >/dev/null 2>&1
    tab=$(dmsetup table)
    st=$(dmsetup status)
    for vg in rl rx; do
        lines_from "$vg-" "$tab" >$R/$1.$vg.table
        lines_from "$vg-" "$st" >$R/$1.$vg.status
        lvm lvs -a -o+reshape_len_le,data_offset,new_data_offset,raid_sync_action,sync_percent,stripesize $vg >$R/$1.$vg.lvs 2>&1
    done
}
idle() {       # (striped LVs only: nothing to wait for)
    local i
    dm_settle idle rl rx
    for i in $(seq 1 240); do
        [ "$(lvm lvs --noheadings -o raid_sync_action,sync_percent rl rx 2>/dev/null | trim | sort -u | grep -v '^$')" = idle100.00 ] && return 0
        [ "$(lvm lvs --noheadings -o segtype rl rx 2>/dev/null | trim | sort -u)" = striped ] && return 0
        sleep 1
    done
    return 1
}
rl_field() { lvm lvs --noheadings -o "$1" "$2/$LVS" | trim; }
# rl_fields FIELDS VG: LVM2's report fields FIELDS (comma-separated) of VG/$LVS, one space apart
rl_fields() {
    local v
    v=$(lvm lvs --noheadings --separator ' ' -o "$1" "$2/$LVS")
    echo "${v#"${v%%[! ]*}"}"
}
twin_step() {
    local name=$1 st=$2 ds=$3 s=$4
    shift 4
    conv "$name" -y "$@" V/$LVS
    record $name-conv
    check "$name: the kernel's work runs to its end in both" idle
    record $name
    check_eq "$name: LVM2's segtype, data_stripes, stripes of rl" \
        "$(rl_fields segtype,data_stripes,stripes rl)" "$st $ds $s"
    same "$name"
}
