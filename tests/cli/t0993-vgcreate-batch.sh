#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0993-vgcreate-batch: a commit's writes go out as batches of durable (FUA) writes
# (dev/multi.c lvx_dev_write_durable_many), and a VG of more PVs than the areas it keeps
# in use (12 PVs: 8 areas in use, 4 switched to ignored, header only) is written in
# LVM2's order, except that the headers of the 4 empty areas switched to ignored go
# with the labels, after the commit point (meta/commit.c: one round of durable writes
# fewer), each in one write with its PV's label:
#   * vgcreate of 12 fresh PVs: LVM2 reads the VG (12 PVs, seqno 1, 8 of 12 areas in
#     use, every PV flagged used), vgck is clean; the writes are text and precommit
#     headers, then the 8 committed headers of the areas in use, then the 12 labels (4
#     of them with the header of the area switched off: label sector to header, 4 KiB),
#     and no separate device flush is issued (every write durable when done);
#   * a crash right after each of those writes (LVX_TEST_CRASH_AFTER_WRITE=k): lvx and
#     LVM2 both read the old state (12 orphan PVs, no VG) or both the new one;
#   * a failure of the first write, of the first committed header and of the last label
#     (LVX_TEST_FAIL_WRITE=k): exit 5 with a message, both tools read old or new.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

# shellcheck source=tests/tools/crash_walk.sh
. "$LVX_ROOT/tests/tools/crash_walk.sh"

COUNT=12
crash_begin "$COUNT"
OLD="$COUNT 0 0"
NEW="$COUNT vgb $COUNT 1"
classify() { crash_classify; }

test_ok "pvcreate of $COUNT devices" X pvcreate -q "${D[@]}"
heads save "${D[@]}"
test_eq "before: no VG, no PV in one" "$(classify)" old

# ---- the clean run ----------------------------------------------------------------
LOG=$SCRATCH/io.log
rc=0
LVX_TEST_IO_LOG=$LOG X vgcreate vgb "${D[@]}" >"$SCRATCH/out" 2>"$SCRATCH/err" || rc=$?
test_eq "vgcreate of $COUNT PVs" "$rc" 0
test_eq "both tools read the new VG" "$(classify)" new
test_eq "LVM2: 8 of $COUNT areas in use, every PV flagged used" \
    "$(lvm2 vgs --noheadings -o vg_mda_count,vg_mda_used_count vgb 2>/dev/null | awk '{ $1 = $1; print }')|$(lvm2 pvs --noheadings -o pv_ext_vsn,pv_attr 2>/dev/null | awk '{ $1 = $1; print }' | sort -u)" \
    "$COUNT 8|2 a--"
lvm2 vgck vgb >"$SCRATCH/vgck" 2>&1
test_eq "LVM2 vgck is clean" "$?:$(grep -v 'Activation disabled' "$SCRATCH/vgck" | grep -c WARNING)" "0:0"
mapfile -t W < <(awk '$1 == "write" { print $3, $4 }' "$LOG")
# offsets in write order: text and precommit headers of the 8 areas in use (text past
# the 4 KiB header, header at 4096), then 8 committed headers, then 12 labels (512; M:
# 4096 bytes from 512, label and the header of an area switched off)
order=$(printf '%s\n' "${W[@]}" | awk '{ k = $1 == 512 ? ($2 == 4096 ? "M" : "L") : $1 == 4096 ? "H" : "T"; printf "%s", k }')
test_eq "writes: 8 texts, 8 precommits, 8 headers, $COUNT labels (4 with a header), in that order" \
    "$order" "TTTTTTTTHHHHHHHHHHHHHHHHLLLLLLLLMMMM"
test_eq "no separate device flush (every write durable when done)" \
    "$(grep -c '^flush ' "$LOG")" 0
NW=${#W[@]}

# ---- a crash after each write -------------------------------------------------------
crash_walk "$NW" X vgcreate vgb "${D[@]}"
test_eq "a crash after each of the $NW writes: both tools read old or new" "$CRASH_BAD" 0
# old through the text and precommit batch (16 writes), new after the last write, and
# never old again once new
test_eq "old before the commit point, new from it on" \
    "$([[ $CRASH_SEQ =~ ^o{16,}n+$ ]] && echo ordered || echo "$CRASH_SEQ")" ordered

# ---- failures ---------------------------------------------------------------------------
for k in 1 17 "$NW"; do
    heads restore "${D[@]}"
    rc=0
    LVX_TEST_FAIL_WRITE=$k X vgcreate vgb "${D[@]}" >"$SCRATCH/out" 2>"$SCRATCH/err" || rc=$?
    st=$(classify)
    msg=$(grep -c -i 'fail\|error' "$SCRATCH/err")
    ok=0
    [[ $rc == 5 && $msg -gt 0 && ($st == old || $st == new) ]] || ok=1
    sanitizer_report "$SCRATCH/err" && ok=1
    _tap_result $ok "write $k/$NW fails: exit $rc, a message, both tools read one state ($st)"
    ((ok)) && _diag_file stderr "$SCRATCH/err"
done

heads restore "${D[@]}"
X pvremove -q -y "${D[@]}" >/dev/null 2>&1
done_testing
