#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1054-thin-pool-threshold: a thin pool above activation/thin_pool_autoextend_threshold
# takes no new thin LV, and lvextend of a pool grows its metadata as LVM2 2.03.16 does
# (LVM2's lvextend-thin-full.sh, lines 55-65, on the host in the user-space backend):
#   - a pool whose metadata was restored with thin_restore (400 thin devices in 2 MiB)
#     and swapped in with lvconvert --poolmetadata: its Meta% as the kernel's status
#     gives it (the space map's allocated blocks plus the tenth the kernel keeps back:
#     91.6% where the daemon said 81.64%); --use-policies refused
#     with a percent of 0 and for an inactive pool (LVM2's lines);
#   - active, threshold 70: `lvcreate -V` refused with LVM2's lines (metadata at its
#     minimal threshold; a pool with transaction_id 0: "Free space in pool ... is above
#     threshold"), exit 5, nothing written (seqno), the pool still active; lvx used to
#     send create_thin for a device the restored metadata already had;
#   - `lvextend --use-policies VG/pool PV PV`: the metadata grows by the policy (2 ->
#     3 MiB), the data stays (lvx grew the data over all free space of the named PVs);
#   - `lvextend -L+3G VG/pool`: the metadata grows with the data to LVM2's estimate
#     (3.50 MiB: data sectors / chunk sectors * 64 bytes, rounded up to an extent);
#   - a used pool (transaction_id 1) with its data above the threshold: lvcreate -V and
#     a thin snapshot refused ("reached threshold"), nothing written; with the default
#     threshold (100) both are made;
#   - a new pool (transaction_id 0 in the VG) whose daemon-served metadata a foreign user
#     moved to transaction id 2: lvcreate -V refused with LVM2's line (its
#     check_new_thin_pool; LVM2's thin-foreign-repair.sh:56), nothing written.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

VG=vgthr$$
need_cmd thin_restore thin_check
uspace_test_loops "$VG" 3 2G
POL='activation { thin_pool_autoextend_threshold = 70 thin_pool_autoextend_percent = 30 }'
seqno() { lvx vgs --noheadings -o vg_seqno "$VG" 2>/dev/null | tr -d ' '; }
expect_line() {  # expect_line DESC FILE TEXT
    if grep -qF -- "$3" "$2"; then _tap_result 0 "$1"; else
        _tap_result 1 "$1"; _diag_file "output" "$2"; fi
}

uspace_run_ok "pvcreate, vgcreate -s 512k" sh -c "$LVX pvcreate -q ${DEVS[*]} && $LVX vgcreate -q -s 512k $VG ${DEVS[*]}"
uspace_run_ok "pool: lvcreate -L200M -T" lvx lvcreate -q -L200M -T "$VG/pool" "${DEVS[0]}"
uspace_run_ok "VG deactivated" lvx vgchange -q -an "$VG"
uspace_run_ok "lv1: 2 MiB" lvx lvcreate -q -L2M -n lv1 "$VG" "${DEVS[0]}"
{
    echo '<superblock uuid="" time="1" transaction="0" data_block_size="128" nr_data_blocks="3200">'
    for i in $(seq 1 400); do
        echo " <device dev_id=\"$i\" mapped_blocks=\"37\" transaction=\"$i\" creation_time=\"0\" snap_time=\"1\">"
        echo '  <range_mapping origin_begin="0" data_begin="0" length="37" time="0"/>'
        echo ' </device>'
    done
    echo '</superblock>'
} >"$SCRATCH/data.xml"
uspace_run_ok "thin_restore of 400 thin devices into lv1" thin_restore -i "$SCRATCH/data.xml" -o "$DM_DEV_DIR/$VG/lv1"
# the kernel's Meta% for this metadata: the space map's allocated blocks (the superblock's
# metadata space map root, nr_allocated at byte 200) and the 51 blocks (a tenth) it keeps back
want_meta=$(python3 -c "import struct, sys; d = open(sys.argv[1], 'rb').read(4096); n, a = struct.unpack_from('<QQ', d, 192); print('%.2f' % ((a + min(4096, n // 10)) * 100.0 / n))" "$DM_DEV_DIR/$VG/lv1")
uspace_run_ok "lv1 deactivated" lvx lvchange -q -an "$VG/lv1"
uspace_run_ok "lvconvert --thinpool VG/pool --poolmetadata VG/lv1" \
    lvx lvconvert -q -y --thinpool "$VG/pool" --poolmetadata "$VG/lv1"

rc=0; lvx lvextend --use-policies --config "$POL activation { thin_pool_autoextend_percent = 0 }" \
    "$VG/pool" >"$SCRATCH/o" 2>&1 || rc=$?
test_eq "--use-policies with percent 0: refused, exit 5" "$rc" 5
expect_line "... LVM2's line" "$SCRATCH/o" "Can't extend $VG/pool with thin-pool autoextend percent set to 0%."
rc=0; lvx lvextend --use-policies --config "$POL" "$VG/pool" >"$SCRATCH/o" 2>&1 || rc=$?
test_eq "--use-policies of the inactive pool: refused, exit 5" "$rc" 5
expect_line "... LVM2's line" "$SCRATCH/o" "Can't read state of locally inactive LV $VG/pool."

uspace_run_ok "lvchange -ay VG" lvx lvchange -q -ay "$VG"
meta_pct=$(field "$VG/pool" metadata_percent)
# (within one block: thin_restore's nr_allocated is one above its bitmaps' count, which
# the daemon counts; the kernel goes by nr_allocated)
test_ok "the pool's Meta% as the kernel reports it, its reserve counted as used ($meta_pct, kernel $want_meta)" \
    awk -v a="$meta_pct" -v b="$want_meta" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 100 / 512 + 0.005) }'
test_ok "... above the pool's minimal metadata threshold of 75%" \
    awk -v p="$meta_pct" 'BEGIN { exit !(p > 75) }'
before=$(seqno)
rc=0; lvx lvcreate -V10 --config "$POL" "$VG/pool" >"$SCRATCH/o" 2>&1 || rc=$?
test_eq "lvcreate -V10 in the pool above its threshold: refused, exit 5" "$rc" 5
expect_line "... LVM2's warning" "$SCRATCH/o" \
    "WARNING: Remaining free space in metadata of thin pool $VG/pool is too low ($meta_pct% >= 75.00%). Resize is recommended."
expect_line "... LVM2's line for a pool without thin LVs (transaction_id 0)" "$SCRATCH/o" \
    "Free space in pool $VG/pool is above threshold, new volumes are not allowed."
test_eq "... nothing written (seqno)" "$(seqno)" "$before"
test_eq "... no LV added, the pool still active" \
    "$(lvx lvs --noheadings -o lv_name,lv_active "$VG" 2>/dev/null | awk '{ $1 = $1; print }' | sort | tr '\n' ,)" \
    "lv1 active,pool active,"

rc=0; lvx lvextend --use-policies --config "$POL" "$VG/pool" "${DEVS[1]}" "${DEVS[2]}" >"$SCRATCH/o" 2>&1 || rc=$?
test_eq "lvextend --use-policies VG/pool PV PV: exit 0" "$rc" 0
test_eq "... the metadata grew by the policy (2 -> 3 MiB), the data stayed 200 MiB" \
    "$(field "$VG/pool_tmeta" lv_size) $(field "$VG/pool" lv_size)" "3.00m 200.00m"
rc=0; lvx lvextend -L+3G "$VG/pool" >"$SCRATCH/o" 2>&1 || rc=$?
test_eq "lvextend -L+3G VG/pool: exit 0" "$rc" 0
test_eq "... the metadata grew with the data to LVM2's estimate (3.50 MiB)" \
    "$(field "$VG/pool_tmeta" lv_size) $(field "$VG/pool" lv_size)" "3.50m <3.20g"
expect_line "... LVM2's rounding line" "$SCRATCH/o" "Rounding size to boundary between physical extents: 3.50 MiB."

# ---- a used pool (transaction_id 1) with its data above the threshold ------------------
uspace_run_ok "pool2 (8 MiB) and t1 (16 MiB) in it" \
    sh -c "$LVX lvcreate -q -L8M -T $VG/pool2 && $LVX lvcreate -q -V16M -n t1 $VG/pool2"
uspace_run_ok "7 MiB written to t1" dd if=/dev/urandom of="$DM_DEV_DIR/$VG/t1" bs=1M count=7 oflag=direct status=none
test_eq "pool2's data: 87.50% used" "$(field "$VG/pool2" data_percent)" "87.50"
before=$(seqno)
rc=0; lvx lvcreate -V10 -n t2 --config "$POL" "$VG/pool2" >"$SCRATCH/o" 2>&1 || rc=$?
test_eq "lvcreate -V in pool2 above the threshold: refused, exit 5" "$rc" 5
expect_line "... LVM2's line" "$SCRATCH/o" \
    "Cannot create new thin volume, free space in thin pool $VG/pool2 reached threshold."
rc=0; lvx lvcreate -s -n s1 --config "$POL" "$VG/t1" >"$SCRATCH/o" 2>&1 || rc=$?
test_eq "a thin snapshot of t1: refused the same, exit 5" "$rc" 5
expect_line "... LVM2's line" "$SCRATCH/o" \
    "Cannot create new thin volume, free space in thin pool $VG/pool2 reached threshold."
test_eq "... nothing written (seqno)" "$(seqno)" "$before"
uspace_run_ok "with the default threshold (100): lvcreate -V and the snapshot are made" \
    sh -c "$LVX lvcreate -q -V10 -n t2 $VG/pool2 && $LVX lvcreate -q -s -n s1 $VG/t1"
test_eq "... t2 and s1 listed" "$(lvx lvs --noheadings -o lv_name "$VG/t2" "$VG/s1" 2>/dev/null | tr -d ' ' | sort | tr '\n' ,)" "s1,t2,"

# ---- a new pool a foreign user gave a thin device and a transaction id (thin-foreign-repair)
uspace_run_ok "pool3 (new, active)" lvx lvcreate -q -L8M -T "$VG/pool3"
uspace_run_ok "a foreign user's create_thin 0 and set_transaction_id 0 2 to pool3" \
    python3 "$LVX_ROOT/tests/tools/lvxd_request.py" thinmsg "$VG" pool3 0 2 create_thin:0
before=$(seqno)
rc=0; lvx lvcreate -V10 -n t3 "$VG/pool3" >"$SCRATCH/o" 2>&1 || rc=$?
test_eq "lvcreate -V in it: refused, exit 5, nothing written" "$rc $(seqno)" "5 $before"
expect_line "... LVM2's line" "$SCRATCH/o" \
    "Cannot use thin pool $VG/pool3 with transaction id 2 for thin volumes. Expected transaction id 0."

uspace_run_ok "VG deactivated" lvx vgchange -q -an "$VG"
done_testing
