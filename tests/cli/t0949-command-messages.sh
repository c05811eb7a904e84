#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0949-command-messages: the lines LVM2's toolkit adds around a command's own, lvx
# side by side with the real LVM2 (issue 15; clients match on them):
#   - "WARNING: This metadata update is NOT backed up." (backup/backup = 0, as in the
#     sandbox and many containers): once per command, before or after the command's own
#     message where LVM2 prints it (a life cycle of 28 commands, vgcreate ... pvremove,
#     run by each program on the same devices, stdout and stderr as one stream);
#   - "Cannot process volume group X" after "Volume group "X" not found" for a named
#     VG that is missing (reports, displays, changes, LV commands), exit 5; vgreduce's
#     "Failed to find physical volume" lines after them, "Cannot use X: device not
#     found" for a named device that does not exist;
#   - lvmconfig's --type current (the front of LVM2's cascade: lvm.conf as LVM2 merges
#     it, or the --config text alone) and --type diff's order with and without --config.
# Left out: LVM2's vgmerge "WARNING: updating old metadata to N on DEV" (it rewrites
# the merged PV's own old copy; lvx's commit writes the new one at once), and
# `vgextend` of a missing VG (LVM2 first makes the device a PV there).
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/side.sh"


VG=vgcm$$
side_setup 3

life() {        # life PROGRAM: the sequence, each command's output as one stream
    local c
    while read -r c; do
        echo "== $c"
        "$1" $c 2>&1 | grep -Ev 'Activation disabled|updating old metadata to'
        echo "rc ${PIPESTATUS[0]}"
    done <<EOT
pvcreate ${D[2]}
vgcreate $VG ${D[0]}
lvcreate -an -Zn -n a -L4m $VG
lvcreate -an -Zn -n b -L4m $VG
lvextend -L+4m $VG/a
lvrename $VG a c
lvchange --addtag x $VG/c
lvchange --addtag y $VG/c $VG/b
vgchange --addtag x $VG
vgextend $VG ${D[1]}
vgreduce $VG ${D[1]}
pvchange --addtag x ${D[0]}
pvchange --addtag x ${D[2]}
lvremove -f $VG/b
lvremove -f $VG
vgcfgbackup -f $SCRATCH/vg.backup $VG
vgrename $VG ${VG}x
vgrename ${VG}x $VG
vgexport $VG
vgimport $VG
vgck --updatemetadata $VG
pvresize ${D[0]}
vgcreate ${VG}2 ${D[1]}
vgmerge $VG ${VG}2
vgsplit $VG ${VG}3 ${D[1]}
vgremove ${VG}3
vgchange -ay $VG
vgremove -f $VG
pvremove ${D[2]}
EOT
}
wipe() { local d; for d in "${D[@]}"; do dd if=/dev/zero of="$d" bs=1M count=2 conv=notrunc status=none; done; }

wipe
life lvm2 >"$SCRATCH/life.l"
wipe
life lvx >"$SCRATCH/life.x"
test_eq "LVM2 warned about backups in its life cycle" "22" "$(grep -c 'NOT backed up' "$SCRATCH/life.l")"
n=0
while read -r c; do
    n=$((n + 1))
    l=$(awk -v n="$n" '/^== / { k++ } k == n' "$SCRATCH/life.l")
    x=$(awk -v n="$n" '/^== / { k++ } k == n' "$SCRATCH/life.x")
    test_eq "${c#== }: the same lines in the same order, the same exit code" "$l" "$x"
done < <(grep '^== ' "$SCRATCH/life.l")
wipe

# ---- a named VG that is missing
lvm2 vgcreate -q "$VG" "${D[0]}" >/dev/null 2>&1
lvm2 lvcreate -q -an -Zn -n a -L 4m "$VG" >/dev/null 2>&1
while read -r line; do
    same "$line" $line
    grep -q "Cannot process volume group nosuch" "$SCRATCH/x.err"
    _tap_result $? "... lvx says it cannot process the VG"
done <<EOT
vgs nosuch
lvs nosuch
vgdisplay nosuch
lvdisplay nosuch
vgs $VG nosuch
vgchange -ay nosuch
vgchange --addtag x nosuch
lvchange -ay nosuch/a
lvchange --addtag x nosuch/a
vgremove -f nosuch
lvremove -f nosuch
lvcreate -an -L4m -n b nosuch
lvextend -L+4m nosuch/a
vgck nosuch
vgcfgbackup nosuch
vgrename nosuch other
lvrename nosuch a b
vgexport nosuch
vgimport nosuch
vgreduce nosuch ${D[0]}
vgreduce nosuch ${D[0]} /dev/nosuch$$
EOT
# vgreduce names each PV it could not take from the missing VG ("Failed to find physical
# volume"), a device that does not exist first ("Cannot use X: device not found")
test_ok "vgreduce of a missing VG: LVM2's 'Failed to find physical volume' line" \
    grep -qx "  Failed to find physical volume \"${D[0]}\"." "$SCRATCH/x.err"
same "vgreduce of a missing device: left out first, exit 5" vgreduce "$VG" /dev/nosuch$$
lvm2 vgremove -q -f "$VG" >/dev/null 2>&1

# ---- lvmconfig: what LVM2 prints is the front of its configuration cascade
same "lvmconfig: lvm.conf's sections in LVM2's order" lvmconfig
same "lvmconfig --type current global" lvmconfig --type current global
same "lvmconfig --config: the --config text alone, in its order" lvmconfig \
    --config 'report{aligned=0} global{units="m"} backup{archive=1}'
same "lvmconfig --config global/units=m global" lvmconfig --config global/units=m global
# --type diff in LVM2's order: the sections of the cascade (lvm.conf's first, then those
# only --config has), each level first item first, the others reversed
same "lvmconfig --type diff" lvmconfig --type diff
same "lvmconfig --type diff --config: new sections" lvmconfig --type diff \
    --config 'report{aligned=0} log{prefix="x"} global{units="m"}'
same "lvmconfig --type diff --config: new keys in a section" lvmconfig --type diff \
    --config 'global{units="m" suffix=0 lvdisplay_shows_full_device_path=1}'
same "lvmconfig --type diff --config: settings equal to the defaults left out" lvmconfig \
    --type diff --config 'report{aligned=0} global{units="m"} backup{archive=1} devices{scan=["/dev"]}'

done_testing
