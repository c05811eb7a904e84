#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0947-pvscan-udev: what LVM2's udev rule runs when a PV appears
# (`pvscan --cache --listvg --checkcomplete --vgonline --autoactivation event
# --udevoutput DEV`) and its relatives (--listlvs, without --checkcomplete, without
# --udevoutput), lvx side by side with the real LVM2 on the same loop devices
# (issue 15): same stdout, stderr (PIDs aside) and exit code, in the same sequence:
# a VG of two PVs incomplete after the first, complete after the second, "finished"
# once its online record exists; the orphan PV "not used", a device without a label
# "not an lvm device"; global/event_activation = 0 and --autoactivation other than
# "event" as LVM2; the option combinations LVM2's command table refuses (exit 3,
# silent with --udevoutput).  LVM2 keeps its records in /run/lvm (only this test's
# PVs and VG are removed from there, before and after); lvx in its run directory.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/side.sh"


VG=vgud$$
side_setup 4
PVIDS=()
forget() {      # LVM2's and lvx's online records of this test's PVs and VG
    local pv
    for pv in "${PVIDS[@]}"; do rm -f "/run/lvm/pvs_online/$pv"; done
    rm -f "/run/lvm/pvs_lookup/$VG" "/run/lvm/vgs_online/$VG"
    rm -rf "$LVX_RUN_DIR/pvs_online" "$LVX_RUN_DIR/vgs_online"
}
t0947_cleanup() { forget; cleanup; }
trap t0947_cleanup EXIT

lvm2 pvcreate -q "${D[0]}" "${D[1]}" "${D[2]}" >/dev/null 2>&1
lvm2 vgcreate -q "$VG" "${D[0]}" "${D[1]}" >/dev/null 2>&1
lvm2 lvcreate -q -n one -L 8m "$VG" "${D[0]}" >/dev/null 2>&1
lvm2 lvcreate -q -n two -L 8m -i 2 "$VG" >/dev/null 2>&1
mapfile -t PVIDS < <(lvm2 pvs --noheadings -o pv_uuid "${D[0]}" "${D[1]}" "${D[2]}" 2>/dev/null | tr -d ' -')
test_eq "LVM2 made a VG of two PVs with two LVs, and an orphan PV" "3 2" \
    "${#PVIDS[@]} $(lvm2 vgs --noheadings -o lv_count "$VG" 2>/dev/null | tr -d ' ')"
UDEV=(--cache --listvg --checkcomplete --vgonline --autoactivation event --udevoutput)

forget
same "udev rule: first PV, VG incomplete" pvscan "${UDEV[@]}" "${D[0]}"
test_eq "... LVM2's line" "LVM_VG_NAME_INCOMPLETE='$VG'" "$(cat "$SCRATCH/x.out")"
same "udev rule: second PV, VG complete" pvscan "${UDEV[@]}" "${D[1]}"
test_eq "... LVM2's line" "LVM_VG_NAME_COMPLETE='$VG'" "$(cat "$SCRATCH/x.out")"
same "udev rule again: VG already online, nothing printed" pvscan "${UDEV[@]}" "${D[1]}"
same "udev rule: orphan PV" pvscan "${UDEV[@]}" "${D[2]}"
same "udev rule: no PV label" pvscan "${UDEV[@]}" "${D[3]}"

forget
same "--listvg" pvscan --cache --listvg "${D[0]}"
same "--listlvs (LVs on the PV)" pvscan --cache --listlvs "${D[1]}"
forget
same "--listlvs --checkcomplete: incomplete" pvscan --cache --listlvs --checkcomplete "${D[0]}"
same "--listlvs --checkcomplete: complete" pvscan --cache --listlvs --checkcomplete "${D[1]}"
same "--listvg --checkcomplete --vgonline: complete" pvscan --cache --listvg --checkcomplete --vgonline "${D[1]}"
same "--listvg --checkcomplete --vgonline: finished" pvscan --cache --listvg --checkcomplete --vgonline "${D[1]}"
same "--listvg orphan PV" pvscan --cache --listvg --checkcomplete "${D[2]}"
same "--listvg without --cache" pvscan --listvg "${D[0]}"
same "event_activation=0" pvscan --cache --listvg --checkcomplete --config global/event_activation=0 "${D[0]}"
same "event_activation=0 --udevoutput" pvscan "${UDEV[@]}" --config global/event_activation=0 "${D[0]}"
same "--autoactivation foo" pvscan --cache --listvg --autoactivation foo "${D[0]}"

# ---- refused combinations
same "--listvg without PV" pvscan --cache --listvg
same "--listvg with two PVs" pvscan --cache --listvg "${D[0]}" "${D[1]}"
same "--checkcomplete without --listvg" pvscan --cache --checkcomplete "${D[0]}"
same "--checkcomplete --udevoutput without --listvg: silent" pvscan --cache --checkcomplete --udevoutput "${D[0]}"
same "--listlvs --udevoutput: silent" pvscan --cache --listlvs --checkcomplete --udevoutput "${D[0]}"
same "-aay with --listvg" pvscan --cache -aay --listvg --checkcomplete "${D[0]}"
forget

done_testing
