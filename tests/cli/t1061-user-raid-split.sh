#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1061-user-raid-split: `lvconvert --splitmirrors N --name NEW VG/LV [PV]` of active
# raid1 LVs in the user-space backend (LVM2's lvconvert-raid.sh:124-148): 3-way -> 2-way
# + a linear LV NEW (the last image, its rimage keeping its place and UUID, the rmeta
# gone), 2-way -> linear + linear (refused without -y: LVM2's prompt line and "NOT
# split", nothing written), 4-way with a PV named (the image on it leaves, those above
# move down and are renamed); NEW is active and holds the data; seqno +2 (LVM2 writes
# twice).  LVM2's refusals: no --name, --mirrors with it, a second image, a name in use,
# more images than there are.  (--trackchanges in this backend: t1084.)  lvx before this
# change did not know --splitmirrors (exit 3).
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

VG=vgspl$$
uspace_test_loops "$VG" 5 40M
source "$LVX_ROOT/tests/tools/raid-pvread.sh"
seqno() { lvx vgs --noheadings -o vg_seqno "$VG" 2>/dev/null | tr -d ' '; }
layout() {  # every LV: name=segtype=devices, sorted, device names as D<i>
    local s="" i
    for ((i = ${#DEVS[@]} - 1; i >= 0; i--)); do s+="s|${DEVS[$i]}\\b|D$i|g;"; done
    lvm_ro lvs -a --noheadings -o lv_name,segtype,devices "$VG" 2>/dev/null | sed "$s" |
        awk '{ print $1 "=" $2 ($3 ? "=" $3 : "") }' | sort | paste -sd' '
}
lvm_ro() { LVM_SUPPRESS_FD_WARNINGS=1 lvm "$@" --config "global/activation=0 devices/global_filter=[$(printf '"a|^%s$|",' "${DEVS[@]}")\"r|.*|\"] devices/use_devicesfile=0 devices/scan_lvs=0"; }
run() {  # run ARGS...: lvx with output in $SCRATCH/o, exit code in rc
    rc=0
    lvx "$@" >"$SCRATCH/o" 2>&1 </dev/null || rc=$?
}
out() { grep -v "NOT backed up" "$SCRATCH/o" | tr -s ' ' | sed 's/^ //' | paste -sd'|'; }
dsum() { dd if="$DM_DEV_DIR/$1" bs=1M count=8 iflag=direct status=none | sha256sum | cut -d' ' -f1; }

uspace_run_ok "pvcreate, vgcreate" sh -c "$LVX pvcreate -q ${DEVS[*]} && $LVX vgcreate -q $VG ${DEVS[*]}"

# ---- 3-way -> 2-way + linear
uspace_run_ok "lvcreate --type raid1 -m2 -l2 on D0 D1 D2" \
    lvx lvcreate -q -Zn --type raid1 -m2 -l2 -n r1 "$VG" "${DEVS[0]}" "${DEVS[1]}" "${DEVS[2]}"
test_ok "r1 in sync" wait_synced r1
head -c $((8 << 20)) /dev/urandom >"$SCRATCH/d"
uspace_run_ok "8 MiB written to r1" dd if="$SCRATCH/d" of="$DM_DEV_DIR/$VG/r1" bs=1M oflag=direct conv=fsync status=none

run lvconvert --splitmirrors 1 "$VG/r1"
test_eq "no --name: LVM2's line, exit 3" "$rc $(out)" "3 Please name the new logical volume using '--name'"
run lvconvert --splitmirrors 1 -m1 -n x "$VG/r1"
test_eq "with --mirrors: LVM2's line, exit 3" "$rc $(out)" \
    "3 --mirrors/--type mirror/--type raid* and --splitmirrors are mutually exclusive."
before=$(seqno)
run lvconvert --splitmirrors 2 -n x "$VG/r1"
test_eq "two images: LVM2's line, exit 5, nothing written" "$rc $(out) $(seqno)" \
    "5 Unable to split more than one image from $VG/r1. $before"
run lvconvert --splitmirrors 3 -n x "$VG/r1"
test_eq "three of three: LVM2's line, exit 5" "$rc $(out)" "5 Unable to split images by specified amount."
run lvconvert --splitmirrors 1 -n r1 "$VG/r1"
test_eq "a name in use: LVM2's line, exit 5" "$rc $(out)" "5 Logical Volume \"r1\" already exists in $VG."
uuid2=$(lvm_ro lvs -a --noheadings -o lv_uuid "$VG/r1_rimage_2" 2>/dev/null | tr -d ' ')

run lvconvert --splitmirrors 1 -n sp "$VG/r1"
test_eq "lvconvert --splitmirrors 1 -n sp VG/r1: exit 0, nothing printed (LVM2)" "$rc $(out)" "0 "
test_eq "... seqno +2 (LVM2 writes twice)" "$(seqno)" "$((before + 2))"
test_eq "... r1 2-way on D0 D1, sp linear on D2 (LVM2 reading it)" "$(layout)" \
    "[r1_rimage_0]=linear=D0(1) [r1_rimage_1]=linear=D1(1) [r1_rmeta_0]=linear=D0(0) [r1_rmeta_1]=linear=D1(0) r1=raid1=r1_rimage_0(0),r1_rimage_1(0) sp=linear=D2(1)"
test_eq "... sp keeps rimage_2's UUID" "$(lvm_ro lvs --noheadings -o lv_uuid "$VG/sp" 2>/dev/null | tr -d ' ')" "$uuid2"
test_eq "... sp is active" "$(field "$VG/sp" lv_active)" "active"
test_eq "... sp holds the data" "$(dsum "$VG/sp")" "$(fsum "$SCRATCH/d")"
test_eq "... r1 still serves it" "$(dsum "$VG/r1")" "$(fsum "$SCRATCH/d")"
test_eq "... lv_attr of sp: -wi-a-----" "$(field "$VG/sp" lv_attr)" "-wi-a-----"
uspace_run_ok "lvremove -ff" lvx lvremove -ff "$VG"

# ---- 2-way -> linear + linear
uspace_run_ok "lvcreate --type raid1 -m1 -l2" lvx lvcreate -q -Zn --type raid1 -m1 -l2 -n r1 "$VG" "${DEVS[0]}" "${DEVS[1]}"
test_ok "r1 in sync" wait_synced r1
uspace_run_ok "8 MiB written to r1" dd if="$SCRATCH/d" of="$DM_DEV_DIR/$VG/r1" bs=1M oflag=direct conv=fsync status=none
before=$(seqno)
rc=0
echo n | lvx lvconvert --splitmirrors 1 -n sp "$VG/r1" >"$SCRATCH/o" 2>&1 || rc=$?
sed -i 's/\]: */]: /' "$SCRATCH/o"
test_eq "2-way, answered n: LVM2's prompt and line, exit 5, nothing written" "$rc $(out) $(seqno)" \
    "5 Are you sure you want to split raid1 LV $VG/r1 losing all resilience? [y/n]: Logical volume $VG/r1 NOT split. $before"
run lvconvert --yes --splitmirrors 1 -n sp "$VG/r1"
test_eq "lvconvert --yes --splitmirrors 1 -n sp: exit 0, seqno +2" "$rc $(out) $(seqno)" "0  $((before + 2))"
test_eq "... r1 linear on D0, sp linear on D1" "$(layout)" "r1=linear=D0(1) sp=linear=D1(1)"
test_eq "... both hold the data" "$(dsum "$VG/r1") $(dsum "$VG/sp")" \
    "$(fsum "$SCRATCH/d") $(fsum "$SCRATCH/d")"
uspace_run_ok "lvremove -ff" lvx lvremove -ff "$VG"

# ---- 4-way, a PV named
uspace_run_ok "lvcreate --type raid1 -m3 -l2" lvx lvcreate -q -Zn --type raid1 -m3 -l2 -n r1 "$VG" "${DEVS[@]:0:4}"
test_ok "r1 in sync" wait_synced r1
run lvconvert --splitmirrors 1 --name sp "$VG/r1" "${DEVS[1]}"
test_eq "lvconvert --splitmirrors 1 --name sp VG/r1 D1: exit 0" "$rc $(out)" "0 "
test_eq "... image 1 left, 2 and 3 moved down" "$(layout)" \
    "[r1_rimage_0]=linear=D0(1) [r1_rimage_1]=linear=D2(1) [r1_rimage_2]=linear=D3(1) [r1_rmeta_0]=linear=D0(0) [r1_rmeta_1]=linear=D2(0) [r1_rmeta_2]=linear=D3(0) r1=raid1=r1_rimage_0(0),r1_rimage_1(0),r1_rimage_2(0) sp=linear=D1(1)"
uspace_run_ok "lvremove -ff" lvx lvremove -ff "$VG"
done_testing
