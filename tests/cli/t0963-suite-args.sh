#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0963-suite-args: arguments LVM2's own test suite uses (issue 21), lvx beside the real
# LVM2 on the same loop devices:
#   - vgreduce VG @tag removes the VG's PVs with the tag (process-each-vgreduce); a tag
#     no PV has removes nothing and succeeds;
#   - pvremove / pvcreate of a device outside --devices: "Cannot use DEV: device is
#     not in devices list", exit 5, nothing written (devicesfile-basic);
#   - LV arguments under lvm.conf devices/dir: DIR/VG/LV and DIR/mapper/VG-LV (with
#     '-' doubled inside names) name the LV, DIR/VG the VG (listings);
#   - vgck of a VG missing a PV (not found, or back but flagged MISSING while the VG
#     was written without it): "The volume group is missing N physical volumes.",
#     exit 5 (activate-missing, nomda-missing, *-restoremissing); a PV back whose
#     metadata areas are all ignored loses the flag on reading (nomda-restoremissing);
#   - a segment type with a flag LVM2 does not know ("zero+NEWFLAG") is an unknown type
#     as a whole, kept as written (unknown-segment; LVM2 also warns, lvx does not);
#   - vgextend --metadataignore y of a VG that keeps a number of metadata copies asks
#     LVM2's question first: no answer (no terminal) is no, exit 5, nothing changed;
#     -y goes on (vgextend-restoremissing);
#   - lvchange --refresh (activate-partial): accepted for an LV or a VG (inactive LVs
#     are left alone), refused with other changes and for an unknown LV as LVM2.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/side.sh"

VG=vgsa$$
side_setup 4

# ---- vgreduce VG @tag
# state: VG of D0..D2, D2 tagged; each side starts from it
setup_tagged() {
    lvm2 vgremove -ff "$VG" >/dev/null 2>&1
    lvm2 pvcreate -ff -y -q "${D[0]}" "${D[1]}" "${D[2]}" >/dev/null 2>&1
    lvm2 vgcreate -q "$VG" "${D[0]}" "${D[1]}" "${D[2]}" >/dev/null 2>&1
    lvm2 pvchange -q --addtag drop "${D[2]}" >/dev/null 2>&1
}
pvvg() { lvm2 pvs --noheadings -o pv_name,vg_name "${D[0]}" "${D[1]}" "${D[2]}" 2>/dev/null | awk '{print $1, $2}'; }
for who in lvm2 lvx; do
    setup_tagged
    rc=0; $who vgreduce "$VG" @drop >"$SCRATCH/$who.out" 2>&1 || rc=$?
    echo "$rc" >"$SCRATCH/$who.rc"
    pvvg >"$SCRATCH/$who.pvs"
    grep -v 'WARNING:' "$SCRATCH/$who.out" >"$SCRATCH/$who.msg"
done
test_eq "vgreduce VG @tag: LVM2's exit code" "$(cat "$SCRATCH/lvm2.rc")" "$(cat "$SCRATCH/lvx.rc")"
test_eq "vgreduce VG @tag: the same PVs left in the VG" "$(cat "$SCRATCH/lvm2.pvs")" "$(cat "$SCRATCH/lvx.pvs")"
test_eq "vgreduce VG @tag: the tagged PV is an orphan" "${D[2]} " \
    "$(grep -F "${D[2]}" "$SCRATCH/lvx.pvs")"
test_eq "vgreduce VG @tag: LVM2's message" "$(cat "$SCRATCH/lvm2.msg")" "$(cat "$SCRATCH/lvx.msg")"
setup_tagged
same "vgreduce VG @tag that no PV has: nothing removed, exit 0" vgreduce "$VG" @nosuch
test_eq "vgreduce VG @nosuch left the VG whole" "3" \
    "$(lvm2 vgs --noheadings -o pv_count "$VG" 2>/dev/null | tr -d ' ')"

# ---- a device outside --devices
lvm2 vgremove -ff "$VG" >/dev/null 2>&1
lvm2 pvcreate -ff -y -q "${D[2]}" >/dev/null 2>&1
lvm2 pvremove -q "${D[3]}" >/dev/null 2>&1
sum_before=$(sha_devs "${D[2]}" "${D[3]}")
same "pvremove of a PV outside --devices refused" pvremove --devices "${D[0]},${D[1]}" "${D[2]}"
same "pvcreate of a device outside --devices refused" pvcreate --devices "${D[0]},${D[1]}" "${D[3]}"
test_eq "nothing written to either device" "$sum_before" "$(sha_devs "${D[2]}" "${D[3]}")"
test_eq "the PV is still there" "1" "$(lvm2 pvs --noheadings "${D[2]}" 2>/dev/null | wc -l)"
rc=0; lvx pvremove --devices "${D[2]}" "${D[2]}" >"$SCRATCH/x.out" 2>&1 || rc=$?
test_eq "pvremove --devices naming the device: exit 0" "0" "$rc"
test_eq "pvremove --devices naming the device wiped it" "0" \
    "$(lvm2 pvs --noheadings "${D[2]}" 2>/dev/null | wc -l)"

# ---- LV arguments under devices/dir
lvm2 pvcreate -ff -y -q "${D[0]}" "${D[1]}" >/dev/null 2>&1
lvm2 vgcreate -q "$VG" "${D[0]}" "${D[1]}" >/dev/null 2>&1
lvm2 lvcreate -q -an -l1 -n my-lv "$VG" >/dev/null 2>&1
DD=$SCRATCH/devdir
mkdir -p "$DD/mapper"
C=(--config "devices/dir=\"$DD\"")
same "lvs DIR/VG/LV" lvs "${C[@]}" -o lv_name,vg_name "$DD/$VG/my-lv"
same "lvs DIR/mapper/VG-LV ('-' doubled)" lvs "${C[@]}" -o lv_name,vg_name "$DD/mapper/$VG-my--lv"
same "lvs DIR/VG" lvs "${C[@]}" -o lv_name "$DD/$VG"
same "lvs DIR/mapper/VG" lvs "${C[@]}" -o lv_name "$DD/mapper/$VG"
same "lvchange --refresh of an inactive LV" lvchange --refresh "$VG/my-lv"
same "lvchange --refresh of a VG" lvchange --refresh "$VG"
same "lvchange --refresh of an unknown LV" lvchange --refresh "$VG/nosuch"
same "lvchange --refresh with another change refused" lvchange --refresh --addtag x "$VG/my-lv"
same "lvchange --addtag DIR/mapper/VG-LV" lvchange "${C[@]}" --addtag t1 "$DD/mapper/$VG-my--lv"
lvx lvchange "${C[@]}" --addtag t2 "$DD/mapper/$VG-my--lv" >/dev/null 2>&1
test_eq "lvx's lvchange through DIR/mapper/VG-LV changed the LV" "t1,t2" \
    "$(lvm2 lvs --noheadings -o lv_tags "$VG/my-lv" 2>/dev/null | tr -d ' ')"

lvm2 vgremove -ff "$VG" >/dev/null 2>&1

# ---- vgck of a VG missing a PV
lvm2 pvcreate -ff -y -q "${D[0]}" "${D[1]}" >/dev/null 2>&1
lvm2 vgcreate -q "$VG" "${D[0]}" "${D[1]}" >/dev/null 2>&1
lvm2 lvcreate -q -an -l1 -n on0 "$VG" "${D[0]}" >/dev/null 2>&1
lvm2 lvcreate -q -an -l1 -n on1 "$VG" "${D[1]}" >/dev/null 2>&1
same "vgck of a whole VG: exit 0" vgck "$VG"
same "vgck without one PV: missing 1, exit 5" vgck --devices "${D[1]}" "$VG"
lvm2 lvremove -q -y --devices "${D[1]}" "$VG/on1" >/dev/null 2>&1
test_eq "LVM2 wrote the VG without the PV (it flagged it MISSING)" "1" \
    "$(lvm2 vgs --devices "${D[1]}" --noheadings -o lv_count "$VG" 2>/dev/null | tr -d ' ')"
same "vgck with the PV back but flagged MISSING: exit 5" vgck "$VG"
lvm2 vgremove -ff "$VG" >/dev/null 2>&1
# the same with the PV's metadata area ignored: LVM2 drops the flag on reading
lvm2 pvcreate -ff -y -q "${D[0]}" "${D[1]}" >/dev/null 2>&1
lvm2 vgcreate -q "$VG" "${D[0]}" "${D[1]}" >/dev/null 2>&1
lvm2 pvchange -q --metadataignore y "${D[0]}" >/dev/null 2>&1
lvm2 lvcreate -q -an -l1 -n on0 "$VG" "${D[0]}" >/dev/null 2>&1
lvm2 lvcreate -q -an -l1 -n on1 "$VG" "${D[1]}" >/dev/null 2>&1
lvm2 lvremove -q -y --devices "${D[1]}" "$VG/on1" >/dev/null 2>&1
side vgck "$VG"
test_eq "vgck, PV back flagged MISSING, its metadata area ignored: LVM2's exit code" \
    "$(cat "$SCRATCH/l.rc")" "$(cat "$SCRATCH/x.rc")"
test_eq "... and exit 0 (the flag dropped)" "0" "$(cat "$SCRATCH/x.rc")"
lvm2 vgremove -ff "$VG" >/dev/null 2>&1

# ---- vgextend --metadataignore against vgmetadatacopies
for who in lvm2 lvx; do
    lvm2 pvcreate -ff -y -q "${D[0]}" "${D[1]}" "${D[2]}" >/dev/null 2>&1
    lvm2 vgcreate -q "$VG" "${D[0]}" "${D[1]}" >/dev/null 2>&1
    lvm2 vgchange -q --vgmetadatacopies 1 "$VG" >/dev/null 2>&1
    rc=0; $who vgextend --metadataignore y --pvmetadatacopies 2 "$VG" "${D[2]}" \
        </dev/null >/dev/null 2>"$SCRATCH/$who.err" || rc=$?
    echo "$rc" >"$SCRATCH/$who.rc"
    grep -v -e WARNING -e "^Override preferred" "$SCRATCH/$who.err" >"$SCRATCH/$who.msg"
    lvm2 vgs --noheadings -o pv_count "$VG" 2>/dev/null | tr -d ' ' >"$SCRATCH/$who.n"
    rc=0; $who vgextend -y --metadataignore y "$VG" "${D[2]}" >/dev/null 2>&1 || rc=$?
    echo "$rc $(lvm2 vgs --noheadings -o pv_count "$VG" 2>/dev/null | tr -d ' ')" >"$SCRATCH/$who.y"
    lvm2 vgremove -ff "$VG" >/dev/null 2>&1
done
test_eq "vgextend --metadataignore, question unanswered: LVM2's exit code" \
    "$(cat "$SCRATCH/lvm2.rc")" "$(cat "$SCRATCH/lvx.rc")"
test_eq "... LVM2's error line" "$(cat "$SCRATCH/lvm2.msg")" "$(cat "$SCRATCH/lvx.msg")"
test_eq "... the VG not extended" "2" "$(cat "$SCRATCH/lvx.n")"
test_eq "vgextend -y --metadataignore: extended, as LVM2" "$(cat "$SCRATCH/lvm2.y")" "$(cat "$SCRATCH/lvx.y")"

# ---- a segment type with an unknown flag
lvm2 pvcreate -ff -y -q "${D[0]}" "${D[1]}" >/dev/null 2>&1
lvm2 vgcreate -q "$VG" "${D[0]}" "${D[1]}" >/dev/null 2>&1
lvm2 lvcreate -q -an -Zn --type zero -l1 -n z "$VG" >/dev/null 2>&1
lvm2 vgcfgbackup -f "$SCRATCH/bak0" "$VG" >/dev/null 2>&1
sed -i 's,"zero","zero+NEWFLAG",' "$SCRATCH/bak0"
lvm2 vgcfgrestore -f "$SCRATCH/bak0" "$VG" >/dev/null 2>&1
lvm2 lvs --noheadings -o segtype "$VG/z" 2>/dev/null | tr -d ' ' >"$SCRATCH/l.seg"
lvx lvs --noheadings -o segtype "$VG/z" 2>/dev/null | tr -d ' ' >"$SCRATCH/x.seg"
test_eq "LVM2 kept zero+NEWFLAG" "zero+NEWFLAG" "$(cat "$SCRATCH/l.seg")"
test_eq "lvs -o segtype: the unknown type as LVM2 shows it" "$(cat "$SCRATCH/l.seg")" "$(cat "$SCRATCH/x.seg")"
lvx vgcfgbackup -f "$SCRATCH/bak1" "$VG" >/dev/null 2>&1
test_eq "lvx's backup keeps the type as written" 'type = "zero+NEWFLAG"' \
    "$(grep -o 'type = "zero[^"]*"' "$SCRATCH/bak1")"
lvm2 vgremove -ff "$VG" >/dev/null 2>&1
done_testing
