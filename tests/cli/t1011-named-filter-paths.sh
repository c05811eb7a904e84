#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1011-named-filter-paths: devices named on the command line are judged as a scan would
# judge them, on the paths t1012 leaves out, side by side with LVM2 2.03: the filtered
# device labelled as a PV (pvremove, pvchange, pvresize, pvck refuse it rather than
# write or read it), with devices/filter as with global_filter; pvck --dump (LVM2: exit
# 5); a refused name after an accepted one (vgcreate, vgextend; pvs reports the refused
# one before the one it cannot find); a --devices list lacking the name ("device is not
# in devices list" for pvcreate, pvremove, pvck, vgextend ...); a device the filter
# rejects but --devices names (no filter: LVM2 writes it, and so does lvx, the same).
# Every refusal leaves every device as it was (sha_devs before/after).
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/side.sh"

side_setup 3
plan_later
L=${D[0]} M=${D[1]} N=${D[2]}
VG=vgfp$$
F=(--config "devices { filter = [ \"r|^$L\$|\" ] }")
GF=(--config "devices { global_filter = [ \"a|^$M\$|\", \"a|^$N\$|\", \"r|.*|\" ] }")
lvm2 pvcreate -q "$M" >/dev/null 2>&1
lvm2 vgcreate -q "$VG" "$M" >/dev/null 2>&1
lvm2 pvcreate -q "$L" >/dev/null 2>&1
test_eq "LVM2 made $VG on $M and an orphan PV on $L" "$(printf '%s\n' "$L" "$M" | sort | paste -sd' ')" \
    "$(lvm2 pvs --noheadings -o pv_name 2>/dev/null | tr -d ' ' | sort | paste -sd' ')"

# refused: the same lines and exit code as LVM2, and nothing written
refused() {
    local d=$1 before
    shift
    before=$(sha_devs "${D[@]}")
    same "$d" "$@"
    test_eq "... LVM2 refused $L ($d)" "1" "$(grep -c "Cannot use $L: " "$SCRATCH/l.err")"
    test_eq "... nothing written ($d)" "$before" "$(sha_devs "${D[@]}")"
}

for cmd in "pvremove $L" "pvremove -ff -y $L" "pvchange -x n $L" "pvchange --addtag t $L" \
    "pvresize $L" "pvck $L" "pvck --dump headers $L" "vgcreate vgnew$$ $N $L" \
    "vgextend $VG $N $L" "pvs $N $L" "pvdisplay $N $L"; do
    # shellcheck disable=SC2086
    refused "filter rejects $L: $cmd" $cmd "${F[@]}"
    # shellcheck disable=SC2086
    refused "global_filter rejects $L: $cmd" $cmd "${GF[@]}"
done

# --devices without the named device
for cmd in "pvcreate --devices $N $L" "pvremove --devices $N $L" "pvck --devices $N $L" \
    "pvck --devices $N --dump headers $L" "vgextend --devices $M,$N $VG $L" \
    "vgcreate --devices $N vgnew$$ $L" "pvresize --devices $N $L"; do
    # shellcheck disable=SC2086
    refused "not in --devices: $cmd" $cmd
done

# --devices naming the filtered device: no filter, each tool from the same start
state() { lvm2 pvs --noheadings -o pv_name,vg_name,pv_tags 2>/dev/null | tr -s ' ' | sort; }
reset_l() {
    lvm2 vgreduce -q -f "$VG" "$L" >/dev/null 2>&1
    lvm2 pvremove -q -ff -y "$L" >/dev/null 2>&1
    lvm2 pvcreate -q "$L" >/dev/null 2>&1
}
# (not pvck: LVM2 2.03's pvck refuses every device --devices names, filtered or not)
for cmd in "pvremove --devices $L $L" "pvchange --devices $L --addtag t $L" \
    "pvresize --devices $L $L" "vgextend --devices $M,$L $VG $L"; do
    reset_l
    # shellcheck disable=SC2086
    lvm2 $cmd "${GF[@]}" >"$SCRATCH/l.o" 2>&1
    echo "rc $?" >>"$SCRATCH/l.o"
    ls=$(state)
    reset_l
    # shellcheck disable=SC2086
    lvx $cmd "${GF[@]}" >"$SCRATCH/x.o" 2>&1
    echo "rc $?" >>"$SCRATCH/x.o"
    xs=$(state)
    test_eq "--devices names the filtered $L: $cmd prints as LVM2" \
        "$(side_filter <"$SCRATCH/l.o")" "$(side_filter <"$SCRATCH/x.o")"
    test_eq "... and leaves the PVs as LVM2 does" "$ls" "$xs"
done
test_eq "LVM2 wrote with --devices (its vgextend took $L)" "1" "$(grep -c "^ $L $VG" <<<"$ls")"

lvm2 vgremove -q -f "$VG" >/dev/null 2>&1
lvm2 pvremove -q -ff -y "$M" "$L" "$N" >/dev/null 2>&1
done_testing
