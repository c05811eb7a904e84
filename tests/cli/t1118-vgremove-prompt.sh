#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1118-vgremove-prompt: vgremove of a VG holding LVs without -f, side by side with LVM2
# 2.03.16 on the same devices (the VGs made anew before each tool's turn): LVM2 asks
# "Do you really want to remove volume group "VG" containing N logical volumes? [y/n]:"
# on stderr, removes the VG with its LVs on y, says "Volume group "VG" not removed"
# (exit 5) on n or at the end of input ("[n]"), one question per VG named; after a VG
# with LVs is removed it warns that the update is NOT backed up (backups are off here),
# with -f too.  lvx refused such a VG with its own line, whatever the answer, and
# printed its prompts (every command's) on stdout.  On the code before: 8 of its 10
# checks fail.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/side.sh
source "$LVX_ROOT/tests/tools/side.sh"
side_setup 4
plan_later

# vgr: l1, l2 on D0 D3; vgs: l1 on D1; vge: no LV, on D2
fresh() {
    lvm2 vgremove -ff vgr vgs vge >/dev/null 2>&1
    lvm2 pvcreate -ff -y -q "${D[@]}" >/dev/null 2>&1
    lvm2 vgcreate -q vgr "${D[0]}" "${D[3]}" >/dev/null 2>&1 && lvm2 vgcreate -q vgs "${D[1]}" >/dev/null 2>&1 &&
        lvm2 vgcreate -q vge "${D[2]}" >/dev/null 2>&1 &&
        lvm2 lvcreate -q -an -Zn -L 4m -n l1 vgr >/dev/null 2>&1 &&
        lvm2 lvcreate -q -an -Zn -L 4m -n l2 vgr >/dev/null 2>&1 &&
        lvm2 lvcreate -q -an -Zn -L 4m -n l1 vgs >/dev/null 2>&1
}
vgs_left() { lvm2 vgs --noheadings -o vg_name,lv_count 2>/dev/null | xargs; }
# same_left DESC ARGS...: same output and exit status, and the same VGs left after each
same_left() {
    local d=$1 l_left
    shift
    side_one l lvm2 "$@"
    l_left=$(vgs_left)
    side_one x lvx "$@"
    side_same "$d"
    test_eq "$d: the VGs left (LVM2's: $l_left)" "$(vgs_left)" "$l_left"
}
SIDE_RESET=fresh
SIDE_IN=$'y\n'
same_left "vgremove vgr, answered y: its LVs and it removed, the backup warning" vgremove vgr
SIDE_IN=$'n\n'
same_left "vgremove vgr, answered n: not removed, exit 5" vgremove vgr
SIDE_IN=
same_left "vgremove vgr at the end of input: [n], not removed" vgremove vgr
SIDE_IN=$'y\nn\n'
same_left "vgremove vgr vgs vge, answered y then n: one question per VG with LVs" vgremove vgr vgs vge
unset SIDE_IN
same "vgremove -f vgr vgs vge: no question, the warning after vgr and vgs" vgremove -f vgr vgs vge
# another command's prompt (lvx's shared one): on stderr as LVM2's
SIDE_IN=$'n\n'
same "lvconvert --type raid1 -m 1 vgr/l1, answered n: LVM2's prompt on stderr, not converted" \
    lvconvert --type raid1 -m 1 vgr/l1
unset SIDE_IN
unset SIDE_RESET
fresh
lvm2 vgremove -ff vgr vgs vge >/dev/null 2>&1
done_testing
