#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0964-suite-diffs2: more differences LVM2's own test suite found (issue 21), lvx beside
# the real LVM2 on the same loop devices (activation off):
#   - a PV marked in use (PV_EXT_USED) without metadata of its own naming the VG:
#     pvcreate, pvchange -u, vgcreate and pvremove refuse it with LVM2's lines ("PV X is
#     used by a VG but its metadata is missing.", ...), exit 5; pvremove of a PV of a
#     VG: LVM2's three lines (pv-ext-flags);
#   - profiles: a command profile holding a setting no profile may set, a metadata
#     profile's setting, an unknown section or setting; a metadata profile holding a
#     command profile's setting: LVM2's lines (named only with config/checks = 1),
#     "Ignoring invalid ... profile", exit 5; vgchange/lvchange --profile and
#     --detachprofile, lvcreate --profile (vg_profile, lv_profile as LVM2 reads them);
#     lvmconfig --type profilable-command/-metadata; dumpconfig --profile (profiles);
#   - pvcreate --setphysicalvolumesize larger or smaller than the device: the VG made
#     of it takes the PV's size from its label, vgcreate warns as LVM2, and the reports
#     too, unless metadata/check_pv_device_sizes = 0 (pv-check-dev-size);
#   - a copy of a device node (same major:minor) beside mapper/ in the devices/scan
#     directory: vgcreate of the mapper/ names works (stray-device-node);
#   - vgchange --ignorelockingfailure with a metadata change, -an with --poll or
#     --monitor: LVM2's lines, exit 3 (vgchange-usage);
#   - vgchange without VG names, two local VGs of one name: each is changed (taken by
#     UUID), as LVM2 (duplicate-vgnames);
#   - selection: lv_minor=undefined/undef/unknown match -1, seg_monitor=undefined an
#     empty value (select-report);
#   - lvcreate -Z/-W and allocation/wipe_signatures_when_zeroing_new_lvs: which of
#     zeroing and signature wiping happen, with LVM2's "Wiping swap signature on ..."
#     line (lvx alone: LVM2 neither zeroes nor wipes without activation; the expected
#     results are those of LVM2's lvcreate-signature-wiping).
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/side.sh"

VG=vgse$$
side_setup 3
CONF=$SCRATCH/lvm/lvm.conf
cp "$CONF" "$CONF.base"

conf_with() {   # conf_with 'section { key = value }': the base sandbox plus that text
    { cat "$CONF.base"; printf '%s\n' "$@"; } >"$CONF"
}

# ---- a PV marked in use, no metadata of its own naming its VG
marked_pv() {   # D0: no metadata area, in VG $VG with D1; only D0 seen afterwards
    lvm_sandbox "${D[@]}"
    cp "$CONF" "$CONF.base"
    lvm2 vgremove -ff "$VG" >/dev/null 2>&1
    lvm2 pvcreate -ff -y -q --metadatacopies 0 "${D[0]}" >/dev/null 2>&1
    lvm2 pvcreate -ff -y -q "${D[1]}" >/dev/null 2>&1
    lvm2 vgcreate -q "$VG" "${D[0]}" "${D[1]}" >/dev/null 2>&1
    lvm_sandbox "${D[0]}"
}
marked_pv
for c in "pvcreate ${D[0]}" "pvchange -u ${D[0]}" "pvremove ${D[0]}"; do
    # shellcheck disable=SC2086
    same "$c of a PV marked in use whose VG is not seen: LVM2's lines, exit 5" $c
done
test_eq "... exit 5" "5" "$(cat "$SCRATCH/x.rc")"
side vgcreate "${VG}b" "${D[0]}"
test_eq "vgcreate of that PV: LVM2's exit code" "$(cat "$SCRATCH/l.rc")" "$(cat "$SCRATCH/x.rc")"
test_eq "... LVM2's lines" "$(grep -v WARNING "$SCRATCH/l.err")" "$(grep -v WARNING "$SCRATCH/x.err")"
test_ok "... the words its test greps for" grep -q "is used by a VG but its metadata is missing" \
    "$SCRATCH/x.err"
lvm_sandbox "${D[0]}" "${D[1]}"
same "pvremove of a PV of a seen VG, and of one without its own metadata: LVM2's lines" \
    pvremove "${D[0]}" "${D[1]}"
same "pvcreate of both" pvcreate "${D[0]}" "${D[1]}"
lvm2 vgremove -ff "$VG" >/dev/null 2>&1
lvm_sandbox "${D[@]}"
cp "$CONF" "$CONF.base"

# ---- profiles
mkdir -p "$SCRATCH/lvm/profile"
profile() { local n=$1; shift; printf '%s\n' "$@" >"$SCRATCH/lvm/profile/$n.profile"; }
profile invalid 'log {' ' prefix=" "' '}'
profile mdaset 'allocation {' ' thin_pool_zero=0' '}'
profile extra 'allocation {' ' thin_pool_chunk_size=128' '}'
profile cmdset 'global {' ' units="h"' '}' 'report {' ' aligned=1' '}'
profile unk 'foo {' ' bar=1' '}' 'global {' ' units="h"' ' foo=2' '}'
profile both 'log {' ' prefix=" "' '}' 'allocation {' ' thin_pool_zero=0' '}'
for chk in 0 1; do
    conf_with "config { checks = $chk }"
    for p in invalid mdaset unk both cmdset nonexistent; do
        same "pvs --profile $p (config/checks = $chk): LVM2's lines and exit code" pvs --profile "$p"
    done
done
test_eq "... an invalid profile: exit 5" "5" "$(cat "$SCRATCH/l.rc")"
cp "$CONF.base" "$CONF"
lvm2 pvcreate -ff -y -q "${D[0]}" >/dev/null 2>&1
lvm2 vgcreate -q "$VG" "${D[0]}" >/dev/null 2>&1
lvm2 lvcreate -an -Zn -q -l1 -n p1 "$VG" >/dev/null 2>&1
profiles_of() { lvm2 lvs --noheadings -o vg_profile,lv_name,lv_profile "$VG" 2>/dev/null | xargs; }
for who in lvm2 lvx; do
    r=""
    for c in "vgchange --profile mdaset $VG" "lvchange --profile extra $VG/p1" \
        "vgchange --metadataprofile extra $VG" "vgchange --detachprofile $VG" \
        "lvchange --detachprofile $VG/p1" "vgchange --profile cmdset $VG" \
        "vgchange --profile mdaset --detachprofile $VG" \
        "vgchange --profile mdaset --metadataprofile mdaset $VG" "lvchange --profile unk $VG/p1"; do
        rc=0
        # shellcheck disable=SC2086
        $who $c >/dev/null 2>"$SCRATCH/e" || rc=$?
        r+="$c: $rc $(profiles_of) $(grep -v WARNING "$SCRATCH/e" | tr '\n' '|')
"
    done
    echo "$r" >"$SCRATCH/$who.prof"
    lvm2 vgchange -q --detachprofile "$VG" >/dev/null 2>&1
done
test_eq "vgchange/lvchange --profile, --metadataprofile, --detachprofile: as LVM2" \
    "$(cat "$SCRATCH/lvm2.prof")" "$(cat "$SCRATCH/lvx.prof")"
test_ok "... vgchange --profile attaches it" grep -q "vgchange --profile mdaset $VG: 0 mdaset p1" \
    "$SCRATCH/lvx.prof"
for who in lvm2 lvx; do
    $who lvcreate -an -Zn -q --profile mdaset -l1 -n "q$who" "$VG" >/dev/null 2>&1
done
test_eq "lvcreate --profile: the LV's profile" \
    "$(lvm2 lvs --noheadings -o lv_profile "$VG/qlvm2" 2>/dev/null)" \
    "$(lvm2 lvs --noheadings -o lv_profile "$VG/qlvx" 2>/dev/null)"
test_eq "... mdaset" "mdaset" "$(lvm2 lvs --noheadings -o lv_profile "$VG/qlvx" 2>/dev/null | xargs)"
lvm2 vgremove -ff "$VG" >/dev/null 2>&1
for who in lvm2 lvx; do
    $who vgcreate -q --profile mdaset "$VG" "${D[0]}" >/dev/null 2>&1
    lvm2 vgs --noheadings -o vg_profile "$VG" 2>/dev/null | xargs >"$SCRATCH/$who.vgp"
    lvm2 vgremove -ff "$VG" >/dev/null 2>&1
done
test_eq "vgcreate --profile: the VG's profile" "$(cat "$SCRATCH/lvm2.vgp")" "$(cat "$SCRATCH/lvx.vgp")"
for t in profilable-command profilable-metadata; do
    same "lvmconfig --type $t" lvmconfig --type "$t"
done
conf_with 'global { units = "m" }'
same "dumpconfig --profile: the profile alone" dumpconfig --profile cmdset
lvx dumpconfig --profile cmdset --mergedconfig global >"$SCRATCH/x.merged" 2>&1
test_ok "dumpconfig --profile --mergedconfig: the profile's units over lvm.conf's" \
    grep -q 'units="h"' "$SCRATCH/x.merged"
lvx dumpconfig --type profilable-command --file "$SCRATCH/lvm/profile/gen.profile"
same "a profile from dumpconfig --type profilable-command is a valid one" pvs --profile gen
cp "$CONF.base" "$CONF"

# ---- a PV larger (or smaller) than its device
for chk in 1 0; do
    conf_with "metadata { check_pv_device_sizes = $chk }"
    for who in lvm2 lvx; do
        lvm2 pvcreate -q -y --setphysicalvolumesize 128m "${D[0]}" >/dev/null 2>&1
        lvm2 pvcreate -q -y --setphysicalvolumesize 32m "${D[1]}" >/dev/null 2>&1
        rc=0; $who vgcreate "$VG" "${D[0]}" "${D[1]}" >/dev/null 2>"$SCRATCH/e" || rc=$?
        sandbox_noise <"$SCRATCH/e" >"$SCRATCH/$who.err"
        echo "$rc $(lvm2 pvs --noheadings -o pv_name,pv_size,pv_pe_count "${D[0]}" "${D[1]}" \
            2>/dev/null | xargs)" >"$SCRATCH/$who.r"
        lvm2 vgremove -ff "$VG" >/dev/null 2>&1
    done
    test_eq "vgcreate of PVs set larger/smaller than their devices (check $chk): sizes as LVM2" \
        "$(cat "$SCRATCH/lvm2.r")" "$(cat "$SCRATCH/lvx.r")"
    test_eq "... LVM2's warnings" "$(cat "$SCRATCH/lvm2.err")" "$(cat "$SCRATCH/lvx.err")"
done
test_eq "... none with check_pv_device_sizes = 0" "0" "$(grep -c smaller "$SCRATCH/lvx.err")"
cp "$CONF.base" "$CONF"
lvm2 pvcreate -q -y --setphysicalvolumesize 128m "${D[0]}" >/dev/null 2>&1
lvm2 vgcreate -q "$VG" "${D[0]}" >/dev/null 2>&1
same "pvs of such a VG: LVM2's warnings" pvs -o pv_name,pv_size "${D[0]}"
test_ok "... the words its test greps for" grep -q "smaller than corresponding PV size" \
    "$SCRATCH/x.err"
lvm2 vgremove -ff "$VG" >/dev/null 2>&1
for who in lvm2 lvx; do
    lvm2 pvcreate -q -ff -y "${D[2]}" >/dev/null 2>&1
    lvm2 vgcreate -q "$VG" "${D[2]}" >/dev/null 2>&1
    lvm2 pvcreate -q -y --setphysicalvolumesize 128m "${D[0]}" >/dev/null 2>&1
    rc=0; $who vgextend "$VG" "${D[0]}" >"$SCRATCH/o" 2>"$SCRATCH/e" || rc=$?
    echo "$rc $(cat "$SCRATCH/o") $(sandbox_noise <"$SCRATCH/e")" >"$SCRATCH/$who.r"
    lvm2 vgremove -ff "$VG" >/dev/null 2>&1
done
test_eq "vgextend by such a PV: LVM2's warning" "$(cat "$SCRATCH/lvm2.r")" "$(cat "$SCRATCH/lvx.r")"
test_ok "... it" grep -q "smaller than corresponding PV size" "$SCRATCH/lvx.r"

# ---- a stray copy of a device node in the devices/scan directory
DD=$SCRATCH/dev
mkdir -p "$DD"
for i in 1 2 3 4 5 6 7 8; do cp -a "${D[0]}" "$DD/stray$i"; done   # listed before mapper/
mkdir -p "$DD/mapper"
cp -a "${D[0]}" "$DD/mapper/pv1"
cp -a "${D[1]}" "$DD/mapper/pv2"
# the sandbox's configuration, its directories and filter those of $DD
sed -e "s#global_filter = .*#global_filter = [ \"a|^$DD/mapper/pv[0-9]*\$|\", \"r|.*|\" ]#" \
    -e "s#scan = \[ \"/dev\" \]#scan = [ \"$DD\" ]\n    dir = \"$DD\"#" "$CONF.base" >"$CONF"
lvm2 pvcreate -q -ff -y "$DD/mapper/pv1" "$DD/mapper/pv2" >/dev/null 2>&1
for who in lvm2 lvx; do
    rc=0; $who vgcreate "$VG" "$DD/mapper/pv1" "$DD/mapper/pv2" >/dev/null 2>"$SCRATCH/$who.err" || rc=$?
    echo "$rc $(lvm2 pvs --noheadings -o pv_name,vg_name 2>/dev/null | xargs)" >"$SCRATCH/$who.r"
    lvm2 vgremove -ff "$VG" >/dev/null 2>&1
done
test_eq "vgcreate of mapper/ nodes with stray copies of one beside: as LVM2" \
    "$(cat "$SCRATCH/lvm2.r")" "$(cat "$SCRATCH/lvx.r")"
test_eq "... made, both PVs named by their mapper/ nodes" \
    "0 $DD/mapper/pv1 $VG $DD/mapper/pv2 $VG" "$(cat "$SCRATCH/lvx.r")"
cp "$CONF.base" "$CONF"

# ---- vgchange: option combinations LVM2's command forms refuse
lvm2 pvcreate -q -ff -y "${D[0]}" >/dev/null 2>&1
lvm2 vgcreate -q "$VG" "${D[0]}" >/dev/null 2>&1
for c in "--ignorelockingfailure --uuid" "--ignorelockingfailure --addtag t" "-an --poll y" \
    "-an --monitor y"; do
    # shellcheck disable=SC2086
    same "vgchange $c: LVM2's lines, exit 3" vgchange $c "$VG"
done
test_eq "... exit 3" "3" "$(cat "$SCRATCH/x.rc")"
lvm2 vgremove -ff "$VG" >/dev/null 2>&1

# ---- two local VGs of one name, every VG processed (no VG named)
for who in lvm2 lvx; do
    lvm_sandbox "${D[0]}" "${D[1]}"
    lvm2 pvcreate -q -ff -y "${D[0]}" "${D[1]}" >/dev/null 2>&1
    for d in "${D[0]}" "${D[1]}"; do
        lvm_sandbox "$d"
        lvm2 vgcreate -q "$VG" "$d" >/dev/null 2>&1
    done
    lvm_sandbox "${D[0]}" "${D[1]}"
    r=""
    for c in "--addtag t1" "-ay" "--addtag t2 $VG"; do
        # shellcheck disable=SC2086
        rc=0; $who vgchange $c >/dev/null 2>&1 || rc=$?
        r+="$c: $rc; "
    done
    echo "$r $(lvm2 vgs --noheadings -o vg_name,vg_tags 2>/dev/null | xargs)" >"$SCRATCH/$who.r"
    for u in $(lvm2 vgs --noheadings -o vg_uuid 2>/dev/null); do
        lvm2 vgremove -ff -q -S "vg_uuid=$u" >/dev/null 2>&1
    done
done
test_eq "vgchange --addtag / -ay of every VG, two local VGs of one name: as LVM2" \
    "$(cat "$SCRATCH/lvm2.r")" "$(cat "$SCRATCH/lvx.r")"
test_ok "... both tagged" grep -q "$VG t1 $VG t1" "$SCRATCH/lvx.r"
lvm_sandbox "${D[@]}"
cp "$CONF.base" "$CONF"

# ---- selection: "undefined", "undef", "unknown" for a number's -1 (no fixed minor)
lvm2 pvcreate -q -ff -y "${D[0]}" >/dev/null 2>&1
lvm2 vgcreate -q "$VG" "${D[0]}" >/dev/null 2>&1
lvm2 lvcreate -q -an -Zn -l1 -n m1 "$VG" >/dev/null 2>&1
lvm2 lvcreate -q -an -Zn -l1 -My --minor 254 -n m2 "$VG" >/dev/null 2>&1
for sel in 'lv_minor=undefined' 'lv_minor=undef' 'lv_minor=unknown' 'lv_minor!=undefined' \
    'lv_major=undefined' 'seg_monitor=undefined' 'seg_monitor=undef' 'lv_name=undefined'; do
    same "lvs --select $sel: as LVM2" lvs --noheadings -o lv_name --select "$sel" "$VG"
done
test_eq "... lv_minor=undef: the LV without a fixed minor" "m1" \
    "$(lvx lvs --noheadings -o lv_name --select lv_minor=undef "$VG" 2>/dev/null | xargs)"
lvm2 vgremove -ff "$VG" >/dev/null 2>&1

# ---- lvcreate -Z/-W: zeroing and signature wiping (lvx alone)
lvx pvcreate -q -ff -y "${D[0]}" >/dev/null 2>&1
lvx vgcreate -q "$VG" "${D[0]}" >/dev/null 2>&1
PES=$(lvx pvs --noheadings --units b --nosuffix -o pe_start "${D[0]}" | tr -d ' ')
truncate -s 1M "$SCRATCH/swap"
mkswap "$SCRATCH/swap" >/dev/null 2>&1
# LVM2's test: per setting, -Zn, -Zn -Wn, -Zn -Wy, -Zy, -Zy -Wn, -Zy -Wy -> message?
# swap signature left?
declare -A WANT=(
    [0]="-Zn:-:swap -Zn -Wn:-:swap -Zn -Wy:msg:- -Zy:-:- -Zy -Wn:-:- -Zy -Wy:msg:-"
    [1]="-Zn:-:swap -Zn -Wn:-:swap -Zn -Wy:msg:- -Zy:msg:- -Zy -Wn:-:- -Zy -Wy:msg:-")
for w in 0 1; do
    conf_with "allocation { wipe_signatures_when_zeroing_new_lvs = $w }"
    r=""
    for z in "-Zn" "-Zn -Wn" "-Zn -Wy" "-Zy" "-Zy -Wn" "-Zy -Wy"; do
        dd if="$SCRATCH/swap" of="${D[0]}" bs=1M seek=$((PES / 1048576)) conv=notrunc status=none
        # shellcheck disable=SC2086
        lvx lvcreate -an -y $z -l1 -n w1 "$VG" >"$SCRATCH/w.out" 2>&1
        m=-; grep -q "Wiping swap signature on /dev/$VG/w1\." "$SCRATCH/w.out" && m=msg
        dd if="${D[0]}" of="$SCRATCH/lvstart" bs=1M skip=$((PES / 1048576)) count=1 status=none
        t=$(blkid -p -o value -s TYPE "$SCRATCH/lvstart" 2>/dev/null)
        r+="$z:$m:${t:--} "
        lvx lvremove -q -y "$VG/w1" >/dev/null 2>&1
    done
    test_eq "lvcreate -Z/-W with wipe_signatures_when_zeroing_new_lvs = $w: as LVM2's test wants" \
        "${WANT[$w]}" "${r% }"
done
cp "$CONF.base" "$CONF"
lvx vgremove -ff "$VG" >/dev/null 2>&1

done_testing
