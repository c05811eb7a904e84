#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1049-user-open-count: the open count of an LV in the user-space backend counts every
# open of its device, as LVM2's dm open count does: a process that just has the device
# open (not exclusively, not mounted) makes lv_attr's 6th char 'o', lv_device_open
# "open" and lvdisplay's "# open" its count of descriptors (2 for two holders); vgchange
# -an is refused with LVM2's line; lvchange -an with "in use"; once let go, all back to
# closed.  The asking command's own descriptor (lvs with the LV as stdin) is no open.
# (lvx used to count only an exclusive holder, e.g. a mounted file system.)
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

VG=vgtoc$$
uspace_test_loops "$VG" 1 64M
state() {  # "ATTR6 DEVICE_OPEN #OPEN" of VG/lv
    local a o d
    a=$(field "$VG/lv" lv_attr | cut -c6)
    o=$(field "$VG/lv" lv_device_open)
    d=$(lvx lvdisplay "$VG/lv" 2>/dev/null | awk '/# open/ { print $3 }')
    echo "$a ${o:-_} $d"
}
run() {  # run ARGS...: lvx, output in $out, exit code in $rc
    rc=0
    out=$(lvx "$@" 2>&1) || rc=$?
}

uspace_run_ok "pvcreate, vgcreate, lvcreate -L8m -n lv" sh -c \
    "$LVX pvcreate -q ${DEVS[*]} && $LVX vgcreate -q $VG ${DEVS[*]} && $LVX lvcreate -q -L8m -n lv $VG"
test_eq "lv active, closed: attr '-', lv_device_open '', # open 0" "$(state)" "- _ 0"
test_eq "lvs with lv as its stdin: its own descriptor is no open" \
    "$("$LVX" lvs --noheadings -o lv_attr,lv_device_open "$VG/lv" <"$DM_DEV_DIR/$VG/lv" 2>/dev/null | xargs)" "-wi-a-----"
uspace_hold a "$VG/lv"
test_eq "one process holds lv open (O_RDONLY): attr 'o', 'open', # open 1" "$(state)" "o open 1"
uspace_hold b "$VG/lv"
test_eq "two holders: # open 2" "$(state)" "o open 2"
run vgchange -an "$VG"
test_eq "vgchange -an: exit 5, LVM2's line, lv still active" \
    "$rc $(grep -c "Can't deactivate volume group \"$VG\" with 1 open logical volume(s)" <<<"$out") $(field "$VG/lv" lv_active)" \
    "5 1 active" || diag "$out"
run lvchange -an "$VG/lv"
test_eq "lvchange -an: exit 5, 'in use', lv still active" \
    "$rc $(grep -c "Logical volume $VG/lv in use." <<<"$out") $(field "$VG/lv" lv_active)" "5 1 active" || diag "$out"
uspace_unhold a
test_eq "one holder let go: # open 1" "$(state)" "o open 1"
uspace_unhold b
test_eq "both let go: attr '-', '', # open 0" "$(state)" "- _ 0"
run vgchange -an "$VG"
test_eq "vgchange -an: exit 0, lv inactive" "$rc $(field "$VG/lv" lv_active)" "0 " || diag "$out"
done_testing
