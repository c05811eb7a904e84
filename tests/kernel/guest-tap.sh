# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC2034
#
# tests/kernel/guest-tap.sh - the TAP helpers every guest script sources (kernel_guest_test
# in tests/lib_kernel.sh puts this file at /t/guest-tap.sh; the guest script starts with
# `. /t/guest-tap.sh`).  Lines go to the console, to /tmp/result.tap and, as they come,
# to /out/result.partial (so a guest that runs out of time still reports the lines it
# got to); guest_done copies the whole stream to /out/result.tap, the sign that the
# script ran to its end.
#
#   pass DESC | fail DESC | note TEXT          one result / comment lines
#   check DESC CMD...                          CMD must exit 0 (output shown otherwise)
#   check_eq DESC GOT WANT                     equal strings
#   check_fail DESC PATTERN CMD...             CMD must fail with PATTERN in its output
#   check_match DESC TEXT FIXED-STRING         TEXT contains FIXED-STRING
#   lvm CMD ARGS...                            the host's LVM2 without device hints
#   trim                                       filter: drop spaces
#   quiet_missing                              filter: drop the missing-PV warnings
#   both, each, meta, tables, devnum, kminor   twin-VG comparisons (below)
#   guest_done                                 plan line, result.tap, exit 0 (one part of
#                                              guest-parts.sh: /tmp/part-done, exit 0)
set -u
export PATH=/t:$PATH
LVX=/t/lvx
TAP=/tmp/result.tap
# GUEST_TAP_PART=1 (tests/kernel/guest-parts.sh runs the script as one part of a guest's
# stream): the numbering goes on from the lines already in $TAP, and guest_done ends the
# part (marks /tmp/part-done) without the plan line
if [ "${GUEST_TAP_PART:-0}" = 1 ] && [ -f "$TAP" ]; then
    N=$(grep -c -E '^(not )?ok ' "$TAP")
    FAILS=$(grep -c '^not ok ' "$TAP")
else
    : >"$TAP"
    N=0
    FAILS=0
fi

emit() {
    echo "$1"
    echo "$1" >>"$TAP"
    if [ -d /out ]; then echo "$1" >>/out/result.partial; fi
}
pass() { N=$((N + 1)); emit "ok $N - $1"; }
fail() { N=$((N + 1)); FAILS=$((FAILS + 1)); emit "not ok $N - $1"; }
note() { local l; while IFS= read -r l; do emit "#   $l"; done <<<"$1"; }
check() {
    local desc=$1 out rc=0
    shift
    out=$("$@" 2>&1) || rc=$?
    if [ $rc = 0 ]; then pass "$desc"; else fail "$desc"; note "command: $* (exit $rc)"; note "$out"; fi
}
check_eq() {
    if [ "$2" = "$3" ]; then pass "$1"; else fail "$1"; note "got:  $2"; note "want: $3"; fi
}
check_fail() {
    local desc=$1 pat=$2 out rc=0
    shift 2
    out=$("$@" 2>&1) || rc=$?
    if [ $rc != 0 ] && grep -q -- "$pat" <<<"$out"; then pass "$desc"
    else fail "$desc"; note "command: $* (exit $rc)"; note "$out"; fi
}
check_match() {
    if grep -qF -- "$3" <<<"$2"; then pass "$1"; else fail "$1"; note "$2"; fi
}
lvm() { local c=$1; shift; command lvm "$c" --config 'devices { hints = "none" }' "$@"; }
trim() { tr -d ' '; }
# filter: without LVM2's (and lvx's) lines about missing PVs
quiet_missing() { grep -v -e "Couldn't find device" -e "is missing PV" -e "WARNING: Device for PV" || true; }

# Twin VGs, one made by each tool: the script sets LVM_VG (LVM2's) and LVX_VG (lvx's), and
# PVMAP (a sed script mapping lvx's PV device numbers to LVM2's) for `tables`.
#   both DESC ARGS...   the same command by LVM2 on LVM_VG and by lvx on LVX_VG ("VG" in
#                       ARGS is the VG): same exit status and output (VG names mapped;
#                       LVM2's "Run `lvcreate --help' for more information." after a bad
#                       option is not printed by lvx: README "Where lvx deliberately differs")
#   meta TOOL VG        the metadata text the tool writes, without ids, times and hosts
#   tables VG           the VG's dm tables, device numbers as dm names, PVs as LVM2's
#   dm_forms VG         names and UUID forms of VG's devices, VG's name replaced
#   each DESC ARGS...   ARGS by LVM2 on LVM_VG and by lvx on LVX_VG ("VG" in ARGS is the
#                       VG): two checks, each must exit 0
#   devnum DEV          MAJ:MIN of a disk
#   pv_map PAIRS...     sets PVMAP from disk letter pairs LVM2:LVX (a:f)
#   wait_sync TOOL LV   waits (at most 120 s) for the LV's copy_percent 100 (a script's
#                       own wait_sync, defined after sourcing, takes its place)
#   kminor VG LV[-LAYER] the device minor of dm device VG-LV[-LAYER] (blanks removed)
both() {
    local desc=$1 ra=0 rb=0 oa ob
    shift
    oa=$(lvm "${@//VG/$LVM_VG}" 2>&1 | grep -v "' for more information.$"; exit "${PIPESTATUS[0]}") || ra=$?
    ob=$($LVX "${@//VG/$LVX_VG}" 2>&1) || rb=$?
    check_eq "$desc: lvx's exit status and output equal LVM2's" \
        "$rb ${ob//$LVX_VG/VG}" "$ra ${oa//$LVM_VG/VG}"
}
each() {
    local desc=$1
    shift
    check "$desc (LVM2)" lvm "${@//VG/$LVM_VG}"
    check "$desc (lvx)" $LVX "${@//VG/$LVX_VG}"
}
meta() {
    rm -f /tmp/meta.vg
    $1 vgcfgbackup -f /tmp/meta.vg "$2" >/dev/null 2>&1
    sed -n '/logical_volumes {/,$p' /tmp/meta.vg |
        grep -vE '^\s*(id|creation_time|creation_host) = ' | sed "s/$2/VG/g"
}
tables() {
    local vg=${1//-/--} map
    map=$(dmsetup info -c --noheadings --separator ' ' -o major,minor,name |
        awk '{ printf "s/ %s:%s( |$)/ %s\\1/g;", $1, $2, $3 }')
    dmsetup table | grep "^$vg-" | sort | sed -E "$map" | sed "${PVMAP:-}s/$vg-/VG-/g"
}
devnum() { cat "/sys/block/${1#/dev/}/dev"; }
pv_map() {  # pv_map LVM2:LVX...: PVMAP from pairs of disk letters (a:f = vda is vdf's twin)
    local p
    PVMAP=""
    for p in "$@"; do
        PVMAP+="s/ $(devnum /dev/vd${p#*:}) / $(devnum /dev/vd${p%:*}) /g;"
    done
}
wait_sync() {  # wait_sync TOOL VG/LV: copy_percent 100 (at most 120 s)
    local t
    for ((t = 0; t < 240; t++)); do
        [[ $($1 lvs --noheadings -o copy_percent "$2" 2>/dev/null | trim) == 100.00 ]] && return 0
        sleep 0.5
    done
    return 1
}
# dmraid_status VG-LV: "<#devs> <health> <ratio> <action> <mismatches> <data_offset>"
# of dm-raid's status line
dmraid_status() { dmsetup status "$1" | awk '{ print $5, $6, $7, $8, $9, $10 }'; }
dmraid_wait_idle() {  # VG-LV: until sync action idle and the ratio complete (at most 120 s)
    local dev=$1
    for _ in $(seq 600); do
        # shellcheck disable=SC2046
        set -- $(dmraid_status "$dev") x x x x x x
        [ "$4" = idle ] && [ "${3%/*}" = "${3#*/}" ] && break
        sleep 0.2
    done
}
kminor() { dmsetup info -c --noheadings -o minor "${1//-/--}-$2" 2>/dev/null | trim; }
dm_forms() {
    dmsetup info -c --noheadings --separator ' ' -o name,uuid | grep "^${1//-/--}-" | sort |
        sed -E "s/^${1//-/--}-/VG-/; s/ LVM-[A-Za-z0-9]{64}/ LVM-U/"
}

guest_done() {
    emit "# all done at ${SECONDS}s"
    if [ "${GUEST_TAP_PART:-0}" = 1 ]; then
        : >/tmp/part-done
        exit 0
    fi
    emit "1..$N"
    if [ -d /out ]; then cp "$TAP" /out/result.tap; fi
    exit 0
}
