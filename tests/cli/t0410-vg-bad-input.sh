#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0410-vg-bad-input: every refusal of the VG commands gives one error line on stderr,
# a non-zero exit status (no crash, no sanitizer report) and leaves the devices
# byte-for-byte unchanged: invalid and existing VG names, a PV of another VG, extent
# sizes that are not allowed, vgreduce of a PV holding LVs and of the last PV, vgremove
# of a missing VG and of a VG with LVs (without -f), vgrename to an existing name,
# vgcfgrestore of a file naming unknown PV UUIDs, an unknown option, and metadata
# larger than the metadata areas.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_loop
need_cmd lvm
need_lvx
plan_later

D=()
for _ in 1 2 3 4 5; do D+=("$(make_loop 64M)") || skip_all "cannot make loop devices"; done
DEVS=$(IFS=,; echo "${D[*]}")
lvm_sandbox "${D[@]}"
lx() { LVM_SYSTEM_DIR="$SCRATCH/lvm" lvx "$@" --devices "$DEVS"; }

# refused DESCRIPTION EXPECTED_ERROR_REGEX lvx-args...: exit 1..127, exactly one stderr
# line matching the regex, devices unchanged.
refused() {
    local what=$1 want=$2
    shift 2
    sha_devs "${D[@]}" >"$SCRATCH/sha.before"
    test_fail "$what: refused" lx "$@"
    local lines
    # LVM2's toolkit line after a missing VG's (t0949 checks it) and a question left
    # unanswered (LVM2's prompt on stderr, "[n]" at the end of input) are not counted
    grep -v -e '^  Cannot process volume group ' -e '\[y/n\]: \[n\]$' "$SCRATCH/.err" >"$SCRATCH/.err1"
    lines=$(grep -c '' "$SCRATCH/.err1")
    if [[ $lines -eq 1 ]] && grep -Eq -- "$want" "$SCRATCH/.err1"; then
        _tap_result 0 "$what: one clear error line"
    else
        _tap_result 1 "$what: one clear error line"
        diag "want one line matching: $want"
        _diag_file stderr "$SCRATCH/.err"
    fi
    sha_devs "${D[@]}" >"$SCRATCH/sha.after"
    test_eq "$what: devices unchanged" "$(cat "$SCRATCH/sha.after")" "$(cat "$SCRATCH/sha.before")"
}

# setup: vg1 on DEV1 DEV2 with an LV on DEV1, vg0 on DEV4 alone, DEV3 an orphan PV with a
# small metadata area, DEV5 an orphan PV
lvm2 pvcreate "${D[0]}" "${D[1]}" "${D[3]}" "${D[4]}" >/dev/null 2>&1
lvm2 pvcreate --metadatasize 32k --dataalignment 64k "${D[2]}" >/dev/null 2>&1
test_ok "setup: lvx vgcreate vg1" lx vgcreate vg1 "${D[0]}" "${D[1]}"
test_ok "setup: lvx vgcreate vg0" lx vgcreate vg0 "${D[3]}"
test_ok "setup: LVM2 lvcreate on DEV1" lvm2 lvcreate -Zn -l 4 -n lv1 vg1 "${D[0]}"

refused "vgcreate with an invalid VG name" 'name "bad/name" is invalid' vgcreate bad/name "${D[4]}"
refused "vgcreate of an existing VG name" '^  A volume group called vg1 already exists\.$' \
    vgcreate vg1 "${D[4]}"
refused "vgcreate on a PV of another VG" "^  Physical volume '${D[0]}' is already in volume group 'vg1'\$" \
    vgcreate vg2 "${D[0]}"
refused "vgextend with a PV of another VG" "^  Physical volume '${D[3]}' is already in volume group 'vg0'\$" \
    vgextend vg1 "${D[3]}"
refused "vgcreate -s 3k" 'multiple of 128.00 KiB when not a power of 2' vgcreate -s 3k vg2 "${D[4]}"
refused "vgcreate -s 0" 'may not be zero' vgcreate -s 0 vg2 "${D[4]}"
refused "vgcreate -s 4X" 'Invalid argument for --physicalextentsize: 4X' vgcreate -s 4X vg2 "${D[4]}"
refused "vgcreate -s 4T" 'smaller than <2.00 TiB' vgcreate -s 4T vg2 "${D[4]}"
refused "vgcreate of a device that does not exist" 'No device found for /dev/lvx-no-such-device' \
    vgcreate vg2 /dev/lvx-no-such-device
refused "vgreduce of a PV holding an LV" "^  Physical volume \"${D[0]}\" still in use\$" \
    vgreduce vg1 "${D[0]}"
refused "vgreduce of the last PV" "Can't remove final physical volume \"${D[3]}\" from volume group \"vg0\"" \
    vgreduce vg0 "${D[3]}"
refused "vgreduce of a PV not in the VG" "Failed to find physical volume \"${D[4]}\"" \
    vgreduce vg1 "${D[4]}"
refused "vgremove of a missing VG" '^  Volume group "vgX" not found$' vgremove vgX
refused "vgremove of a VG with LVs without -f" 'Volume group "vg1" not removed' vgremove vg1
refused "vgrename to an existing name" '^  New VG name "vg0" already exists$' vgrename vg1 vg0
refused "vgrename to an invalid name" 'name "a/b" is invalid' vgrename vg1 a/b
test_ok "setup: vgchange -x n vg0" lx vgchange -x n vg0
refused "vgchange -x n of a VG already not resizeable" '^  Volume group "vg0" is already not resizeable$' \
    vgchange -x n vg0
refused "vgextend of a VG not resizeable" '^  Volume group vg0 is not resizeable\.$' \
    vgextend vg0 "${D[4]}"
test_ok "setup: vgchange -x y vg0" lx vgchange -x y vg0
refused "vgchange without a change" 'No change requested' vgchange vg1
refused "vgchange -p below the PV count" 'MaxPhysicalVolumes is less than the current number 2' \
    vgchange -p 1 vg1
refused "unknown option" "unrecognized option '--foo'" vgcreate --foo vg2 "${D[4]}"
refused "vgcreate --vgmetadatacopies x" 'Invalid argument for --vgmetadatacopies: x' \
    vgcreate --vgmetadatacopies x vg2 "${D[4]}"

# vgcfgrestore of a backup whose PV UUIDs match no device
if lx vgcfgbackup -f "$SCRATCH/vg0.vg" vg0 >/dev/null 2>&1; then
    sed -E 's/^(\t\t\tid = ")....../\1Zzzzzz/' "$SCRATCH/vg0.vg" >"$SCRATCH/bad.vg"
    test_fail "control: the edited file names an unknown PV" cmp -s "$SCRATCH/vg0.vg" "$SCRATCH/bad.vg"
    refused "vgcfgrestore of a file naming unknown PV UUIDs" 'no device found for PV Zzzzzz' \
        vgcfgrestore -f "$SCRATCH/bad.vg" vg0
    refused "vgcfgrestore of a file of another VG" "does not contain volume group 'vg1'" \
        vgcfgrestore -f "$SCRATCH/vg0.vg" vg1
else
    test_skip "vgcfgrestore of a file naming unknown PV UUIDs" "lvx vgcfgbackup failed"
fi
refused "vgcfgrestore of a missing file" "^  $SCRATCH/none.vg: stat failed: No such file or directory\$" \
    vgcfgrestore -f "$SCRATCH/none.vg" vg0

# metadata larger than the metadata area (DEV3: 32 KiB area): nothing may be written
tags=()
for i in $(seq 1 3000); do tags+=(--addtag "tag_$i"); done
refused "vgcreate with metadata over the area size" 'does not fit in the metadata area' \
    vgcreate "${tags[@]}" vgT "${D[2]}"
test_ok "setup: a VG on the small-area PV" lx vgcreate vgT "${D[2]}"
refused "vgchange adding tags over the area size" 'does not fit in the metadata area' \
    vgchange "${tags[@]}" vgT

# a device without a PV label but with another signature: no implicit pvcreate without -y
if command -v mkswap >/dev/null 2>&1 && lvm2 pvremove "${D[4]}" >/dev/null 2>&1 &&
    mkswap "${D[4]}" >/dev/null 2>&1; then
    refused "vgcreate on a device with a swap signature" 'swap signature detected on' \
        vgcreate vgS "${D[4]}"
else
    test_skip "vgcreate on a device with a swap signature" "mkswap or pvremove failed"
fi

done_testing
