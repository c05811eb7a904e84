#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1028-pvremove-partial-devicesfile: pvremove of three PVs listed in LVM2's devices file
# (devices/use_devicesfile = 1) where the label write of one fails (the I/O seam's
# LVX_TEST_FAIL_WRITE): exit 5 with the failed device named, the other two wiped, and
# their entries' PVIDs cleared in the devices file as LVM2 leaves it after removing
# those two (cmd/pvremove.c).  The failed device keeps its label and its PVID.  The
# earlier pvremove updated the file only when every device was wiped: the two wiped
# PVs kept their PVIDs (the file check fails on that binary).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/side.sh
. "$LVX_ROOT/tests/tools/side.sh"

side_setup 3
CONF=$SCRATCH/lvm/lvm.conf
DF=$SCRATCH/lvm/devices/system.devices
sed -i -E "s/use_devicesfile = [01]/use_devicesfile = 1/" "$CONF"
mkdir -p "$(dirname "$DF")"

lvm2 pvcreate -q -y "${D[@]}" >/dev/null 2>&1
for d in "${D[@]}"; do lvm2 lvmdevices -y --adddev "$d" >/dev/null 2>&1; done
uuid() { lvm2 pvs --noheadings -o pv_uuid "$1" 2>/dev/null | tr -d ' '; }
U=()
for d in "${D[@]}"; do U+=("$(uuid "$d")"); done
test_eq "three PVs, each listed with its PVID" \
    "$(for u in "${U[@]}"; do grep -c "PVID=${u//-/}\$" "$DF"; done | paste -sd,)" "1,1,1"
cp "$DF" "$SCRATCH/start.devices"
body() { sed 2d "$1"; }            # line 2 names the command, its PID and time

LOG=$SCRATCH/io.log
rc=0
LVX_TEST_FAIL_WRITE=2 LVX_TEST_IO_LOG=$LOG lvx pvremove -q "${D[@]}" >"$SCRATCH/out" 2>"$SCRATCH/err" || rc=$?
test_eq "pvremove with the second label write failing: exit 5" "$rc" 5
failed=$(awk '$1 == "failwrite" { print $NF }' "$LOG")
test_eq "... one write failed, on the second device" "$failed" "${D[1]}"
test_ok "... the failed device named in the error" grep -q "Failed to wipe the label of ${D[1]}" "$SCRATCH/err"
test_eq "... the other two wiped, the failed one still a PV" \
    "$(lvm2 pvs --devicesfile "" --noheadings -o pv_name "${D[@]}" 2>/dev/null | awk '{ print $1 }' | paste -sd,)" \
    "${D[1]}"
cp "$DF" "$SCRATCH/x.devices"

# LVM2 from the same start: the same three PVs (same PVIDs), it removes the two lvx wiped
cp "$SCRATCH/start.devices" "$DF"
for i in 0 2; do
    lvm2 pvcreate -q -y -ff --norestorefile --uuid "${U[$i]}" "${D[$i]}" >/dev/null 2>&1
done
test_eq "LVM2: the three PVs again with their PVIDs" \
    "$(for d in "${D[@]}"; do uuid "$d"; done | paste -sd' ')" "${U[*]}"
cp "$SCRATCH/start.devices" "$DF"
lvm2 pvremove -q -y "${D[0]}" "${D[2]}" >/dev/null 2>&1
cp "$DF" "$SCRATCH/l.devices"
test_eq "the devices file as LVM2 leaves it after removing the two wiped PVs" \
    "$(body "$SCRATCH/x.devices")" "$(body "$SCRATCH/l.devices")"
test_eq "... the failed device keeps its PVID, the wiped ones have none" \
    "$(for u in "${U[@]}"; do grep -c "PVID=${u//-/}\$" "$SCRATCH/x.devices"; done | paste -sd,)" "0,1,0"
test_ok "... the file was rewritten (a new version)" \
    bash -c '! cmp -s "$1" "$2"' _ "$SCRATCH/start.devices" "$SCRATCH/x.devices"

lvm2 pvremove -q -y "${D[@]}" >/dev/null 2>&1
done_testing
