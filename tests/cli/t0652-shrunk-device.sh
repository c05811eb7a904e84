#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0652-shrunk-device: a PV whose device shrank below its recorded size (issue 14,
# item 7), lvx side by side with LVM2 on the same two loop devices (64 MiB, 4 MiB
# extents: 15 each).  The first device's file is truncated to 40 MiB (losetup -c):
#   - vgs, pvs, lvs, lvcreate print LVM2's two warnings ("Device ... has size of ...
#     sectors which is smaller than corresponding PV size of ... sectors. Was device
#     resized?", "One or more devices used as PVs in VG ... have changed sizes."), the
#     same lines as LVM2, same exit codes; metadata/check_pv_device_sizes = 0 silences
#     both;
#   - deliberate difference: LVM2's allocator places extents past the device's end
#     (shown with lvcreate --test); lvx leaves them out ("Not using N free extents ...
#     beyond the end of its device."): a request that needs them fails (exit 5, no
#     write), percentages and other PVs get only extents that exist, as LVM2's own
#     report of the result shows;
#   - with the device grown back the warnings are gone and the extents usable again.
source "$(dirname "$0")/../lib.sh"

need_loop
need_lvx
need_cmd lvm truncate

VG=vgshr$$
D=()
mapfile -t D < <(make_loops 2 64M)
lvm_sandbox "${D[@]}"
export LVM_SYSTEM_DIR=$SCRATCH/lvm     # lvx reads the same lvm.conf (activation off)
t0652_cleanup() {
    "$LVX" vgremove -ff "$VG" >/dev/null 2>&1
    cleanup
}
trap t0652_cleanup EXIT
X() { "$LVX" "$@" --devices "${D[0]},${D[1]}"; }

test_ok "pvcreate, vgcreate" sh -c "'$LVX' pvcreate -q ${D[*]} && '$LVX' vgcreate -q $VG ${D[*]}"
test_ok "lvcreate a: 3 extents on the first PV" X lvcreate -an -Zn -n a -l 3 "$VG" "${D[0]}"
img=$(losetup -nO BACK-FILE "${D[0]}" | sed 's/ *$//')
test_ok "shrink the first device to 40 MiB" sh -c "truncate -s 40M '$img' && losetup -c '${D[0]}'"
test_eq "... the kernel sees 81920 sectors" "81920" "$(blockdev --getsz "${D[0]}")"
# 1 MiB pe_start: extents 0-8 lie on the device, 9-14 past its end
ON_DEV=9

filt() { grep -v 'Activation disabled' "$1"; }
side() {  # side DESC ARGS...: lvx and LVM2 give the same stderr lines and exit code
    local desc=$1
    shift
    LVX_CMD=X both "$@"
    test_eq "$desc: exit code and stderr as LVM2" "$(cat "$SCRATCH/l.rc")
$(filt "$SCRATCH/l.err")" "$(cat "$SCRATCH/x.rc")
$(filt "$SCRATCH/x.err")"
}
w1="  WARNING: Device ${D[0]} has size of 81920 sectors which is smaller than corresponding PV size of 131072 sectors. Was device resized?"
w2="  WARNING: One or more devices used as PVs in VG $VG have changed sizes."
X vgs "$VG" >/dev/null 2>"$SCRATCH/x.err"
test_eq "vgs warns with LVM2's words" "$w1
$w2" "$(cat "$SCRATCH/x.err")"
side "vgs" vgs "$VG"
side "pvs" pvs -o pv_name,pv_size,dev_size,pv_pe_count
side "lvs" lvs "$VG"
side "vgs with metadata/check_pv_device_sizes=0 (no warning)" vgs \
    --config 'metadata/check_pv_device_sizes=0' "$VG"
test_eq "... lvx printed nothing on stderr then" "" "$(cat "$SCRATCH/x.err")"

# ---- allocation past the end
lvm2 lvcreate --test -an -Zn -n b -l 12 "$VG" "${D[0]}" >"$SCRATCH/l.out" 2>&1
test_eq "LVM2 would place 12 extents on the shrunk PV (lvcreate --test: exit 0)" "0" "$?"
before=$(sha_devs "${D[@]}")
X lvcreate -an -Zn -n b -l 12 "$VG" "${D[0]}" >"$SCRATCH/x.out" 2>"$SCRATCH/x.err"
test_eq "lvx refuses: exit 5" "5" "$?"
test_eq "... LVM2's two warnings first" "$w1
$w2" "$(head -n 2 "$SCRATCH/x.err")"
grep -qx "  WARNING: Not using 6 free extents of PV ${D[0]} beyond the end of its device." "$SCRATCH/x.err"
_tap_result $? "... saying which extents it does not use"
grep -q "Insufficient free space: 12 extents needed, but only 6 available" "$SCRATCH/x.err"
_tap_result $? "... and that only 6 are available"
test_eq "... nothing was written" "$before" "$(sha_devs "${D[@]}")"
test_fail "lvextend -l +7 a on the shrunk PV: refused" X lvextend -l +7 "$VG/a" "${D[0]}"
test_eq "... nothing was written" "$before" "$(sha_devs "${D[@]}")"

test_ok "lvcreate -l 100%PVS on the shrunk PV" X lvcreate -an -Zn -n b -l 100%PVS "$VG" "${D[0]}"
test_ok "lvcreate -l 100%FREE (both PVs)" X lvcreate -an -Zn -n c -l 100%FREE "$VG"
X lvcreate -an -Zn -n d -l 1 "$VG" >/dev/null 2>"$SCRATCH/x.err"
test_eq "lvcreate -l 1 with only past-the-end extents left: exit 5" "5" "$?"
grep -q 'Volume group "'"$VG"'" has insufficient free space (0 extents): 1 required.' "$SCRATCH/x.err"
_tap_result $? "... LVM2's words for a full VG"
# the highest PE of the first PV any LV uses, from LVM2's report
maxpe=$(lvm2 lvs --noheadings -o seg_pe_ranges "$VG" 2>/dev/null | tr ' ' '\n' |
    sed -n "s|^${D[0]}:[0-9]*-\([0-9]*\)\$|\1|p" | sort -n | tail -n 1)
test_eq "LVM2's report: no extent of the first PV past the device's end is used" \
    "$((ON_DEV - 1))" "$maxpe"
test_eq "b has the 6 extents that exist" "6" \
    "$(lvm2 lvs --noheadings -o seg_size_pe "$VG/b" 2>/dev/null | tr -d ' ')"
test_eq "c lies on the second PV only" "${D[1]}(0)" \
    "$(lvm2 lvs --noheadings -o devices "$VG/c" 2>/dev/null | tr -d ' ')"
test_ok "LVM2 vgck reads the VG" lvm2 vgck "$VG"
lvm2 lvcreate --test -an -Zn -n e -l 1 "$VG" >/dev/null 2>&1
test_eq "LVM2 would still place an extent past the end (--test: exit 0)" "0" "$?"

# ---- grown back
test_ok "grow the device back to 64 MiB" sh -c "truncate -s 64M '$img' && losetup -c '${D[0]}'"
X vgs "$VG" >/dev/null 2>"$SCRATCH/x.err"
test_eq "no warning any more" "" "$(cat "$SCRATCH/x.err")"
side "vgs" vgs "$VG"
test_ok "the 6 extents past the old end are allocatable again" \
    X lvcreate -an -Zn -n d -l 6 "$VG" "${D[0]}"
test_eq "... LVM2 sees them used" "${D[0]}:9-14" \
    "$(lvm2 lvs --noheadings -o seg_pe_ranges "$VG/d" 2>/dev/null | tr -d ' ')"
test_ok "vgremove" X vgremove -ff "$VG"
done_testing
