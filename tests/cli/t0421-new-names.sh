#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0421-new-names: names for new VGs and LVs are checked as LVM2 checks them, compared
# with LVM2 case by case (same exit code, the same words, exactly one lvx line, no byte
# written to the devices):
#   vgcreate: names that exist in /dev (mapper, null, shm, fd, a loop device node),
#             ".", "..", a bad character, 128 characters;
#   vgrename: to mapper / null, a bad name, a name whose /dev path is too long, the
#             same name (all exit 5 in LVM2);
#   lvcreate / lvrename: the reserved prefixes (snapshot, pvmove) and every reserved
#             infix (_cdata ... _vorigin), ".", "..", an LV name that makes "vg/lv"
#             too long (and vgrename making an LV's full name too long: same message,
#             exit 5 where LVM2 exits 0 without writing).
# lvx only: $DM_DEV_DIR replaces /dev for the check.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_loop
need_cmd lvm timeout
need_lvx
plan_later

D1=$(make_loop 64M) || skip_all "cannot make loop devices"
D2=$(make_loop 64M) || skip_all "cannot make loop devices"
DEVS="$D1,$D2"
lvm_sandbox "$D1" "$D2"
VG=vg421_$$
lx() { LVM_SYSTEM_DIR="$SCRATCH/lvm" timeout 60 "$LVX" "$@" --devices "$DEVS"; }
l2() { timeout 60 env LVM_SYSTEM_DIR="$SCRATCH/lvm" LVM_SUPPRESS_FD_WARNINGS=1 lvm "$@"; }

test_ok "setup: LVM2 pvcreate" lvm2 pvcreate "$D1" "$D2"
test_ok "setup: lvx vgcreate" lx vgcreate "$VG" "$D1"
test_ok "setup: lvx lvcreate lv0" lx lvcreate -an -Zn -l 2 -n lv0 "$VG"

# like_lvm2 DESCRIPTION PHRASE ARGS...
like_lvm2() {
    local what=$1 phrase=$2 rc_lvx=0 rc_lvm=0
    shift 2
    sha_devs "$D1" "$D2" >"$SCRATCH/sha.before"
    l2 "$@" >"$SCRATCH/lvm.out" 2>"$SCRATCH/lvm.err" || rc_lvm=$?
    sha_devs "$D1" "$D2" >"$SCRATCH/sha.lvm"
    lx "$@" >"$SCRATCH/lvx.out" 2>"$SCRATCH/lvx.err" || rc_lvx=$?
    sha_devs "$D1" "$D2" >"$SCRATCH/sha.after"
    if [[ $rc_lvm != 0 ]] && cmp -s "$SCRATCH/sha.before" "$SCRATCH/sha.lvm"; then
        test_eq "$what: exit code as LVM2 ($rc_lvm)" "$rc_lvx" "$rc_lvm"
    else
        _tap_result 1 "$what: LVM2 refuses it without writing (exit $rc_lvm)"
        _diag_file "LVM2 stderr" "$SCRATCH/lvm.err"
        cp "$SCRATCH/sha.lvm" "$SCRATCH/sha.before"
    fi
    if [[ $(grep -c '' "$SCRATCH/lvx.err") == 1 ]] && grep -qF -- "$phrase" "$SCRATCH/lvx.err" &&
        grep -qF -- "$phrase" "$SCRATCH/lvm.err"; then
        _tap_result 0 "$what: one line, LVM2's words"
    else
        _tap_result 1 "$what: one line, LVM2's words"
        diag "want (in both): $phrase"
        _diag_file "lvx stderr" "$SCRATCH/lvx.err"
        _diag_file "LVM2 stderr" "$SCRATCH/lvm.err"
    fi
    sanitizer_report "$SCRATCH/lvx.err" && _tap_result 1 "$what: sanitizer report"
    test_eq "$what: devices unchanged" "$(cat "$SCRATCH/sha.after")" "$(cat "$SCRATCH/sha.before")"
}

# ---- vgcreate
for n in mapper null shm fd "$(basename "$D2")"; do
    [[ -e /dev/$n ]] || { test_skip "vgcreate $n" "/dev/$n does not exist here"; continue; }
    like_lvm2 "vgcreate $n" "/dev/$n: already exists in filesystem" vgcreate "$n" "$D2"
done
like_lvm2 "vgcreate ." 'New volume group name "." is invalid.' vgcreate . "$D2"
like_lvm2 "vgcreate .." 'New volume group name ".." is invalid.' vgcreate .. "$D2"
like_lvm2 "vgcreate a/b" 'New volume group name "a/b" is invalid.' vgcreate a/b "$D2"
long=$(printf 'v%.0s' $(seq 128))
like_lvm2 "vgcreate of 128 characters" "New volume group name \"$long\" is invalid." vgcreate "$long" "$D2"

# $DM_DEV_DIR stands for /dev (lvx only: LVM2 would look for its devices there too)
mkdir -p "$SCRATCH/devdir"
: >"$SCRATCH/devdir/taken$$"
sha_devs "$D1" "$D2" >"$SCRATCH/sha.before"
rc=0
DM_DEV_DIR="$SCRATCH/devdir" lx vgcreate "taken$$" "$D2" >/dev/null 2>"$SCRATCH/.err" || rc=$?
test_eq "DM_DEV_DIR: vgcreate of a name in it refused (exit 3)" "$rc" 3
test_eq "DM_DEV_DIR: the path named" "$(cat "$SCRATCH/.err")" \
    "  $SCRATCH/devdir/taken$$: already exists in filesystem"
test_eq "DM_DEV_DIR: devices unchanged" "$(sha_devs "$D1" "$D2")" "$(cat "$SCRATCH/sha.before")"

# ---- vgrename
like_lvm2 "vgrename to mapper" "/dev/mapper: already exists in filesystem" vgrename "$VG" mapper
like_lvm2 "vgrename to null" "/dev/null: already exists in filesystem" vgrename "$VG" null
like_lvm2 "vgrename to a/b" 'New volume group name "a/b" is invalid.' vgrename "$VG" a/b
like_lvm2 "vgrename to 122 characters" "New volume group path exceeds maximum length of 121!" \
    vgrename "$VG" "$(printf 'w%.0s' $(seq 122))"
like_lvm2 "vgrename to the same name" "Old and new volume group names must differ" \
    vgrename "$VG" "$VG"

# ---- lvcreate and lvrename
like_lvm2 "lvcreate -n snapshot" 'Names starting "snapshot" are reserved. Please choose a different LV name.' \
    lvcreate -Zn -l 1 -n snapshot "$VG"
like_lvm2 "lvcreate -n snapshot2" 'Names starting "snapshot" are reserved.' \
    lvcreate -Zn -l 1 -n snapshot2 "$VG"
like_lvm2 "lvcreate -n pvmove0" 'Names starting "pvmove" are reserved.' \
    lvcreate -Zn -l 1 -n pvmove0 "$VG"
for s in _cdata _cmeta _corig _cpool _cvol _wcorig _mimage _mlog _rimage _rmeta _tdata _tmeta \
    _vdata _imeta _iorig _pmspare _vorigin; do
    like_lvm2 "lvcreate -n lv${s}_0" "Names including \"$s\" are reserved. Please choose a different LV name." \
        lvcreate -Zn -l 1 -n "lv${s}_0" "$VG"
done
like_lvm2 "lvcreate -n ." 'Logical volume name "." is invalid.' lvcreate -Zn -l 1 -n . "$VG"
like_lvm2 "lvcreate -n .." 'Logical volume name ".." is invalid.' lvcreate -Zn -l 1 -n .. "$VG"
like_lvm2 "lvrename to pvmove1" 'Names starting "pvmove" are reserved.' lvrename "$VG" lv0 pvmove1
like_lvm2 "lvrename to x_rimage_1" 'Names including "_rimage" are reserved.' \
    lvrename "$VG" lv0 x_rimage_1
like_lvm2 "lvrename to x_vorigin" 'Names including "_vorigin" are reserved.' \
    lvrename "$VG" lv0 x_vorigin
like_lvm2 "lvrename to ." 'New logical volume name "." is invalid' lvrename "$VG" lv0 .

# "vg/lv" plus a dm layer suffix must stay under 128 characters (LVM2's vg_validate)
n=$((128 - 3 - ${#VG}))
lvlong=$(printf 'l%.0s' $(seq "$n"))
like_lvm2 "lvcreate of an LV name one too long for the VG name" \
    "Internal error: LV name \"$VG/$lvlong\" length 128 is not supported." \
    lvcreate -an -Zn -l 1 -n "$lvlong" "$VG"
test_ok "control: one character shorter fits" lx lvcreate -an -Zn -l 1 -n "${lvlong:1}" "$VG"
# vgrename one character longer: LVM2 prints the error and writes nothing but exits 0
# (its vgrename ignores the failed write); lvx exits 5
sha_devs "$D1" "$D2" >"$SCRATCH/sha.before"
rc=0
lx vgrename "$VG" "${VG}x" >/dev/null 2>"$SCRATCH/.err" || rc=$?
test_eq "vgrename making an LV name too long: exit 5" "$rc" 5
test_eq "vgrename making an LV name too long: LVM2's message" "$(cat "$SCRATCH/.err")" \
    "  Internal error: LV name \"${VG}x/${lvlong:1}\" length 128 is not supported."
l2 vgrename "$VG" "${VG}x" >/dev/null 2>"$SCRATCH/lvm.err"
grep -qF "Internal error: LV name \"${VG}x/${lvlong:1}\" length 128 is not supported." "$SCRATCH/lvm.err"
test_eq "vgrename making an LV name too long: LVM2 says the same" "$?" 0
test_eq "vgrename making an LV name too long: devices unchanged" "$(sha_devs "$D1" "$D2")" \
    "$(cat "$SCRATCH/sha.before")"
test_ok "cleanup: lvremove of the long LV" lx lvremove -f "$VG/${lvlong:1}"

# controls: names that only look alike are accepted
test_ok "control: lvcreate -n my_snapshot (prefix rule only at the start)" \
    lx lvcreate -an -Zn -l 1 -n my_snapshot "$VG"
test_ok "control: lvcreate -n cdata_x (no underscore before it)" lx lvcreate -an -Zn -l 1 -n cdata_x "$VG"
test_ok "control: vgrename to a free name" lx vgrename "$VG" "${VG}b"
test_ok "cleanup: vgremove" lx vgremove -f "${VG}b"
done_testing
