#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1058-thin-pool-repair: `lvconvert --repair VG/POOL` of a thin pool whose metadata is
# damaged, as LVM2 2.03.16 (LVM2's lvconvert-repair-thin.sh and thin-foreign-repair.sh:70),
# on the host in the user-space backend:
#   - a pool with two thin LVs holding data; its metadata damaged as LVM2's test does it
#     (swapped out into a plain LV, one byte changed -- here in the metadata space map's
#     index block, which thin_repair rebuilds --, swapped back): thin_check fails on it
#     and the pool's activation is refused;
#   - refusals, each with LVM2's line, exit 5 and nothing written (seqno): the pool or a
#     thin LV active; thin_repair_executable ""; a thin_repair that fails;
#   - the repair: thin_repair of the _tmeta into the spare, the spare becomes the pool's
#     metadata with the old _tmeta's name and UUID, the old _tmeta the visible
#     pool_meta0 with the spare's UUID, a new spare lvol1_pmspare; LVM2's two warnings;
#     the thin LVs activate and read the bytes written before the damage; pool_meta0
#     holds the damaged metadata byte for byte; a second repair makes pool_meta1 and
#     lvol2_pmspare (LVM2's name rule); a third, with the VG's transaction id not the
#     metadata's, prints LVM2's line on it and goes on;
#   - LVM2 as the oracle: a copy of the damaged VG's disks repaired by LVM2 (its
#     thin_repair replaced by /bin/true and thin_dump off: it cannot reach a dm device
#     here) ends with the same metadata as lvx's repair (names, UUIDs, flags, segments;
#     only the new spare's UUID and the times differ).
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

VG=vgrep$$
need_cmd thin_check thin_repair cksum
uspace_test_loops "$VG" 3 64M
seqno() { lvx vgs --noheadings -o vg_seqno "$VG" 2>/dev/null | tr -d ' '; }
uuid() { lvx lvs -a --noheadings -o lv_uuid "$VG/$1" 2>/dev/null | tr -d ' '; }
ranges() { lvx lvs -a --noheadings -o seg_pe_ranges "$VG/$1" 2>/dev/null | tr -d ' '; }
names() { lvx lvs -a --noheadings -o lv_name "$VG" 2>/dev/null | tr -d ' ' | sort | paste -sd' '; }
expect_line() {  # expect_line DESC FILE TEXT
    if grep -qF -- "$3" "$2"; then _tap_result 0 "$1"; else
        _tap_result 1 "$1"; _diag_file "output" "$2"; fi
}
refused() {  # refused DESC LINE ARGS...: exit 5, LINE printed, nothing written
    local desc=$1 line=$2 before rc=0
    shift 2
    before="$(seqno) $(names)"
    lvx "$@" >"$SCRATCH/o" 2>&1 || rc=$?
    test_eq "$desc: refused, exit 5" "$rc" 5
    expect_line "... LVM2's line" "$SCRATCH/o" "$line"
    test_eq "... nothing written (seqno, LVs)" "$(seqno) $(names)" "$before"
}

uspace_run_ok "pvcreate, vgcreate" sh -c "$LVX pvcreate -q ${DEVS[*]} && $LVX vgcreate -q $VG ${DEVS[*]}"
uspace_run_ok "pool with lv1 (lvcreate -T -L20M -V10M --chunksize 128k --discards ignore)" \
    lvx lvcreate -q -T -L20M -V10M -n lv1 "$VG/pool" --chunksize 128k --discards ignore \
    "${DEVS[0]}" "${DEVS[1]}"
uspace_run_ok "lv2 in the pool" lvx lvcreate -q -T -V10M -n lv2 "$VG/pool"
uspace_run_ok "8 MiB written to lv1 and lv2" sh -c "
    dd if=/dev/urandom of=$DM_DEV_DIR/$VG/lv1 bs=1M count=8 oflag=direct status=none &&
    dd if=/dev/urandom of=$DM_DEV_DIR/$VG/lv2 bs=1M count=8 oflag=direct status=none"
sum1=$(lv_sum "$VG/lv1")
sum2=$(lv_sum "$VG/lv2")
uspace_run_ok "bad: a 4 MiB LV" lvx lvcreate -q -L4M -n bad "$VG"

refused "lvconvert --repair of the pool while lv1 is active" \
    "Active pools cannot be repaired.  Use lvchange -an first." lvconvert --repair "$VG/pool"

uspace_run_ok "VG deactivated" lvx vgchange -q -an "$VG"
tmeta_uuid=$(uuid pool_tmeta)
spare_uuid=$(uuid lvol0_pmspare)
spare_ranges=$(ranges lvol0_pmspare)
tmeta_ranges=$(ranges pool_tmeta)
test_ok "the pool's _tmeta and the spare found ($tmeta_uuid $tmeta_ranges, $spare_uuid $spare_ranges)" \
    test -n "$tmeta_uuid" -a -n "$spare_uuid" -a -n "$spare_ranges"

# the damage, made as LVM2's lvconvert-repair-thin.sh makes it (swapped out, a byte
# changed, swapped back), in the metadata space map's index block (the superblock's
# metadata_space_map_root bitmap_root, byte 208): thin_check fails, and thin_repair,
# which rebuilds the space maps from the mappings, keeps every mapping
uspace_run_ok "the pool's metadata swapped into bad" \
    lvx lvconvert -q -y --thinpool "$VG/pool" --poolmetadata "$VG/bad"
uspace_run_ok "bad activated" lvx lvchange -q -ay "$VG/bad"
index=$(python3 -c "import struct, sys; print(struct.unpack_from('<Q', open(sys.argv[1], 'rb').read(4096), 208)[0])" "$DM_DEV_DIR/$VG/bad")
uspace_run_ok "one byte of its space map index (block $index) flipped" python3 -c "
import sys
with open(sys.argv[1], 'r+b') as f:
    f.seek(int(sys.argv[2]) * 4096 + 16)
    b = f.read(1)[0]
    f.seek(int(sys.argv[2]) * 4096 + 16)
    f.write(bytes([b ^ 0xff]))" "$DM_DEV_DIR/$VG/bad" "$index"
test_fail "thin_check finds the damage" thin_check -q "$DM_DEV_DIR/$VG/bad"
damaged=$(cksum <"$DM_DEV_DIR/$VG/bad")
uspace_run_ok "bad deactivated, swapped back into the pool" sh -c "
    $LVX lvchange -q -an $VG/bad && $LVX lvconvert -q -y --thinpool $VG/pool --poolmetadata $VG/bad"
test_eq "the pool's _tmeta is the old one again (UUID)" "$(uuid pool_tmeta)" "$tmeta_uuid"
rc=0; lvx lvchange -ay "$VG/lv1" >"$SCRATCH/o" 2>&1 || rc=$?
test_eq "lv1's activation refused, exit 5" "$rc" 5
expect_line "... LVM2's line" "$SCRATCH/o" "Check of pool $VG/pool failed (status:1). Manual repair required!"

refused "thin_repair_executable \"\"" "Thin repair commnand is not configured. Repair is disabled." \
    lvconvert --repair "$VG/pool" --config 'global { thin_repair_executable = "" }'
refused "a thin_repair that fails (/bin/false)" \
    "Repair of thin metadata volume of thin pool $VG/pool failed (status:1). Manual repair required!" \
    lvconvert --repair "$VG/pool" --config 'global { thin_repair_executable = "/bin/false" }'

# ---- LVM2's repair of a copy of the damaged disks (its metadata is the oracle) --------
COPY=()
for i in 0 1 2; do
    cp --sparse=always "$(loop_backing "${DEVS[$i]}")" "$SCRATCH/copy$i.img"
    COPY+=("$(attach_loop "$SCRATCH/copy$i.img")")
done
mkdir -p "$SCRATCH/lvmcopy"
sed "s#global_filter = .*#global_filter = [ \"a|^${COPY[0]}\$|\", \"a|^${COPY[1]}\$|\", \"a|^${COPY[2]}\$|\", \"r|.*|\" ]#" \
    "$SCRATCH/lvm/lvm.conf" >"$SCRATCH/lvmcopy/lvm.conf"
lvm_copy() { LVM_SYSTEM_DIR="$SCRATCH/lvmcopy" LVM_SUPPRESS_FD_WARNINGS=1 lvm "$@"; }
rc=0
lvm_copy lvconvert --repair "$VG/pool" \
    --config 'global { thin_repair_executable = "/bin/true" thin_dump_executable = "" }' \
    >"$SCRATCH/lvm2.out" 2>&1 || rc=$?
test_eq "LVM2's repair of the copy: exit 0" "$rc" 0

# ---- lvx's repair ------------------------------------------------------------------------
before=$(seqno)
rc=0; lvx lvconvert --repair "$VG/pool" >"$SCRATCH/o" 2>&1 || rc=$?
test_eq "lvconvert --repair VG/pool: exit 0" "$rc" 0
expect_line "... LVM2's warning on the backup" "$SCRATCH/o" \
    "WARNING: LV $VG/pool_meta0 holds a backup of the unrepaired metadata. Use lvremove when no longer required."
expect_line "... LVM2's warning on the PVs" "$SCRATCH/o" \
    "WARNING: New metadata LV $VG/pool_tmeta might use different PVs.  Move it with pvmove if required."
test_eq "... two commits, as LVM2 (the new spare, the swap: seqno +2)" "$(seqno)" "$((before + 2))"
test_eq "... the LVs: pool_meta0 and a new spare lvol1_pmspare" "$(names)" \
    "[lvol1_pmspare] [pool_tdata] [pool_tmeta] bad lv1 lv2 pool pool_meta0"
test_eq "... pool_meta0 visible (lvs without -a)" \
    "$(lvx lvs --noheadings -o lv_name "$VG" 2>/dev/null | tr -d ' ' | sort | paste -sd' ')" "bad lv1 lv2 pool pool_meta0"
test_eq "... _tmeta: the old _tmeta's UUID on the old spare's extents" \
    "$(uuid pool_tmeta) $(ranges pool_tmeta)" "$tmeta_uuid $spare_ranges"
test_eq "... pool_meta0: the old spare's UUID on the old _tmeta's extents" \
    "$(uuid pool_meta0) $(ranges pool_meta0)" "$spare_uuid $tmeta_ranges"

# the metadata against LVM2's (the copy): times and the new spare's UUID aside
meta_of() {  # meta_of LVM-FUNCTION: the VG's metadata text, normalized
    "$1" vgcfgbackup -f "$SCRATCH/m.vg" "$VG" >/dev/null 2>&1 || { echo "no metadata"; return; }
    local new
    new=$("$1" lvs -a --noheadings -o lv_uuid "$VG/lvol1_pmspare" 2>/dev/null | tr -d ' ')
    grep -v -e creation_time -e '^description' -e '^creation_host' -e '^contents' \
        -e '^version' -e '^# ' -e 'device = ' -e '^seqno' "$SCRATCH/m.vg" |
        sed -e "s/$new/NEW-SPARE-UUID/" -e '/^$/d'
}
lvx_side() { lvm2 "$@"; }
test_eq "the VG's metadata equals LVM2's repair of the copy (times, new spare's UUID aside)" \
    "$(meta_of lvx_side)" "$(meta_of lvm_copy)"
test_eq "... and so the seqno" "$(lvm2 vgs --noheadings -o vg_seqno "$VG" 2>/dev/null | tr -d ' ')" \
    "$(lvm_copy vgs --noheadings -o vg_seqno "$VG" 2>/dev/null | tr -d ' ')"
lvm_copy vgremove -ff "$VG" >/dev/null 2>&1
for d in "${COPY[@]}"; do detach_loop "$d"; done

uspace_run_ok "lv1 and lv2 activated" lvx lvchange -q -ay "$VG/lv1" "$VG/lv2"
test_eq "lv1 reads the bytes written before the damage" "$(lv_sum "$VG/lv1")" "$sum1"
test_eq "lv2 too" "$(lv_sum "$VG/lv2")" "$sum2"
uspace_run_ok "VG deactivated; pool_meta0 activated" sh -c "
    $LVX vgchange -q -an $VG && $LVX lvchange -q -ay $VG/pool_meta0"
test_eq "pool_meta0 holds the damaged metadata byte for byte" \
    "$(head -c 4194304 "$DM_DEV_DIR/$VG/pool_meta0" | cksum)" "$damaged"
uspace_run_ok "pool_meta0 deactivated" lvx lvchange -q -an "$VG/pool_meta0"

rc=0; lvx lvconvert --repair "$VG/pool" >"$SCRATCH/o" 2>&1 || rc=$?
test_eq "a second repair: exit 0" "$rc" 0
test_eq "... pool_meta1 and lvol2_pmspare (LVM2's generate_lv_name)" "$(names)" \
    "[lvol2_pmspare] [pool_tdata] [pool_tmeta] bad lv1 lv2 pool pool_meta0 pool_meta1"
uspace_run_ok "lv1 activated after it" lvx lvchange -q -ay "$VG/lv1"
test_eq "... reads the same bytes" "$(lv_sum "$VG/lv1")" "$sum1"
uspace_run_ok "VG deactivated" lvx vgchange -q -an "$VG"

# a VG whose transaction id is not the metadata's (7 against 2): LVM2's error line, and
# the repair goes on (LVM2's exit 0)
uspace_run_ok "the pool's transaction_id set to 7 in the VG (vgcfgbackup, vgcfgrestore --force)" sh -c "
    $LVX vgcfgbackup -q -f $SCRATCH/vg.txt $VG >/dev/null &&
    sed -i 's/transaction_id = 2\$/transaction_id = 7/' $SCRATCH/vg.txt &&
    grep -q 'transaction_id = 7' $SCRATCH/vg.txt && $LVX vgcfgrestore -q --force -f $SCRATCH/vg.txt $VG"
rc=0; lvx lvconvert --repair "$VG/pool" >"$SCRATCH/o" 2>&1 || rc=$?
test_eq "a third repair: exit 0, as LVM2" "$rc" 0
expect_line "... LVM2's line on the transaction id (the spare's dm device named)" "$SCRATCH/o" \
    "Transaction id 7 from pool \"$VG/pool\" does not match repaired transaction id 2 from /dev/mapper/$VG-lvol2_pmspare."

done_testing
