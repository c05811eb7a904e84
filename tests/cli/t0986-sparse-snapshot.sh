#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0986-sparse-snapshot: LVM2's sparse snapshots (`lvcreate --type snapshot -L SIZE -n NAME
# VG --virtualsize VSIZE`): a COW snapshot whose origin is the hidden NAME_vorigin, a
# "zero" LV of the virtual size, on two loop devices with the lvx daemon (user backend):
#   - the metadata as LVM2 reads it: NAME_vorigin (READ only, hidden, one zero segment of
#     the virtual size rounded up to extents), snapshot0 tying it to the COW LV; LVM2's
#     lvs -a and lvx's the same (names, attrs, sizes, origin);
#   - served by the daemon: the LV reads zeroes, data written reads back (and again after
#     deactivation and reactivation), snap_percent grows;
#   - lvremove takes NAME_vorigin with it; bad input refused before anything is written;
#   - a VG restored by LVM2's vgcfgrestore from lvx's backup passes LVM2's checks.
# Costs about 15-30 s.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"
source "$LVX_ROOT/tests/tools/uspace-snap.sh"

VG=vgspr$$
uspace_snap_env "$VG"

rep() {  # rep TOOL: lvs -a of the VG, fields that do not depend on the backend
    "$@" lvs -a --noheadings --separator , -o lv_name,lv_attr,lv_size,origin,seg_type,lv_role \
        --units k "$VG" 2>/dev/null | tr -d ' ' | sed 's/\(^[^,]*,....\)../\1--/' | sort
}

head -c 3M /dev/urandom >"$SCRATCH/W"
uspace_run_ok "vgcreate" lvx vgcreate "$VG" "${D[@]}"
uspace_run_ok "lvcreate --type snapshot -s -L 8m -n sp --virtualsize 1001m (active)" \
    lvx lvcreate --type snapshot -s -L 8m -n sp "$VG" --virtualsize 1001m
test_ok "... rounding message for the virtual size" \
    grep -q "Rounding up size to full physical extent 1004.00 MiB" "$SCRATCH/out"
test_ok "... created message" grep -q 'Logical volume "sp" created.' "$SCRATCH/out"
test_ok "sp is served: $DEV/sp is a block device" test -b "$DEV/sp"
test_eq "sp is as large as the virtual size" "$(blockdev --getsize64 "$DEV/sp")" $((1004 << 20))
test_eq "sp reads zeroes (first 4 MiB)" \
    "$(dd if="$DEV/sp" bs=1M count=4 iflag=direct status=none | sha256sum | cut -d' ' -f1)" \
    "$(head -c 4M /dev/zero | sha256sum | cut -d' ' -f1)"

uspace_run_ok "lvcreate --type snapshot -l 2 -n big -V 2t (a second one)" \
    lvx lvcreate --type snapshot -l 2 -n big -V 2t "$VG"
test_eq "big is 2 TiB" "$(blockdev --getsize64 "$DEV/big")" $((2 << 40))

# ------------------------------------------------------------ metadata as LVM2 reads it
lvx vgcfgbackup -f "$SCRATCH/meta" "$VG" >/dev/null 2>&1
lvm2 vgcfgbackup -f "$SCRATCH/meta2" "$VG" >/dev/null 2>&1
lvs_text() { sed -n '/^\tlogical_volumes {/,$p' "$1"; }
test_eq "LVM2 writes the LVs back as lvx wrote them (COW LVs first, then the hidden ones)" \
    "$(lvs_text "$SCRATCH/meta")" "$(lvs_text "$SCRATCH/meta2")"
test_eq "order: sp, big, sp_vorigin, snapshot0, big_vorigin, snapshot1" \
    "$(lvs_text "$SCRATCH/meta" | sed -n 's/^\t\t\([a-z_0-9]*\) {$/\1/p' | xargs)" \
    "sp big sp_vorigin snapshot0 big_vorigin snapshot1"
sect() { sed -n "/^\t\t$1 {/,/^\t\t}/p" "$SCRATCH/meta"; }
test_ok "sp_vorigin: status READ only" grep -q 'status = \["READ"\]' <(sect sp_vorigin)
test_eq "sp_vorigin: one zero segment of 251 extents" \
    "$(sect sp_vorigin | grep -cE 'segment_count = 1|type = "zero"|extent_count = 251')" 3
test_eq "snapshot0: origin sp_vorigin, cow_store sp, 251 extents" \
    "$(sect snapshot0 | grep -cE 'origin = "sp_vorigin"|cow_store = "sp"|extent_count = 251')" 3
test_ok "sp: no VISIBLE (listed through its origin)" \
    bash -c "! grep -q VISIBLE" < <(sect sp)
test_eq "lvs -a: LVM2 reads what lvx reports" "$(rep lvx)" "$(rep lvm2)"
test_eq "lvs: sp and big are listed, the _vorigin LVs are not (LVM2)" \
    "$(lvm2 lvs --noheadings -o lv_name "$VG" 2>/dev/null | xargs)" "big sp"
test_eq "lvs: lvx the same" "$(lvx lvs --noheadings -o lv_name "$VG" 2>/dev/null | xargs)" "big sp"
attr=$(field sp lv_attr)
test_eq "sp: lv_attr s...a (snapshot, active)" "${attr:0:1}${attr:4:1}" "sa"
test_eq "sp: origin [sp_vorigin] (hidden, as LVM2)" "$(field sp origin)" "[sp_vorigin]"
test_ok "vgck by LVM2" lvm2 vgck "$VG"

# ------------------------------------------------------------ data
uspace_run_ok "3 MiB written at 500 MiB" \
    dd if="$SCRATCH/W" of="$DEV/sp" bs=1M seek=500 oflag=direct status=none
test_eq "... read back" \
    "$(dd if="$DEV/sp" bs=1M skip=500 count=3 iflag=direct status=none | sha256sum | cut -d' ' -f1)" \
    "$(fsum "$SCRATCH/W")"
pct=$(field sp snap_percent)
test_ok "snap_percent grew ($pct)" "$PYTHON" -c "import sys; sys.exit(not 30 < float('$pct') < 100)"
uspace_run_ok "vgchange -an" lvx vgchange -an "$VG"
test_fail "sp is not served any more" test -b "$DEV/sp"
uspace_run_ok "vgchange -ay (the hidden origin's set)" lvx vgchange -ay "$VG"
test_eq "after reactivation: the data read back" \
    "$(dd if="$DEV/sp" bs=1M skip=500 count=3 iflag=direct status=none | sha256sum | cut -d' ' -f1)" \
    "$(fsum "$SCRATCH/W")"
uspace_run_ok "lvchange -an $VG/sp" lvx lvchange -an "$VG/sp"
uspace_run_ok "lvchange -ay $VG/sp" lvx lvchange -ay "$VG/sp"
test_ok "sp served again" test -b "$DEV/sp"

# ------------------------------------------------------------ refused
lvx vgcfgbackup -f "$SCRATCH/before" "$VG" >/dev/null 2>&1
lvx lvcreate --type snapshot -s -L 8m -n sp2 "$VG" --virtualsize 0 >"$SCRATCH/out" 2>&1
test_eq "--virtualsize 0: exit 3" "$?" 3
lvx lvcreate -s -L 8m -n sp3 "$VG/sp_vorigin" >"$SCRATCH/out" 2>&1
test_eq "a snapshot of sp_vorigin: exit 5" "$?" 5
test_ok "... LVM2's line" grep -q "Can't share virtual origins. Use --virtualsize." "$SCRATCH/out"
lvx lvcreate --type snapshot -s -L 8m -n sp4 "$VG" --virtualsize 20P >"$SCRATCH/out" 2>&1
test_eq "a virtual size beyond 2^32 extents: exit 5" "$?" 5
test_ok "... LVM2's line" grep -q "Volume too large (20.00 PiB) for extent size 4.00 MiB" "$SCRATCH/out"
lvx vgcfgbackup -f "$SCRATCH/after" "$VG" >/dev/null 2>&1
test_eq "nothing written by the refused commands" \
    "$(grep -c seqno "$SCRATCH/after"; grep seqno "$SCRATCH/after")" \
    "$(grep -c seqno "$SCRATCH/before"; grep seqno "$SCRATCH/before")"

# ------------------------------------------------------------ --virtualoriginsize
# LVM2's synonym of -V that always makes a sparse snapshot (lvcreate-usage: "-s
# --virtualoriginsize 64m -L 32m" gives a COW LV of segtype linear under the default
# sparse_segtype_default "thin"), and both together refused
uspace_run_ok "lvcreate -s --virtualoriginsize 64m -L 32m -n vo (no --type)" \
    lvx lvcreate -s --virtualoriginsize 64m -L 32m -n vo "$VG"
test_eq "... vo: the COW LV (segtype linear) of vo_vorigin" \
    "$(lvm2 lvs --noheadings -o seg_type,origin "$VG/vo" 2>/dev/null | xargs)" "linear [vo_vorigin]"
uspace_run_ok "lvremove -f vo" lvx lvremove -f "$VG/vo"
lvx lvcreate -s --virtualoriginsize 64m -V 64m -L 32m -n vo2 "$VG" >"$SCRATCH/out" 2>&1
test_eq "--virtualoriginsize with --virtualsize: exit 3" "$?" 3
test_ok "... LVM2's line" grep -q "are synonyms.  Please only supply one." "$SCRATCH/out"

# ------------------------------------------------------------ removal and restore
uspace_run_ok "lvremove -f of the active sp" lvx lvremove -f "$VG/sp"
test_eq "... one line, for sp" "$(grep 'successfully removed' "$SCRATCH/out")" \
    "  Logical volume \"sp\" successfully removed."
test_eq "sp_vorigin and snapshot0 went too" \
    "$(lvm2 lvs -a --noheadings -o lv_name "$VG" 2>/dev/null | xargs)" "big [big_vorigin]"
uspace_run_ok "lvremove -f of the active big" lvx lvremove -f "$VG/big"
test_eq "no LV left" \
    "$(lvm2 lvs -a --noheadings -o lv_name "$VG" 2>/dev/null | xargs)" ""
test_fail "sp is not served" test -b "$DEV/sp"
uspace_run_ok "vgchange -an" lvx vgchange -an "$VG"
uspace_run_ok "vgcfgrestore by LVM2 from lvx's backup with sp" \
    lvm2 vgcfgrestore -f "$SCRATCH/meta" "$VG"
test_eq "LVM2 lists sp after the restore" \
    "$(lvm2 lvs --noheadings -o lv_name,origin "$VG" 2>/dev/null | xargs)" "big [big_vorigin] sp [sp_vorigin]"
test_ok "vgck by LVM2 after the restore" lvm2 vgck "$VG"
test_eq "lvx reads the restored VG as LVM2" "$(rep lvx)" "$(rep lvm2)"
uspace_run_ok "lvx activates the restored sparse LV" lvx lvchange -ay "$VG/sp"
test_eq "... and reads the data written before" \
    "$(dd if="$DEV/sp" bs=1M skip=500 count=3 iflag=direct status=none | sha256sum | cut -d' ' -f1)" \
    "$(fsum "$SCRATCH/W")"
uspace_run_ok "vgremove -f" lvx vgremove -f "$VG"
done_testing
