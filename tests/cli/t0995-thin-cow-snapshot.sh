#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0995-thin-cow-snapshot: COW snapshots of thin LVs (`lvcreate -s -L SIZE -n NAME
# VG/THIN`, also --type snapshot), which LVM2 makes as old-style snapshots whose origin is
# the thin LV (lvcreate-thin-snap, its line 62), lvx beside the real LVM2 on the same loop
# devices (activation off: LVM2 cannot make snapshots without device-mapper, the kernel
# side is t0742; the pool and the thin LV are made by lvx's user backend):
#   - the metadata lvx writes is what LVM2 writes back (the COW LV, snapshotN with the
#     thin LV as origin), and LVM2's reports equal lvx's (lv_attr "o" and target "t" of
#     the thin origin, origin, snap_percent, segtype, role);
#   - snapshots of the thin pool refused with LVM2's line (on the host LVM2 refuses any
#     snapshot first: no device-mapper), nothing written;
#   - the user backend activates a thin origin with its COW snapshots (its pool first)
#     and makes a snapshot of an active thin LV (the daemon's side is t1008);
#   - lvremove of a snapshot, and of the thin origin (its snapshots first, LVM2's order),
#     leave metadata LVM2 accepts.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/side.sh"

VG=vgtcow$$
side_setup 2
[[ -c /dev/fuse ]] || skip_all "no /dev/fuse (user activation backend)"
plan_later
mkdir -p "$SCRATCH/dev"
DEV=$SCRATCH/dev
U() { DM_DEV_DIR=$DEV LVX_ACTIVATION_BACKEND=user lvx "$@" --config 'global { activation = 1 }'; }
seqno() { lvm2 vgs --noheadings -o vg_seqno "$VG" 2>/dev/null | tr -d ' '; }
# lvs -a of the VG by TOOL (lvx or lvm2), fields that do not need device-mapper
rep() {
    "$1" lvs -a --noheadings --separator , -o \
        lv_name,lv_attr,lv_size,origin,origin_size,snap_percent,chunk_size,segtype,lv_role,lv_layout,pool_lv \
        --units k "$VG" 2>/dev/null | tr -d ' ' | sort
}
lvs_text() { sed -n '/^\tlogical_volumes {/,$p' "$1"; }
sect() { sed -n "/^\t\t$2 {/,/^\t\t}/p" "$1"; }

lvm2 vgcreate -q -s 64k "$VG" "${D[@]}" >/dev/null 2>&1
U lvcreate -q -T -L 16m "$VG/pool" -V 8m -n lv1 >/dev/null 2>&1
U vgchange -q -an "$VG" >/dev/null 2>&1
test_eq "lvx made the thin LV lv1 in pool" \
    "$(lvm2 lvs --noheadings -o segtype,pool_lv "$VG/lv1" 2>/dev/null | xargs)" "thin pool"

rc=0
lvx lvcreate -s -L 1m -n os1 "$VG/lv1" >"$SCRATCH/o" 2>&1 || rc=$?
test_eq "lvcreate -s -L 1m -n os1 VG/THIN: exit 0" "$rc" 0
test_ok "... LVM2's created line" grep -qx '  Logical volume "os1" created.' "$SCRATCH/o"
rc=0
lvx lvcreate --type snapshot -L 1m -n os2 "$VG/lv1" >"$SCRATCH/o" 2>&1 || rc=$?
test_eq "lvcreate --type snapshot -L 1m -n os2 VG/THIN: exit 0" "$rc" 0

lvx vgcfgbackup -f "$SCRATCH/m1" "$VG" >/dev/null 2>&1
lvm2 vgcfgbackup -f "$SCRATCH/m2" "$VG" >/dev/null 2>&1
test_eq "LVM2 writes the LVs back as lvx wrote them" "$(lvs_text "$SCRATCH/m1")" "$(lvs_text "$SCRATCH/m2")"
test_eq "snapshot0: origin lv1, cow_store os1, chunk 8 sectors, 128 extents" \
    "$(sect "$SCRATCH/m1" snapshot0 | grep -cE 'origin = "lv1"|cow_store = "os1"|chunk_size = 8$|extent_count = 128')" 4
test_eq "snapshot1: origin lv1, cow_store os2" \
    "$(sect "$SCRATCH/m1" snapshot1 | grep -cE 'origin = "lv1"|cow_store = "os2"')" 2
test_ok "os1: no VISIBLE (listed through its origin)" bash -c "! grep -q VISIBLE" < <(sect "$SCRATCH/m1" os1)
test_eq "lvs -a: LVM2's fields equal lvx's" "$(rep lvx)" "$(rep lvm2)"
diag "$(diff <(rep lvx) <(rep lvm2))"
attr=$(lvx lvs --noheadings -o lv_attr "$VG/lv1" 2>/dev/null | tr -d ' ')
test_eq "lv1: lv_attr o.....t (origin of COW snapshots, thin target)" "${attr:0:1}${attr:6:1}" "ot"
test_ok "LVM2's vgck passes" lvm2 vgck "$VG"

s0=$(seqno)
rc=0
lvx lvcreate -s -L 1m -n bad "$VG/pool" >"$SCRATCH/o" 2>&1 || rc=$?
test_eq "lvcreate -s -L 1m VG/pool (a thin pool): exit 5" "$rc" 5
test_eq "... LVM2's line (validate_snapshot_origin)" "$(grep -v WARNING "$SCRATCH/o")" \
    "  Snapshots of thin pool type volumes are not supported."
test_eq "... nothing written" "$(seqno)" "$s0"
rc=0
U lvchange -ay "$VG/lv1" >"$SCRATCH/o" 2>&1 || rc=$?
test_eq "user backend: lvchange -ay of the thin origin: exit 0" "$rc" 0
test_ok "... its snapshots active with it (os1's device)" test -b "$DEV/$VG/os1"
test_eq "... nothing written" "$(seqno)" "$s0"
U vgchange -q -an "$VG" >/dev/null 2>&1

rc=0
lvx lvremove -q -y "$VG/os2" >"$SCRATCH/o" 2>&1 || rc=$?
test_eq "lvremove VG/os2 (a snapshot): exit 0" "$rc" 0
rc=0
U lvremove -f "$VG/lv1" >"$SCRATCH/o" 2>&1 || rc=$?
test_eq "lvremove -f VG/lv1 (the thin origin): its snapshot first, then it (LVM2's order)" \
    "$rc $(grep -o 'Logical volume "[a-z0-9]*" successfully removed' "$SCRATCH/o" | cut -d'"' -f2 | xargs)" \
    "0 os1 lv1"
test_eq "LVM2 reads the pool's LVs only" \
    "$(lvm2 lvs -a --noheadings -o lv_name "$VG" 2>/dev/null | tr -d ' []' | sort | xargs)" \
    "lvol0_pmspare pool pool_tdata pool_tmeta"
test_ok "LVM2's vgck passes" lvm2 vgck "$VG"
test_eq "no snapshotN left in the metadata" "$(lvx vgcfgbackup -f "$SCRATCH/m3" "$VG" >/dev/null 2>&1;
    grep -c 'snapshot[0-9]* {' "$SCRATCH/m3")" 0

U lvcreate -q -V 8m -n lv2 "$VG/pool" >/dev/null 2>&1
lvx lvcreate -q -s -L 1m -n os4 "$VG/lv2" >/dev/null 2>&1
rc=0
U lvremove -f "$VG/pool" >"$SCRATCH/o" 2>&1 || rc=$?
test_eq "lvremove -f VG/pool: the thin LV after its COW snapshot, then the pool" \
    "$rc $(grep -o 'Logical volume "[a-z0-9]*" successfully removed' "$SCRATCH/o" | cut -d'"' -f2 | xargs)" \
    "0 os4 lv2 pool"
test_ok "LVM2's vgck passes" lvm2 vgck "$VG"
U lvcreate -q -T -L 16m "$VG/pool" -V 8m -n lv2 >/dev/null 2>&1
s0=$(seqno)
rc=0
U lvcreate -s -L 1m -n os3 "$VG/lv2" >"$SCRATCH/o" 2>&1 || rc=$?
test_eq "user backend, lv2 active: lvcreate -s VG/THIN: exit 0" "$rc" 0
test_ok "... the snapshot active (os3's device)" test -b "$DEV/$VG/os3"
test_ok "... the snapshot in the metadata" test "$(seqno)" -gt "$s0"
U vgchange -q -an "$VG" >/dev/null 2>&1

lvm2 vgremove -ff "$VG" >/dev/null 2>&1
done_testing
