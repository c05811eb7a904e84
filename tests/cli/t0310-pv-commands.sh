#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0310-pv-commands: lvx pvcreate / pvremove / pvchange / pvresize on loop devices,
# every result judged by the real LVM2 (`pvs`/`vgs` JSON reports, vgck, blkid):
#   - the seed command lines (pvcreate of four devices, --metadatacopies 0,
#     --metadatasize 192k / 960K, pvremove of four devices);
#   - pvchange and pvresize on orphan PVs;
#   - pvchange, pvresize, pvremove, pvcreate --uuid --restorefile on PVs of a VG that
#     LVM2 created (so the test does not depend on lvx vgcreate);
#   - bad input: each is refused with one line on stderr, a non-zero exit status and
#     every device unchanged (checksums), including foreign signatures (xfs, ext4)
#     without -f, which -f / -y then wipe.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_loop
need_cmd lvm blkid "$PYTHON"
need_lvx
plan_later

for i in 1 2 3 4 5 6; do
    declare "D$i=$(make_loop 64M)"
done
SMALL=$(make_loop 1M)
BIG=$(make_loop 320M)        # mkfs.xfs wants at least 300 MiB
ALL=("$D1" "$D2" "$D3" "$D4" "$D5" "$D6" "$BIG")
lvm_sandbox "${ALL[@]}" "$SMALL"
DEVS=$(IFS=,; echo "${ALL[*]}")

# lvx with the sandbox's lvm.conf (no backup/archive files outside the scratch dir)
# and a scan limited to our devices.
lvxs() { LVM_SYSTEM_DIR="$SCRATCH/lvm" lvx "$@"; }
lvxd() { LVM_SYSTEM_DIR="$SCRATCH/lvm" lvx "$@" --devices "$DEVS"; }

# pv_field DEV FIELD: LVM2's JSON report value of one field of the PV on DEV.
pv_field() {
    lvm2 pvs --reportformat json --units b -o "pv_name,$2" "$1" 2>/dev/null |
        "$PYTHON" -c 'import json,sys; r=json.load(sys.stdin)["report"][0]["pv"]; print(r[0][sys.argv[1]] if r else "none")' "$2"
}
vg_field() {
    lvm2 vgs --reportformat json --units b -o "vg_name,$2" "$1" 2>/dev/null |
        "$PYTHON" -c 'import json,sys; r=json.load(sys.stdin)["report"][0]["vg"]; print(r[0][sys.argv[1]] if r else "none")' "$2"
}
is_pv() { lvm2 pvs "$1" >/dev/null 2>&1 && echo yes || echo no; }

# refuse "description" command...: non-zero exit (no crash), exactly one line on
# stderr, every device unchanged.
refuse() {
    local desc=$1 rc=0 before after lines
    shift
    before=$(sha_devs "${ALL[@]}")
    "$@" >"$SCRATCH/r.out" 2>"$SCRATCH/r.err" </dev/null || rc=$?
    after=$(sha_devs "${ALL[@]}")
    # LVM2's companion lines (checked against LVM2 by t0949 and t0440) are not counted
    lines=$(grep -v -e '^  Physical volume .* not changed$' -e '^  WARNING: PV .* is used by VG ' \
        -e '^  (If you are certain you need pvremove, then confirm by using --force twice.)$' \
        -e ': physical volume label not removed.$' -e ': physical volume not initialized.$' \
        -e "^  Can't initialize PV '.*' without -ff.$" "$SCRATCH/r.err" | grep -c .)
    if [[ $rc -ge 1 && $rc -lt 128 && $lines -eq 1 && $before == "$after" ]] &&
        ! sanitizer_report "$SCRATCH/r.err"; then
        _tap_result 0 "$desc"
        return 0
    fi
    _tap_result 1 "$desc"
    diag "command: $*" "exit status $rc, $lines stderr line(s), devices $([[ $before == "$after" ]] && echo unchanged || echo CHANGED)"
    _diag_file stderr "$SCRATCH/r.err"
    return 1
}

# ---------------------------------------------------------------- seed lines

test_ok "lvx pvcreate D1 D2 D3 D4" lvxs pvcreate "$D1" "$D2" "$D3" "$D4"
test_eq "pvcreate prints LVM2's message per device" "$(cat "$SCRATCH/.out")" \
    "$(for d in "$D1" "$D2" "$D3" "$D4"; do echo "  Physical volume \"$d\" successfully created."; done)"
for d in "$D1" "$D2" "$D3" "$D4"; do
    test_eq "LVM2 sees $d as an orphan PV with pe_start 1 MiB (spec §12.1)" \
        "$(pv_field "$d" vg_name)/$(pv_field "$d" pe_start)/$(pv_field "$d" pv_mda_count)/$(pv_field "$d" pv_mda_size)" \
        "/1048576B/1/1044480B"
done
test_ok "LVM2 pvck accepts $D1" lvm2 pvck "$D1"

test_ok "lvx pvcreate --metadatacopies 0 D5" lvxs pvcreate --metadatacopies 0 "$D5"
test_eq "LVM2: D5 has no metadata area, pe_start 1 MiB" \
    "$(pv_field "$D5" pv_mda_count)/$(pv_field "$D5" pe_start)" "0/1048576B"

# §12.3: the area grows to the 1 MiB alignment boundary for both sizes
test_ok "lvx pvcreate --metadatasize 192k D6" lvxs pvcreate --metadatasize 192k "$D6"
test_eq "LVM2: D6 mda grown to the alignment (192k)" \
    "$(pv_field "$D6" pv_mda_size)/$(pv_field "$D6" pe_start)" "1044480B/1048576B"
test_ok "lvx pvcreate --metadatasize 960K D6 (re-initialises an orphan PV)" \
    lvxs pvcreate --metadatasize 960K "$D6"
test_eq "LVM2: D6 mda grown to the alignment (960K)" \
    "$(pv_field "$D6" pv_mda_size)/$(pv_field "$D6" pe_start)" "1044480B/1048576B"

test_ok "lvx pvremove D1 D2 D3 D4" lvxs pvremove "$D1" "$D2" "$D3" "$D4"
test_eq "pvremove prints LVM2's message per device" "$(cat "$SCRATCH/.out")" \
    "$(for d in "$D1" "$D2" "$D3" "$D4"; do echo "  Labels on physical volume \"$d\" successfully wiped."; done)"
for d in "$D1" "$D2" "$D3" "$D4"; do
    test_eq "LVM2 no longer sees a PV on $d" "$(is_pv "$d")" no
done
test_eq "blkid finds no signature on D1" "$(blkid -p -o value -s TYPE "$D1")" ""

# ---------------------------------------------------------------- orphans

test_ok "pvchange --metadataignore y on an orphan" lvxd pvchange --metadataignore y "$D6"
test_eq "LVM2: D6 has 0 of 1 areas in use" \
    "$(pv_field "$D6" pv_mda_used_count)/$(pv_field "$D6" pv_mda_count)" "0/1"
test_ok "pvchange --metadataignore n on an orphan" lvxd pvchange --metadataignore n "$D6"
test_eq "LVM2: D6 has 1 area in use" "$(pv_field "$D6" pv_mda_used_count)" 1
old_uuid=$(pv_field "$D6" pv_uuid)
test_ok "pvchange -u on an orphan" lvxd pvchange -u "$D6"
new_uuid=$(pv_field "$D6" pv_uuid)
test_ok "LVM2: D6 has a new valid UUID ($old_uuid -> $new_uuid)" \
    test "$new_uuid" != "$old_uuid" -a "${#new_uuid}" -eq 38
test_ok "LVM2 pvck accepts D6 after pvchange" lvm2 pvck "$D6"
test_ok "pvresize --setphysicalvolumesize 32m -y on an orphan" \
    lvxd pvresize --setphysicalvolumesize 32m -y "$D6"
test_eq "LVM2: D6 pv_size 32 MiB" "$(pv_field "$D6" pv_size)" 33554432B
test_ok "pvresize back to the device size" lvxd pvresize "$D6"
test_eq "LVM2: D6 pv_size 64 MiB" "$(pv_field "$D6" pv_size)" 67108864B
refuse "pvchange -x n refused on an orphan" lvxd pvchange -x n "$D6"
refuse "pvchange --addtag refused on an orphan" lvxd pvchange --addtag t1 "$D6"
refuse "pvchange --metadataignore n refused when already in use" lvxd pvchange --metadataignore n "$D6"

# ---------------------------------------------------------------- a VG made by LVM2

lvm2 pvcreate -y "$D1" "$D2" >/dev/null 2>&1
lvm2 vgcreate vgpv "$D1" "$D2" >/dev/null 2>&1
lvm2 lvcreate -n l1 -L 40m vgpv "$D1" >/dev/null 2>&1
test_eq "LVM2 made vgpv with an LV of 10 extents on D1" "$(pv_field "$D1" pv_used)" 41943040B

test_ok "pvchange -x n on a PV in a VG" lvxd pvchange -x n "$D1"
test_eq "LVM2: D1 not allocatable" "$(pv_field "$D1" pv_allocatable)" ""
test_ok "pvchange -x y" lvxd pvchange -x y "$D1"
test_eq "LVM2: D1 allocatable" "$(pv_field "$D1" pv_allocatable)" allocatable
test_ok "pvchange --addtag t1 --addtag t2 on two PVs" lvxd pvchange --addtag t1 --addtag t2 "$D1" "$D2"
test_ok "pvchange --deltag t1" lvxd pvchange --deltag t1 "$D2"
test_eq "LVM2: tags of D1 and D2" "$(pv_field "$D1" pv_tags)/$(pv_field "$D2" pv_tags)" "t1,t2/t2"
test_ok "pvchange --metadataignore y on D1" lvxd pvchange --metadataignore y "$D1"
test_eq "LVM2: D1 area ignored, VG keeps 1 in use" \
    "$(pv_field "$D1" pv_mda_used_count)/$(vg_field vgpv vg_mda_used_count)" "0/1"
refuse "pvchange --metadataignore y on the last area in use" lvxd pvchange --metadataignore y "$D2"
test_ok "pvchange --metadataignore n on D1" lvxd pvchange --metadataignore n "$D1"
test_eq "LVM2: both areas in use" "$(vg_field vgpv vg_mda_used_count)" 2
old_uuid=$(pv_field "$D2" pv_uuid)
test_ok "pvchange -u on a PV in a VG" lvxd pvchange -u "$D2"
test_ok "LVM2: D2 has a new UUID and vgpv is complete" \
    test "$(pv_field "$D2" pv_uuid)" != "$old_uuid" -a "$(vg_field vgpv pv_count)" = 2 \
    -a "$(vg_field vgpv vg_missing_pv_count)" = 0
test_ok "LVM2 vgck accepts vgpv after pvchange" lvm2 vgck vgpv

test_ok "pvresize --setphysicalvolumesize 48m -y on D2" \
    lvxd pvresize --setphysicalvolumesize 48m -y "$D2"
test_eq "LVM2: D2 has 11 extents, pv_size 44 MiB" \
    "$(pv_field "$D2" pv_pe_count)/$(pv_field "$D2" pv_size)" "11/46137344B"
test_ok "pvresize D2 back to the device size" lvxd pvresize "$D2"
test_eq "LVM2: D2 has 15 extents" "$(pv_field "$D2" pv_pe_count)" 15
test_ok "LVM2 vgck accepts vgpv after pvresize" lvm2 vgck vgpv
refuse "pvresize cutting allocated extents is refused" \
    lvxd pvresize --setphysicalvolumesize 20m -y "$D1"
test_ok "the error names the extents" grep -q "cannot resize to 4 extents as 10 are allocated" "$SCRATCH/r.err"

refuse "pvremove of a PV in a VG without -ff" lvxs pvremove "$D1"
refuse "pvremove -ff of a PV in a VG without -y (no terminal)" lvxs pvremove -ff "$D1"
refuse "pvcreate on a PV in a VG without -ff" lvxs pvcreate "$D1"

# replace a PV the LVM2 way: wipe it, re-create it from the backup with its old UUID
lvm2 vgcfgbackup -f "$SCRATCH/vgpv.vg" vgpv >/dev/null 2>&1
uuid2=$(pv_field "$D2" pv_uuid)
test_ok "pvremove -ff -y of a PV in a VG" lvxs pvremove -ff -y "$D2"
test_eq "LVM2: vgpv misses a PV" "$(vg_field vgpv vg_missing_pv_count)" 1
refuse "pvcreate --uuid without --restorefile" lvxs pvcreate --uuid "$uuid2" "$D2"
test_ok "pvcreate --uuid U --restorefile FILE" \
    lvxs pvcreate --uuid "$uuid2" --restorefile "$SCRATCH/vgpv.vg" "$D2"
test_eq "LVM2: vgpv complete again" "$(vg_field vgpv vg_missing_pv_count)" 0
test_ok "LVM2 vgck accepts vgpv after the restore" lvm2 vgck vgpv

# ---------------------------------------------------------------- a VG made by lvx

if lvxs vgcreate --help >/dev/null 2>&1; then
    test_ok "lvx pvcreate D4 again" lvxs pvcreate "$D4"
    test_ok "lvx vgcreate vgx D4 D5 (D5 without a metadata area)" lvxd vgcreate vgx "$D4" "$D5"
    test_eq "LVM2 sees vgx with 2 PVs" "$(vg_field vgx pv_count)" 2
    test_ok "pvchange -x n on D5" lvxd pvchange -x n "$D5"
    test_eq "LVM2: D5 not allocatable" "$(pv_field "$D5" pv_allocatable)" ""
    test_ok "pvresize --setphysicalvolumesize 32m -y on D5" \
        lvxd pvresize --setphysicalvolumesize 32m -y "$D5"
    test_eq "LVM2: D5 has 7 extents" "$(pv_field "$D5" pv_pe_count)" 7
    refuse "pvremove of a PV without metadata areas in a VG" lvxs pvremove "$D5"
    refuse "pvcreate on a PV without metadata areas in a VG" lvxs pvcreate "$D5"
    test_ok "LVM2 vgck accepts vgx" lvm2 vgck vgx
else
    test_skip "PV commands on a VG made by lvx vgcreate" "lvx vgcreate not available"
fi

# ---------------------------------------------------------------- bad input

refuse "unknown option" lvxs pvcreate --bogus "$D3"
refuse "--labelsector 4" lvxs pvcreate --labelsector 4 "$D3"
refuse "--metadatacopies 3" lvxs pvcreate --metadatacopies 3 "$D3"
refuse "--metadatasize not a multiple of 512 bytes" lvxs pvcreate --metadatasize 1000b "$D3"
# the checks of many devices run on helper threads (cmd/pvcreate.c probe_all): their
# findings still refuse the whole command, one line, nothing written
refuse "pvcreate naming a device twice" lvxs pvcreate "$D3" "$D3"
test_ok "... LVM2's line names it" grep -q "Device $D3 is named more than once" "$SCRATCH/r.err"
python3 -c 'import os, sys, time; fd = os.open(sys.argv[1], os.O_RDONLY | os.O_EXCL); print("held", flush=True); time.sleep(60)' \
    "$D3" >"$SCRATCH/held" 2>&1 &
holder=$!
for _ in $(seq 1 100); do grep -q held "$SCRATCH/held" && break; sleep 0.05; done
refuse "pvcreate of a device held exclusively (as mounted)" lvxs pvcreate "$D3"
test_ok "... LVM2's line" grep -qF "Can't open $D3 exclusively.  Mounted filesystem?" "$SCRATCH/r.err"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
refuse "device too small (1 MiB)" lvxs pvcreate "$SMALL"
refuse "nonexistent device" lvxs pvcreate /dev/lvx-no-such-device
refuse "one bad device among good ones: nothing written" lvxs pvcreate "$D3" /dev/lvx-no-such-device
refuse "pvremove of a device without a PV" lvxs pvremove "$D3"
refuse "pvchange without a change" lvxd pvchange "$D6"

if command -v mkfs.xfs >/dev/null; then
    mkfs.xfs -q -f "$BIG" >/dev/null 2>&1
    refuse "pvcreate on an xfs filesystem without -f" lvxs pvcreate "$BIG"
    test_eq "blkid still sees xfs" "$(blkid -p -o value -s TYPE "$BIG")" xfs
    test_ok "pvcreate -f on an xfs filesystem" lvxs pvcreate -f "$BIG"
    cp "$SCRATCH/.out" "$SCRATCH/xfs.out"
    test_ok "lvx said it wiped xfs" grep -q "Wiping xfs signature on $BIG" "$SCRATCH/xfs.out"
    test_eq "blkid sees only the PV" "$(blkid -p -o value -s TYPE "$BIG")" LVM2_member
    test_eq "LVM2 sees the PV" "$(is_pv "$BIG")" yes
else
    test_skip "xfs signature cases" "mkfs.xfs not installed"
fi
if command -v mkfs.ext4 >/dev/null; then
    mkfs.ext4 -q -F "$D3" >/dev/null 2>&1
    refuse "pvcreate on an ext4 filesystem without -f" lvxs pvcreate "$D3"
    test_eq "blkid still sees ext4" "$(blkid -p -o value -s TYPE "$D3")" ext4
    test_ok "pvcreate -y on an ext4 filesystem" lvxs pvcreate -y "$D3"
    test_eq "blkid sees only the PV" "$(blkid -p -o value -s TYPE "$D3")" LVM2_member
    test_eq "LVM2 sees the PV" "$(is_pv "$D3")" yes
else
    test_skip "ext4 signature cases" "mkfs.ext4 not installed"
fi

done_testing
