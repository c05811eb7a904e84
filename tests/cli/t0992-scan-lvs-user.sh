#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0992-scan-lvs-user: LVM2's devices/scan_lvs in the user-space backend (the lvx
# daemon serves an LV on a loop device, $DM_DEV_DIR/vg1/lv1 links to it; such a loop
# device is an LV, dev/lv_dev.c):
#   * scan_lvs 0 (the default): pvcreate, vgcreate and pvs of the LV are refused with
#     LVM2's "Cannot use NAME: device is an LV" (exit 5); pvs does not list it;
#   * scan_lvs 1: pvcreate, vgcreate vg2 on it, lvcreate, vgchange -ay vg2 (the
#     daemon serves vg2/top over vg1/lv1); data written to vg2/top reads back through
#     it, through vg1/lv1 at vg2's pe_start and on vg1's PV at both offsets; LVM2
#     (seeing the loop device as a plain disk) reads vg2 and vgck passes; with
#     scan_lvs 0 vg2 is not found;
#   * the filters match an LV by its $DM_DEV_DIR/VG/LV and $DM_DEV_DIR/mapper/VG-LV
#     names (a system scan whose global_filter accepts only that alias lists it);
#   * the lower LV is in use while vg2 is active: lvchange -an vg1/lv1 "Logical volume
#     vg1/lv1 is used by another device.", vgchange -an vg1 also "Can't deactivate volume group "vg1" with
#     1 open logical volume(s)" (exit 5, LVM2's lines); after vgchange -an vg2 both go.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_loop
need_cmd lvm
need_lvx
[[ -e /dev/fuse ]] || skip_all "no /dev/fuse"
plan_later
D1=$(make_loop 64M) || { _tap_result 1 "loop devices"; done_testing; }
mkdir -p "$SCRATCH/dev"
L=$SCRATCH/dev/vg1/lv1
CF=""
X1() { lvx "$@" --devices "$D1"; }
X() { lvx "$@" --devices "$D1,$L"; }
# user backend, activation on, $CF added to the configuration
U() { DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user X "$@" --config "global { activation = 1 } $CF"; }
ON='devices/scan_lvs=1'
# out CMD...: "rc lines" of a command (stderr and stdout, leading blanks dropped)
out() { local o rc=0; o=$("$@" 2>&1 | sandbox_noise | sed 's/^ *//'; exit "${PIPESTATUS[0]}") || rc=$?; echo "$rc $o"; }

test_ok "vg1 on D1, lv1 16m" sh -c \
    "'$LVX' pvcreate -q $D1 --devices $D1 && '$LVX' vgcreate -q vg1 $D1 --devices $D1 &&
     '$LVX' lvcreate -q -an -Zn -L 16m -n lv1 vg1 --devices $D1 >/dev/null"
test_ok "vg1/lv1 activated (user backend)" env DM_DEV_DIR="$SCRATCH/dev" LVX_ACTIVATION_BACKEND=user \
    "$LVX" lvchange -ay vg1/lv1 --devices "$D1" --config 'global { activation = 1 }'
test_ok "$L is a link to a loop device" test -b "$L" -a -L "$L"
LOOP=$(readlink -f "$L")

# ---------------------------------------------------------------- scan_lvs 0
cant="5 Cannot use $L: device is an LV"
test_eq "scan_lvs 0: pvcreate LV refused" "$(out X pvcreate "$L")" "$cant"
test_eq "scan_lvs 0: vgcreate vg2 LV refused" "$(out X vgcreate vg2 "$L")" "$cant
Command requires all devices to be found."
test_eq "scan_lvs 0: pvs LV refused" "$(out X pvs "$L")" "$cant"
test_eq "scan_lvs 0: no label was written" "$(od -An -c -j 512 -N 8 "$LOOP" | tr -d ' ')" \
    '\0\0\0\0\0\0\0\0'

# ---------------------------------------------------------------- scan_lvs 1
test_eq "scan_lvs 1: pvcreate LV" "$(out X pvcreate "$L" --config $ON)" \
    "0 Physical volume \"$L\" successfully created."
test_eq "scan_lvs 1: pvs lists it" "$(X pvs --noheadings -o pv_name --config $ON | tr -d ' ' | sort)" \
    "$(printf '%s\n%s\n' "$D1" "$L" | sort)"
test_eq "scan_lvs 0: pvs does not" "$(X pvs --noheadings -o pv_name | tr -d ' ')" "$D1"
test_ok "scan_lvs 1: vgcreate vg2 LV, lvcreate vg2/top 8m" sh -c \
    "'$LVX' vgcreate -q vg2 $L --devices $D1,$L --config $ON &&
     '$LVX' lvcreate -q -an -Zn -L 8m -n top vg2 --devices $D1,$L --config $ON >/dev/null"
test_eq "scan_lvs 0: vg2 not found" "$(out X vgs vg2)" "5 Volume group \"vg2\" not found
Cannot process volume group vg2"
CF="devices { scan_lvs = 1 }"
test_eq "scan_lvs 1: vgchange -ay vg2" "$(out U vgchange -ay vg2)" \
    '0 1 logical volume(s) in volume group "vg2" now active'
T=$SCRATCH/dev/vg2/top
test_ok "vg2/top is a block device" test -b "$T"
head -c 1M /dev/urandom >"$SCRATCH/data"
dd if="$SCRATCH/data" of="$T" bs=1M seek=1 oflag=direct conv=notrunc status=none
want=$(sha256sum <"$SCRATCH/data" | cut -d' ' -f1)
# rd DEV OFFSET: sha256 of the MiB at byte OFFSET of DEV
rd() { dd if="$1" bs=1M skip="$2" count=1 iflag=direct,skip_bytes status=none | sha256sum | cut -d' ' -f1; }
pe() { X pvs --noheadings --units b --nosuffix -o pe_start --config $ON "$1" | tr -d ' '; }
pe1=$(pe "$D1")
pe2=$(pe "$L")
test_eq "the data reads back through vg2/top" "$(rd "$T" 1048576)" "$want"
test_eq "... through vg1/lv1 at vg2's pe_start + 1 MiB" \
    "$(rd "$L" $((pe2 + 1048576)))" "$want"
test_eq "... on D1 at vg1's + vg2's pe_start + 1 MiB" \
    "$(rd "$D1" $((pe1 + pe2 + 1048576)))" "$want"
test_eq "LVM2 reads vg2 on the loop device" \
    "$(lvm2 lvs --noheadings -o lv_name,lv_size vg2 --devices "$LOOP" 2>/dev/null | tr -s ' ')" " top 8.00m"
test_ok "LVM2's vgck vg2 passes" lvm2 vgck vg2 --devices "$LOOP"

# ---------------------------------------------------------------- filters by alias
S() { DM_DEV_DIR=$SCRATCH/dev lvx pvs --noheadings -o pv_name,vg_name --config "devices { scan_lvs = $1 global_filter = [ $2 \"r|.*|\" ] }" | tr -s ' '; }
# a device accepted by another of its names is reported by that name (LVM2's
# dev_set_preferred_name in its regex filter)
test_eq "system scan, filter accepts $SCRATCH/dev/vg1/lv1: listed by that name" \
    "$(S 1 "\"a|^$SCRATCH/dev/vg1/lv1\$|\",")" " $SCRATCH/dev/vg1/lv1 vg2"
test_eq "system scan, filter accepts $SCRATCH/dev/mapper/vg1-lv1: listed by that name" \
    "$(S 1 "\"a|^$SCRATCH/dev/mapper/vg1-lv1\$|\",")" " $SCRATCH/dev/mapper/vg1-lv1 vg2"
test_eq "system scan, filter accepts $LOOP: listed" "$(S 1 "\"a|^$LOOP\$|\",")" " $LOOP vg2"
test_eq "system scan, filter accepts another name: not listed" \
    "$(S 1 "\"a|^$SCRATCH/dev/vg1/other\$|\",")" ""
test_eq "system scan, alias accepted but scan_lvs 0: not listed" \
    "$(S 0 "\"a|^$SCRATCH/dev/vg1/lv1\$|\",")" ""
# LVM2's regex filter judges each name by its first matching pattern and accepts the
# device when one name is accepted (lib/filters/filter-regex.c _accept_p)
test_eq "system scan, alias rejected but the device's name accepted: listed" \
    "$(S 1 "\"r|^$SCRATCH/dev/vg1/lv1\$|\", \"a|^$LOOP\$|\",")" " $LOOP vg2"
test_eq "system scan, the device's name rejected but an alias accepted: listed by the alias" \
    "$(S 1 "\"r|^$LOOP\$|\", \"a|^$SCRATCH/dev/mapper/vg1-lv1\$|\",")" " $SCRATCH/dev/mapper/vg1-lv1 vg2"
test_eq "system scan, alias rejected, no name accepted: not listed" \
    "$(S 1 "\"r|^$SCRATCH/dev/vg1/lv1\$|\", \"a|^$SCRATCH/dev/vg1/lv1\$|\",")" ""

# ---------------------------------------------------------------- deactivation order
test_eq "lvchange -an vg1/lv1 under active vg2: LVM2's refusal" "$(out U lvchange -an vg1/lv1)" \
    "5 Logical volume vg1/lv1 is used by another device."
test_eq "vgchange -an vg1 under active vg2: LVM2's refusal" "$(out U vgchange -an vg1)" \
    "5 Logical volume vg1/lv1 is used by another device.
Can't deactivate volume group \"vg1\" with 1 open logical volume(s)"
test_eq "lvs: vg1/lv1 still active and open" "$(U lvs --noheadings -o lv_attr vg1/lv1 | tr -d ' ')" "-wi-ao----"
test_eq "vgchange -an vg2" "$(out U vgchange -an vg2)" '0 0 logical volume(s) in volume group "vg2" now active'
test_eq "then vgchange -an vg1" "$(out U vgchange -an vg1)" '0 0 logical volume(s) in volume group "vg1" now active'
test_ok "vg1 removed" "$LVX" vgremove -ff -q vg1 --devices "$D1"
done_testing
