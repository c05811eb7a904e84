#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0967-system-id: system IDs (lvmsystemid(7), issue 21: LVM2's suite tests system_id,
# duplicate-vgnames, duplicate-vgrename), lvx beside the real LVM2 2.03.16 on the same
# loop devices.  One scenario runs twice from wiped devices, once with each tool, and
# every step's exit code, stdout and stderr must be LVM2's:
#   - `lvm systemid` for the sources file, uname, machineid, lvmlocal (lvmlocal.conf and
#     --config), none, an unknown source, and their warnings;
#   - vgcreate takes the local ID ("... successfully created with system ID X"),
#     --systemid another (its warnings, twice as LVM2), "" (none), an invalid one (exit 3);
#   - a foreign VG: left out of vgs/pvs/lvs, refused by name (vgs, pvs PV, lvs, vgremove,
#     lvcreate, vgchange -ay/--addtag, vgdisplay, vgcfgbackup: "Cannot access VG ..."),
#     shown with --foreign (reports, vgcfgbackup --foreign), usable through
#     local/extra_system_ids (lvmlocal.conf or --config);
#   - vgchange --systemid: the prompt (no answer is no), -y, "" (removal), the same ID
#     refused, a foreign VG refused, the command form's errors;
#   - vgexport clears the ID, vgimport sets the local one;
#   - with no local ID (source none) a VG with an ID is refused as "unknown local
#     system ID" (said twice by name, as LVM2);
#   - two VGs of one name (duplicate-vgnames): refused by name ("Multiple VGs found with
#     the same name"), each taken with -S vg_uuid=..., and once one is foreign the name
#     stands for the local one.
# Then the metadata: the VG text lvx writes holds LVM2's `system_id = "..."` line, and
# each tool sees the other's VG as foreign.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/side.sh"

side_setup 2
VG=vgsid$$
L=$SCRATCH/lvm
SID=$SCRATCH/sid
conf() {        # conf LINE...: the sandbox's lvm.conf with LINE... in its global section
    _sandbox_write "${D[@]}"
    local l
    for l in "$@"; do sed -i "s|^global {|global {\n    $l|" "$L/lvm.conf"; done
}
fileconf() { conf 'system_id_source = "file"' "system_id_file = \"$SID\""; }

# step ARGS...: one command of the scenario with tool $T: "== ARGS", stdout, "-- err",
# stderr, "rc=N" appended to $SCRATCH/$T.steps (device names as D0/D1, the VG UUIDs of
# the duplicate-name part as U1/U2).  With ANYORDER=1 the lines of stdout and of stderr
# are sorted: LVM2 lists two VGs of one name in no fixed order (and its vgremove of a VG
# with LVs says "NOT backed up" for the LVs' removal, a difference outside this test).
norm() {
    side_filter | sed "s|${D[0]}|D0|g; s|${D[1]}|D1|g; s|$SCRATCH|S|g; s|${U1:-@}|U1|g; s|${U2:-@}|U2|g" |
        sed -E 's/used by VGs (U[12]) and (U[12])\./used by VGs U1 and U2./'
}
step() {
    local rc=0 order=cat
    [[ ${ANYORDER:-0} == 1 ]] && order="grep -v NOT.backed.up | sort"
    "$T" "$@" </dev/null >"$SCRATCH/o" 2>"$SCRATCH/e" || rc=$?
    {
        echo "== $*" | norm
        norm <"$SCRATCH/o" | eval "$order"
        echo "-- err"
        norm <"$SCRATCH/e" | eval "$order"
        echo "rc=$rc"
    } >>"$SCRATCH/$T.steps"
}

scenario() {
    local d
    for d in "${D[@]}"; do dd if=/dev/zero of="$d" bs=1M count=1 conv=notrunc 2>/dev/null; done
    rm -f "$L/lvmlocal.conf"
    echo hostA >"$SID"
    fileconf
    step systemid
    step vgcreate "$VG" "${D[0]}"
    step vgs --noheadings -o vg_name,vg_systemid,vg_attr "$VG"
    step vgcreate --systemid other "${VG}b" "${D[1]}"
    step vgs --noheadings -o vg_name
    step vgs "${VG}b"
    step vgs --foreign --noheadings -o vg_name,vg_systemid
    step pvs --noheadings -o pv_name,vg_name
    step pvs --foreign --noheadings -o pv_name,vg_name
    step pvs "${D[1]}"
    step lvs "${VG}b"
    step vgremove "${VG}b"
    step lvcreate -n x -l1 "${VG}b"
    step vgchange -ay "${VG}b"
    step vgchange --addtag foo "${VG}b"
    step vgdisplay "${VG}b"
    step vgcfgbackup -f "$SCRATCH/bk" "${VG}b"
    step vgcfgbackup --foreign -f "$SCRATCH/bk" "${VG}b"
    step vgchange --systemid foo "${VG}b"
    step vgchange --systemid foo "$VG"
    step vgchange -y --systemid "$VG" "$VG"
    step vgchange -y --systemid hostA "$VG"
    step vgchange -y --systemid "" "$VG"
    step vgchange -y --systemid "" "$VG"
    step vgchange -y --systemid foo "$VG"
    step vgs --noheadings -o vg_name,vg_systemid --foreign
    step vgchange --systemid hostA "$VG"
    step vgs --noheadings -o vg_name --config 'local/extra_system_ids=["foo"]'
    echo 'local { extra_system_ids = [ "foo", "other" ] }' >"$L/lvmlocal.conf"
    step vgs --noheadings -o vg_name,vg_systemid
    step vgchange -y --systemid hostA "$VG"
    rm -f "$L/lvmlocal.conf"
    step vgexport "$VG"
    step vgs --noheadings -o vg_name,vg_systemid,vg_attr "$VG"
    step vgimport "$VG"
    step vgs --noheadings -o vg_name,vg_systemid,vg_attr "$VG"
    step vgs --noheadings -o vg_name --config 'local/system_id=other global/system_id_source=lvmlocal'
    step vgremove -f "${VG}b" --config 'local/extra_system_ids=["other"]'
    step vgs --noheadings -o vg_name,vg_systemid --config 'global/system_id_source=none'
    step vgs --config 'global/system_id_source=none' "$VG"
    step vgremove --config 'global/system_id_source=none' "$VG"
    step vgremove "$VG"
    step vgcreate --systemid "" "$VG" "${D[0]}"
    step vgs --noheadings -o vg_name,vg_systemid "$VG"
    step vgremove "$VG"
    step vgcreate --systemid "%%" "$VG" "${D[0]}"
    step vgcreate --systemid "localhost2" "$VG" "${D[0]}"
    step vgcreate --systemid '?%$&A.@1]' "$VG" "${D[0]}"
    step vgs --noheadings -o vg_name,vg_systemid "$VG"
    step vgremove "$VG"
    step vgchange --systemid x
    step vgchange --systemid x -an "$VG"
    printf '# a comment\n\n  hostB # trailing\nhostC\n' >"$SID"
    step systemid
    conf 'system_id_source = "uname"'
    step systemid
    conf 'system_id_source = "machineid"'
    step systemid
    conf 'system_id_source = "lvmlocal"'
    step systemid
    printf 'local {\n  system_id = "fromlocal"\n}\n' >"$L/lvmlocal.conf"
    step systemid
    step systemid --config 'local/system_id="fromconfig"'
    conf 'system_id_source = "none"'
    step systemid
    conf 'system_id_source = "bogus"'
    step systemid
    rm -f "$L/lvmlocal.conf"
}

# two VGs named $VG (made by LVM2 each seeing one device; the first one foreign when
# $1 is "foreign"), then the steps
dup_setup() {
    local d
    for d in "${D[@]}"; do dd if=/dev/zero of="$d" bs=1M count=1 conv=notrunc 2>/dev/null; done
    U1= U2=
    lvm_sandbox "${D[0]}"
    lvm2 vgcreate -q "$VG" "${D[0]}" >/dev/null 2>&1
    lvm2 lvcreate -q -an -n lv1 -l1 "$VG" >/dev/null 2>&1
    U1=$(lvm2 vgs --noheadings -o vg_uuid "$VG" 2>/dev/null | xargs)
    [[ $1 == foreign ]] && lvm2 vgchange -q -y --systemid other "$VG" >/dev/null 2>&1
    lvm_sandbox "${D[1]}"
    lvm2 vgcreate -q "$VG" "${D[1]}" >/dev/null 2>&1
    lvm2 lvcreate -q -an -n lv2 -l1 "$VG" >/dev/null 2>&1
    U2=$(lvm2 vgs --noheadings -o vg_uuid "$VG" 2>/dev/null | xargs)
    lvm_sandbox "${D[@]}"
}
dup_scenario() {
    dup_setup local
    ANYORDER=1
    step vgs --noheadings -o vg_name,vg_uuid
    step vgs "$VG"
    step lvs "$VG"
    step vgremove "$VG"
    step lvcreate -an -n x -l1 "$VG"
    step vgchange --addtag t "$VG"
    step vgchange --addtag t -S "vg_uuid=$U2"
    step vgs --noheadings -o vg_name,vg_uuid,vg_tags
    step vgchange -y --systemid other -S "vg_uuid=$U1"
    step vgchange -y --systemid other "$VG"
    step vgs --noheadings -o vg_name,vg_uuid,vg_tags,vg_systemid --foreign
    step lvs --noheadings -o vg_uuid,lv_name
    step lvcreate -an -n x -l1 "$VG"
    step lvs --noheadings -o vg_uuid,lv_name
    step vgs --foreign --noheadings -o vg_name,vg_uuid "$VG"
    step vgremove -y -S "vg_uuid=$U2"
    step vgs --foreign --noheadings -o vg_name,vg_uuid
    step vgremove -y -S "vg_uuid=$U1"
    # the first one foreign: the name stands for the local one
    dup_setup foreign
    step vgs --noheadings -o vg_name,vg_uuid
    step vgs --foreign --noheadings -o vg_name,vg_uuid,vg_systemid
    step vgs --noheadings -o vg_name,vg_uuid "$VG"
    step vgs --foreign --noheadings -o vg_name,vg_uuid "$VG"
    step lvcreate -an -Zn -n x -l1 "$VG"
    step lvs --foreign --noheadings -o vg_uuid,lv_name
    step vgrename "$VG" "${VG}r"
    step vgs --foreign --noheadings -o vg_name,vg_uuid
    step vgremove -y -S "vg_uuid=$U1"
    step vgremove -y "${VG}r"
    step vgremove -y -S "vg_uuid=$U1" --config 'local/extra_system_ids="other"'
    step vgremove -y "$VG" --config 'local/extra_system_ids="other"'
    U1= U2= ANYORDER=0
}

for T in lvm2 lvx; do
    : >"$SCRATCH/$T.steps"
    scenario
    dup_scenario
done
# one check per step: the step's transcript with LVM2 and with lvx
csplit -s -z -f "$SCRATCH/l." "$SCRATCH/lvm2.steps" '/^== /' '{*}'
csplit -s -z -f "$SCRATCH/x." "$SCRATCH/lvx.steps" '/^== /' '{*}'
n=0
for f in "$SCRATCH"/l.[0-9]*; do
    g=$SCRATCH/x.${f##*.}
    test_eq "$(head -1 "$f" | cut -c4-): LVM2's exit code and messages" \
        "$(cat "$g" 2>/dev/null)" "$(cat "$f")"
    n=$((n + 1))
done
test_ok "the scenario ran every step with both tools ($n)" \
    test "$n" -ge 55 -a "$(grep -c '^== ' "$SCRATCH/lvx.steps")" -eq "$n"

# ---- the metadata lvx writes, and each tool's VG seen by the other
for d in "${D[@]}"; do dd if=/dev/zero of="$d" bs=1M count=1 conv=notrunc 2>/dev/null; done
echo hostA >"$SID"
fileconf
lvx vgcreate -q --systemid hostX "$VG" "${D[0]}" >/dev/null 2>&1
test_ok "lvx's VG text holds LVM2's system_id line" \
    grep -aq 'system_id = "hostX"' <(dd if="${D[0]}" bs=1M count=1 2>/dev/null)
test_eq "LVM2 reads lvx's system ID" "$VG hostX" \
    "$(lvm2 vgs --foreign --noheadings -o vg_name,vg_systemid "$VG" 2>/dev/null | xargs)"
test_eq "LVM2 sees lvx's VG of another host as foreign" "" \
    "$(lvm2 vgs --noheadings -o vg_name 2>/dev/null | xargs)"
lvm2 vgcreate -q --systemid hostY "${VG}b" "${D[1]}" >/dev/null 2>&1
test_eq "lvx reads LVM2's system ID" "${VG}b hostY" \
    "$(lvx vgs --foreign --noheadings -o vg_name,vg_systemid "${VG}b" 2>/dev/null | xargs)"
test_eq "lvx sees LVM2's VG of another host as foreign" "" \
    "$(lvx vgs --noheadings -o vg_name 2>/dev/null | xargs)"
echo hostX >"$SID"
test_eq "a VG of this host is listed" "$VG" "$(lvx vgs --noheadings -o vg_name 2>/dev/null | xargs)"
lvm2 vgremove -q -f "$VG" >/dev/null 2>&1
echo hostY >"$SID"
lvm2 vgremove -q -f "${VG}b" >/dev/null 2>&1

done_testing
cleanup
