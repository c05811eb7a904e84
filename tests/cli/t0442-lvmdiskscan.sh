#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0442-lvmdiskscan: `lvmdiskscan` (and -l/--lvmpartition, -v, --readonly) side by side
# with LVM2 2.03 on the same loop devices: stdout, stderr and exit code equal with no
# PV, with orphan PVs and a VG, with the VG exported, with devices/pv_min_size and
# global/units set, and for bad command lines.  The devices include /dev/loop1NN and
# /dev/loop3NN (minor >= 256: LVM2 lists devices in the order of its device tree, whose
# key is the device number with its bytes reversed, so loop3NN comes before loop1NN)
# and a 1 MiB device below pv_min_size with the longest name (left out, and not counted
# in the name column's width).  Also: global/units is the unit of pvscan and pvdisplay
# as in LVM2, and `lvx shell` runs lvmdiskscan twice with the same output.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/side.sh"

need_loop
need_lvx
need_cmd lvm
D=("$(make_loop 64M)" "$(make_loop 64M)" "$(make_loop 64M)")
truncate -s 64M "$SCRATCH/high.img"
truncate -s 32M "$SCRATCH/mid.img"
truncate -s 1M "$SCRATCH/small.img"
HIGH=$(attach_loop_from 300 "$SCRATCH/high.img") || skip_all "no loop device >= 300"
MID=$(attach_loop_from 100 "$SCRATCH/mid.img") || skip_all "no loop device >= 100"
SMALL=$(attach_loop_from 1000 "$SCRATCH/small.img") || skip_all "no loop device >= 1000"
ALL=("${D[@]}" "$HIGH" "$MID" "$SMALL")
lvm_sandbox "${ALL[@]}"
mkdir -p -m 0700 "$SCRATCH/run"
export LVX_RUN_DIR=$SCRATCH/run
VG=vgds$$

# same_scan DESC ARGS...: `same` for lvmdiskscan ARGS, and the output has every line
same_scan() {
    local d=$1
    shift
    same "$d" lvmdiskscan "$@"
    if sanitizer_report "$SCRATCH/x.eraw"; then
        _tap_result 1 "$d: no sanitizer report"
        _diag_file stderr "$SCRATCH/x.eraw"
    fi
}

# --- no PV --------------------------------------------------------------------------
same_scan "no PV: lvmdiskscan as LVM2"
test_eq "no PV: the 64 MiB devices and the 32 MiB one listed, the 1 MiB one left out" \
    "$(grep -c '^  /dev/loop[0-9]* *\[ *\(64\|32\)\.00 MiB\] $' "$SCRATCH/x.out")/$(grep -c "$SMALL " "$SCRATCH/x.out")" "5/0"
test_eq "no PV: counts (loop names end in a digit: partitions)" \
    "$(tail -n 4 "$SCRATCH/x.out" | tr -s ' ' | paste -sd,)" \
    " 0 disks, 5 partitions, 0 LVM physical volume whole disks, 0 LVM physical volumes"
test_eq "no PV: LVM2's device-tree order (loop3NN before loop1NN)" \
    "$(grep -n -e "$HIGH " -e "$MID " "$SCRATCH/x.out" | cut -d: -f2 | awk '{print $1}' | paste -sd' ')" \
    "$HIGH $MID"
same_scan "no PV: -l as LVM2" -l

# --- orphan PVs and a VG --------------------------------------------------------------
lvm2 pvcreate -q "${D[0]}" "$HIGH" >/dev/null 2>&1
lvm2 vgcreate -q "$VG" "${D[1]}" >/dev/null 2>&1
lvm2 lvcreate -q -an -n lv1 -L 8m "$VG" >/dev/null 2>&1
test_eq "LVM2 made 3 PVs" "3" "$(lvm2 pvs --noheadings 2>/dev/null | wc -l)"
same_scan "PVs: lvmdiskscan as LVM2"
test_eq "PVs: the PVs are marked" "3" "$(grep -c '\] LVM physical volume$' "$SCRATCH/x.out")"
same_scan "PVs: -l as LVM2" -l
same_scan "PVs: --lvmpartition as LVM2" --lvmpartition
test_eq "PVs: -l lists the PVs only, with the two PV counts" "5" "$(wc -l <"$SCRATCH/x.out")"
same_scan "PVs: -v as LVM2" -v
same_scan "PVs: --readonly -l as LVM2" --readonly -l
same_scan "PVs: pv_min_size 40000 KiB leaves the 32 MiB device out" \
    --config 'devices/pv_min_size=40000'
test_eq "PVs: pv_min_size 40000 KiB: $MID not listed" "$(grep -c "$MID " "$SCRATCH/x.out")" "0"
same_scan "PVs: pv_min_size 100 KiB (LVM2's warning, the 1 MiB device listed)" \
    --config 'devices/pv_min_size=100'
test_eq "PVs: pv_min_size 100 KiB: $SMALL listed" "1" "$(grep -c "$SMALL " "$SCRATCH/x.out")"
for u in k G s r; do
    same_scan "PVs: global/units=$u as LVM2" --config "global/units=$u"
done
same "pvscan with global/units=k as LVM2" pvscan --config 'global/units=k'
# PVs in no VG come in LVM2's device-cache order (loop3NN before loop1NN; by name
# loop1NN would come first)
lvm2 pvcreate -q "$MID" >/dev/null 2>&1
same "pvscan: PVs in no VG in LVM2's device-tree order" pvscan
# the premise of the check above: LVM2's own order here is not the order of names, so
# an lvx sorting by name would fail it
test_eq "premise: LVM2 lists $HIGH before $MID" "$HIGH $MID" \
    "$(grep -o -e "$HIGH " -e "$MID " "$SCRATCH/l.out" | paste -sd' ' | sed 's/  */ /g; s/ $//')"
lvm2 pvremove -q "$MID" >/dev/null 2>&1
same "pvdisplay with global/units=k as LVM2" pvdisplay --config 'global/units=k' "${D[0]}"
same "vgdisplay with global/units=m as LVM2" vgdisplay --config 'global/units=m' "$VG"
same "lvscan with global/units=k as LVM2" lvscan --config 'global/units=k'

# --- exported VG --------------------------------------------------------------------
lvm2 vgexport "$VG" >/dev/null 2>&1
test_eq "LVM2 exported the VG" "x" "$(lvm2 vgs --noheadings -o vg_attr "$VG" 2>/dev/null | cut -c5)"
same_scan "exported VG: lvmdiskscan as LVM2 (its PV listed)"
test_eq "exported VG: ${D[1]} is a PV" "1" "$(grep -c "^  ${D[1]} .*LVM physical volume$" "$SCRATCH/x.out")"
same_scan "exported VG: -l as LVM2" -l
lvm2 vgimport "$VG" >/dev/null 2>&1

# --- lvx shell: the second scan comes from the session cache ------------------------
printf 'lvmdiskscan\nlvmdiskscan\n' | lvx shell >"$SCRATCH/sh.out" 2>"$SCRATCH/sh.err"
lvm2 lvmdiskscan >"$SCRATCH/one.out" 2>/dev/null
test_eq "lvx shell: two lvmdiskscans print LVM2's output twice" \
    "$(grep -v '^lvm> ' "$SCRATCH/sh.out")" "$(cat "$SCRATCH/one.out" "$SCRATCH/one.out")"

# --- bad command lines ----------------------------------------------------------------
same "an argument: LVM2's message, exit 3" lvmdiskscan "${D[0]}"
for bad in "--units m" -a -s; do
    # shellcheck disable=SC2086
    side lvmdiskscan $bad
    test_eq "lvmdiskscan $bad: exit code as LVM2's (3)" "$(cat "$SCRATCH/x.rc")/$(cat "$SCRATCH/l.rc")" "3/3"
done

lvm2 vgremove -q -f "$VG" >/dev/null 2>&1
done_testing
