#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0976-user-raid0-takeover: lvconvert --type raid0|raid0_meta|striped with the lvx
# daemon (user-space activation), which serves a raid0 LV as the striped LV it equals;
# three 64 MiB loop devices, LVM2 (activation off) reading the layout:
#   - a striped LV (-i3) written with 12 MiB while active becomes raid0_meta: LVM2's
#     line, LVM2's vgck passes, the daemon serves it at once with the same data;
#   - 12 new MiB written through the raid0_meta LV: each rimage holds every third 64 KiB
#     chunk of them (read from its PV where LVM2 places it), as md's raid0 lays them;
#   - raid0_meta -> raid0 -> striped while active, then deactivated and activated:
#     the data; inactive -> raid0, activated (the daemon serves raid0): the data;
#   - a raid0 LV made by lvcreate served too: written, read back.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

VG=vgur0$$
uspace_test_loops "$VG" 3 64M
need_cmd "${PYTHON:=python3}"
source "$LVX_ROOT/tests/tools/raid-pvread.sh"
MIB=1048576
S=$DM_DEV_DIR/$VG/s
convert() {       # convert TYPE: lvx lvconvert -y --type TYPE of s, LVM2's last line, vgck
    local out rc=0
    out=$(lvx lvconvert -y --type "$1" "$VG/s" 2>&1 | grep -v WARNING; exit "${PIPESTATUS[0]}") || rc=$?
    test_eq "--type $1 of s: exit 0, LVM2's line" "$rc $(tail -n1 <<<"$out" | sed 's/^ *//')" \
        "0 Logical volume $VG/s successfully converted."
    test_eq "... LVM2 reads a $1 LV" "$(lvm2 lvs --noheadings -o segtype "$VG/s" 2>/dev/null | tr -d ' ')" "$1"
    test_ok "... LVM2's vgck passes" lvm2 vgck "$VG"
}
data_is() {       # data_is FILE DESC: s reads FILE
    test_eq "$2" "$(lv_sum "$S" 0 $((12 * MIB)))" "$(fsum "$1")"
}

uspace_run_ok "pvcreate, vgcreate" sh -c "$LVX pvcreate -q ${DEVS[*]} && $LVX vgcreate -q $VG ${DEVS[*]}"
uspace_run_ok "striped s (-i3 -L 12m), active" lvx lvcreate -q -Zn -i3 -L 12m -n s "$VG"
head -c $((12 * MIB)) /dev/urandom >"$SCRATCH/d1"
uspace_run_ok "12 MiB written" dd if="$SCRATCH/d1" of="$S" bs=1M oflag=direct conv=fsync status=none

convert raid0_meta
test_eq "... active, as LVM2's raid0_meta LV" "$(field "$VG/s" lv_attr)" "rwi-a-r---"
data_is "$SCRATCH/d1" "... served at once: the data"
head -c $((12 * MIB)) /dev/urandom >"$SCRATCH/d2"
uspace_run_ok "12 new MiB written through the raid0_meta LV" \
    dd if="$SCRATCH/d2" of="$S" bs=1M oflag=direct conv=fsync status=none
for i in 0 1 2; do   # rimage i: chunks i, i+3, ... of 64 KiB
    for ((c = i; c < 192; c += 3)); do
        dd if="$SCRATCH/d2" bs=64k skip=$c count=1 status=none
    done >"$SCRATCH/img$i"
    report "s_rimage_$i"
    test_eq "... s_rimage_$i holds every third 64 KiB chunk from chunk $i (on its PV)" \
        "$(pv_sum "s_rimage_$i" 0 $((4 * MIB)))" "$(fsum "$SCRATCH/img$i")"
done
convert raid0
data_is "$SCRATCH/d2" "... the data"
convert striped
data_is "$SCRATCH/d2" "... the data"
uspace_run_ok "deactivated and activated again" sh -c "$LVX lvchange -an $VG/s && $LVX lvchange -ay $VG/s"
data_is "$SCRATCH/d2" "... the data"
uspace_run_ok "deactivate s" lvx lvchange -an "$VG/s"
convert raid0
uspace_run_ok "activate the raid0 LV" lvx lvchange -ay "$VG/s"
data_is "$SCRATCH/d2" "... the data"

uspace_run_ok "raid0 r made by lvcreate (-i2 -L 8m), active" lvx lvcreate -q -Zn --type raid0 -i2 -L 8m -n r "$VG"
head -c $((8 * MIB)) /dev/urandom >"$SCRATCH/d3"
uspace_run_ok "8 MiB written to r" dd if="$SCRATCH/d3" of="$DM_DEV_DIR/$VG/r" bs=1M oflag=direct conv=fsync status=none
uspace_run_ok "r deactivated and activated again" sh -c "$LVX lvchange -an $VG/r && $LVX lvchange -ay $VG/r"
test_eq "... r reads them" "$(lv_sum "$DM_DEV_DIR/$VG/r" 0 $((8 * MIB)))" "$(fsum "$SCRATCH/d3")"
uspace_run_ok "deactivate the VG" lvx vgchange -an "$VG"
done_testing
