#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0996-sparse-rename-thin: sparse snapshots' leftovers (lvcreate -s -L S -V VS, the
# hidden NAME_vorigin; t0986), on two loop devices with the lvx daemon (user backend)
# and LVM2 (activation off) as the reader of the metadata:
#   - lvrename of a sparse snapshot renames its NAME_vorigin to NEW_vorigin as LVM2's
#     _rename_sub_lv (inactive: the metadata LVM2 reads; active: the served devices take
#     the new names, the data reads back) (lvcreate-usage, its line 162);
#   - the user backend makes no /dev/VG link for the hidden _vorigin at activation (LVM2's
#     _lv_has_mknode); an active rename links it, as LVM2's rename of its device does;
#   - lvcreate -s -V SIZE -L SIZE -n NAME VG under LVM2's default
#     global/sparse_segtype_default = "thin" makes a thin LV in a new pool as LVM2 does
#     (-s dropped), and a sparse snapshot under "snapshot".
# Costs about 10-20 s.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"
source "$LVX_ROOT/tests/tools/uspace-snap.sh"

VG=vgsrt$$
uspace_snap_env "$VG"
head -c 1M /dev/urandom >"$SCRATCH/W"
names() { lvm2 lvs -a --noheadings -o lv_name "$VG" 2>/dev/null | tr -d ' []' | sort | xargs; }
seg() { lvm2 lvs -a --noheadings -o segtype,origin "$VG/$1" 2>/dev/null | xargs; }

uspace_run_ok "vgcreate" lvx vgcreate "$VG" "${D[@]}"
uspace_run_ok "lvcreate --type snapshot -L 8m -V 64m -n sp (active)" \
    lvx lvcreate --type snapshot -L 8m -V 64m -n sp "$VG"
test_eq "/dev/VG holds sp only, no link for sp_vorigin (LVM2)" "$(ls "$DEV" | xargs)" "sp"
uspace_run_ok "1 MiB written at 10 MiB" \
    dd if="$SCRATCH/W" of="$DEV/sp" bs=1M seek=10 oflag=direct status=none

# ---- active rename
uspace_run_ok "lvrename VG/sp VG/sp2 (active)" lvx lvrename "$VG/sp" "$VG/sp2"
test_ok "... Renamed line" grep -q "Renamed \"sp\" to \"sp2\" in volume group \"$VG\"" "$SCRATCH/out"
test_eq "LVM2 reads sp2 and sp2_vorigin" "$(names)" "sp2 sp2_vorigin"
test_eq "sp2's origin is sp2_vorigin" "$(seg sp2)" "linear [sp2_vorigin]"
test_eq "/dev/VG holds sp2 and sp2_vorigin (LVM2's rename of the device links it)" \
    "$(ls "$DEV" | xargs)" "sp2 sp2_vorigin"
test_eq "/dev/mapper: the served devices took the new names" \
    "$(ls "$DM_DEV_DIR/mapper" | grep "^$VG-" | sed "s/^$VG-//" | xargs)" "sp2 sp2_vorigin"
test_eq "the data reads back through sp2" \
    "$(dd if="$DEV/sp2" bs=1M skip=10 count=1 iflag=direct status=none | sha256sum | cut -d' ' -f1)" \
    "$(fsum "$SCRATCH/W")"
attr=$(field sp2 lv_attr)
test_eq "sp2 is active (attr s...a)" "${attr:0:1}${attr:4:1}" "sa"

# ---- inactive rename, then activation under the new names
uspace_run_ok "vgchange -an" lvx vgchange -an "$VG"
uspace_run_ok "lvrename VG sp2 sp3 (inactive)" lvx lvrename "$VG" sp2 sp3
test_eq "LVM2 reads sp3 and sp3_vorigin" "$(names)" "sp3 sp3_vorigin"
test_ok "LVM2's vgck passes" lvm2 vgck "$VG"
uspace_run_ok "lvchange -ay VG/sp3" lvx lvchange -ay "$VG/sp3"
test_eq "/dev/VG holds sp3 only" "$(ls "$DEV" | xargs)" "sp3"
test_eq "the data reads back through sp3" \
    "$(dd if="$DEV/sp3" bs=1M skip=10 count=1 iflag=direct status=none | sha256sum | cut -d' ' -f1)" \
    "$(fsum "$SCRATCH/W")"
rc=0
lvx lvrename "$VG/sp3_vorigin" "$VG/x" >"$SCRATCH/out" 2>&1 || rc=$?
test_eq "lvrename of the hidden sp3_vorigin refused with LVM2's line, exit 5" \
    "$rc $(cat "$SCRATCH/out")" "5   Cannot rename internal LV \"sp3_vorigin\"."
rc=0
lvm2 lvrename "$VG/sp3_vorigin" "$VG/x" >"$SCRATCH/out" 2>&1 || rc=$?
test_eq "... LVM2 the same" "$rc $(grep -v WARNING "$SCRATCH/out")" \
    "5   Cannot rename internal LV \"sp3_vorigin\"."

# ---- -s -V under sparse_segtype_default
uspace_run_ok "lvcreate -s -V 64m -L 16m -n th VG (default \"thin\"): a thin LV" \
    lvx lvcreate -s -V 64m -L 16m -n th "$VG"
test_eq "th is a thin LV in a new pool lvol0" \
    "$(lvm2 lvs --noheadings -o segtype,pool_lv "$VG/th" 2>/dev/null | xargs)" "thin lvol0"
test_eq "lvol0 is a thin pool of 16 MiB" \
    "$(lvm2 lvs --noheadings --units m -o segtype,lv_size "$VG/lvol0" 2>/dev/null | xargs)" "thin-pool 16.00m"
uspace_run_ok "lvcreate -s -V 64m -L 8m -n sp4 VG, sparse_segtype_default = \"snapshot\"" \
    lvx lvcreate -s -V 64m -L 8m -n sp4 "$VG" --config 'global { sparse_segtype_default = "snapshot" }'
test_eq "sp4 is a sparse snapshot" "$(seg sp4)" "linear [sp4_vorigin]"
test_eq "/dev/VG: no _vorigin link" "$(ls "$DEV" | xargs)" "sp3 sp4 th"

# ---- pool-only options without a pool: no LVM2 command form matches (lvcreate-usage:229)
for a in "--poolmetadataspare y" "--poolmetadatasize 10" "--discards passdown"; do
    rc=0
    # shellcheck disable=SC2086
    lvx lvcreate $a -l1 "$VG" >"$SCRATCH/x" 2>&1 || rc=$?
    lrc=0
    # shellcheck disable=SC2086
    lvm2 lvcreate $a -l1 "$VG" >"$SCRATCH/l" 2>&1 || lrc=$?
    test_eq "lvcreate $a -l1 VG: LVM2's line and exit code (3)" \
        "$rc $(grep -v WARNING "$SCRATCH/x")" "$lrc $(grep -v -e WARNING -e 'for more information' "$SCRATCH/l")"
done

uspace_run_ok "vgremove -ff" lvx vgremove -ff "$VG"
done_testing
