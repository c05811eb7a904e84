#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0971-display-restore-forms: two differences LVM2's test suite found (issue 21), lvx
# beside the real LVM2 (activation off) on the same loop devices:
#   - pvdisplay, vgdisplay, lvdisplay: LVM2's checks of their options (tools/*display.c):
#     -C with -c, -s or -m, report options without -C (pvdisplay: also -a), -c with -m
#     or -s: LVM2's lines, exit 3; vgdisplay has no --all (listings, its lines 152-176);
#     vgdisplay -A lists only VGs with an active LV (listings, its line 218);
#   - pvcreate --restorefile --metadatacopies 2 on a PV whose restored extents reach
#     the end of the device: no room for the second metadata area, LVM2's lines, exit 5,
#     nothing written (pvcreate-operation, its line 178).
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/side.sh"

VG=vgdr$$
side_setup 2
plan_later
lvm2 vgcreate -q "$VG" "${D[0]}" >/dev/null 2>&1
lvm2 lvcreate -q -an -L 4m -n lv1 "$VG" >/dev/null 2>&1

for a in "-C -c" "-C -s" "-c -s" "--aligned" "--noheadings" "--separator :" "--sort size" \
    "--unbuffered" "--binary"; do
    # shellcheck disable=SC2086
    same "vgdisplay $a: as LVM2" vgdisplay $a
done
for a in "--all" "-C --all"; do     # the parser's words differ (getopt's program name)
    # shellcheck disable=SC2086
    side vgdisplay $a
    test_eq "vgdisplay $a: an unknown option, exit 3 as LVM2" \
        "$(cat "$SCRATCH/x.rc") $(grep -c "unrecognized option '--all'" "$SCRATCH/x.err")" \
        "$(cat "$SCRATCH/l.rc") 1"
done
for a in "-C -c" "-C -m" "-C -s" "-c -m" "-c -s" "--aligned" "--all" "--noheadings" \
    "--separator :" "--sort size" "--unbuffered"; do
    # shellcheck disable=SC2086
    same "pvdisplay $a: as LVM2" pvdisplay $a
done
for a in "-C -m" "-C -c" "-c -m" "--aligned" "--noheadings" "--separator :" "--sort size" \
    "--unbuffered"; do
    # shellcheck disable=SC2086
    same "lvdisplay $a $VG: as LVM2" lvdisplay $a "$VG"
done
same "vgdisplay -C $VG still the vgs report" vgdisplay -C "$VG"
same "pvdisplay -c ${D[0]} still the colon line" pvdisplay -c "${D[0]}"

same "vgdisplay -C -A: as LVM2" vgdisplay -C -A
same "vgdisplay -A VG: as LVM2" vgdisplay -A "$VG"
same "vgdisplay -s -A, activation off: no VG is active, as LVM2" vgdisplay -s -A
# -A through lvx's user backend: only the VG with an active LV (listings, its line 218)
if [[ -c /dev/fuse ]]; then
    mkdir -p "$SCRATCH/dev"
    U() { DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user lvx "$@" --config 'global { activation = 1 }'; }
    lvm2 vgcreate -q "${VG}b" "${D[1]}" >/dev/null 2>&1
    lvm2 lvcreate -q -an -L 4m -n lv2 "${VG}b" >/dev/null 2>&1
    U lvchange -ay "$VG/lv1" >/dev/null 2>&1
    test_eq "vgdisplay -s -A: the VG with an active LV only" \
        "$(U vgdisplay -s -A 2>/dev/null | grep -o "\"$VG[b]*\"" | xargs)" "$VG"
    U vgchange -an "$VG" >/dev/null 2>&1
    test_eq "... none once it is deactivated" "$(U vgdisplay -s -A 2>/dev/null | grep -c "$VG")" "0"
    lvm2 vgremove -ff "${VG}b" >/dev/null 2>&1
else
    for i in 1 2; do test_skip "vgdisplay -A $i" "no /dev/fuse (user activation backend)"; done
fi

# ---- pvcreate --restorefile --metadatacopies 2 without room after the extents
lvm2 vgremove -ff "$VG" >/dev/null 2>&1
U=freddy-fred-fred-fred-fred-fred-freddy
lvm2 pvcreate -q --norestorefile --uuid "$U" "${D[1]}" >/dev/null 2>&1
lvm2 vgcreate -q --physicalextentsize 1m "$VG" "${D[1]}" >/dev/null 2>&1
lvm2 vgcfgbackup -f "$SCRATCH/bk" "$VG" >/dev/null 2>&1
lvm2 vgremove -ff "$VG" >/dev/null 2>&1
lvm2 pvremove -ff "${D[1]}" >/dev/null 2>&1
SIDE_SKIP="Couldn't find device with uuid"
rc=0
lvm2 pvcreate --restorefile "$SCRATCH/bk" --uuid "$U" --metadatacopies 2 "${D[1]}" \
    >"$SCRATCH/l.out" 2>"$SCRATCH/l.err" || rc=$?
lrc=$rc rc=0
lvm2 pvremove -ff "${D[1]}" >/dev/null 2>&1
lvx pvcreate --restorefile "$SCRATCH/bk" --uuid "$U" --metadatacopies 2 "${D[1]}" \
    >"$SCRATCH/x.out" 2>"$SCRATCH/x.err" || rc=$?
test_eq "pvcreate --restorefile --metadatacopies 2, no room after the extents: exit as LVM2" \
    "$rc" "$lrc"
test_eq "... LVM2's lines" "$(cat "$SCRATCH/x.err")" \
    "$(grep -v "$SIDE_SKIP\|Activation disabled" "$SCRATCH/l.err")"
test_eq "... no PV written" "$(lvm2 pvs --noheadings -o pv_name "${D[1]}" 2>/dev/null | xargs)" ""
rc=0
lvx pvcreate -q --restorefile "$SCRATCH/bk" --uuid "$U" --metadatacopies 1 "${D[1]}" >/dev/null 2>&1 || rc=$?
test_eq "... with one metadata area the PV is made, LVM2 reads its pe_start" \
    "$rc $(lvm2 pvs --noheadings --units s -o pv_uuid,pe_start "${D[1]}" 2>/dev/null | xargs)" \
    "0 $U 2048S"
lvm2 pvremove -ff "${D[1]}" >/dev/null 2>&1
done_testing
