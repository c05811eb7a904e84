#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1105-user-raid-reshaping: lvx's user-space daemon serves a raid5 reshape in progress,
# frozen (docs/reshape-user.md step 3, §8), built on the host as md leaves one (t0791
# checks the kernel's own in the guest): raid5_ls -i4 r of 16 MiB (images of 2 extents,
# one of them reshape space) whose stripe size goes from 64k (A: data at 8192 in each
# image) to 128k (B: data at 0, forward), recorded at LV sector 16384: the first half
# laid out in B, the second in A (tests/tools/reshape_rows.py), superblocks with
# RESHAPE_ACTIVE, reshape_position 16384 and new_stripe_sectors 256.  The daemon reads
# both halves, reports the reshape frozen at 50% (so lvchange --syncaction check is
# refused), writes each half in its geometry (B's and A's rows and parity checked on
# the PVs), keeps every superblock field; a
# position off md's stripe boundary is refused with md's reason, nothing written.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/uspace-env.sh
source "$LVX_ROOT/tests/tools/uspace-env.sh"
: "${PYTHON:=python3}"
need_cmd "$PYTHON"
VG=vgrsg$$
uspace_test_loops "$VG" 5 64M
source "$LVX_ROOT/tests/tools/raid-pvread.sh"
# shellcheck source=tests/tools/raid-reshaped.sh
source "$LVX_ROOT/tests/tools/raid-reshaped.sh"
plan_later
# step 3's frozen serving (a read-write activation continues the reshape since step 4:
# t1107): the daemon started by the commands below inherits this
export LVX_TEST_RESHAPE_FROZEN=1
M=1048576
ROWS=$LVX_ROOT/tests/tools/reshape_rows.py

uspace_run_ok "raid5 -i4 -I 64k -L 32m r (images of 2 extents), written, deactivated" sh -c \
    "$LVX pvcreate -q ${DEVS[*]} && $LVX vgcreate -q $VG ${DEVS[*]} &&
     $LVX lvcreate -q -y -Zn --type raid5 -i4 -I 64k -L 32m -n r $VG &&
     dd if=/dev/urandom of=$DM_DEV_DIR/$VG/r bs=1M count=32 oflag=direct conv=fsync status=none &&
     $LVX lvchange -an $VG/r"
for i in 0 1 2 3 4; do report "r_rimage_$i"; report "r_rmeta_$i"; done
test_ok "metadata: raid5+RESHAPE+RESHAPE_DATA_OFFSET, reshape_count 1, stripe size 128k" reshaped_meta 256
test_eq "lvx reads r as 16 MiB, stripe size 128k" \
    "$("$LVX" lvs --noheadings --units k --nosuffix -o lv_size,stripe_size $VG/r 2>/dev/null | xargs)" "16384.00 128.00"
# A: the 16 MiB of data laid out with 64k chunks at 4 MiB of each image (the space in
# front of it); B: its first 8 MiB (LV sectors below 16384) with 128k chunks at 0
test_ok "A's rows (64k chunks at 8192) and B's below 16384 (128k chunks at 0) built" \
    reshaping_rows 16384
test_ok "superblocks: RESHAPE_ACTIVE at 16384, new stripe 256, data 8192 -> 0" reshaping_sb 16384
IMGS=("$SCRATCH"/img{0,1,2,3,4})
fields() {
    local i f
    for i in 0 1 2 3 4; do
        for f in devices position level layout stripe array_sectors data_offset new_data_offset \
            flags reshape delta_disks sectors recovery resync bm_sync_size dirty; do
            printf '%s ' "$f=$(sb_field r_rmeta_$i $f)"
        done
        echo
    done
}
fields >"$SCRATCH/sb.before"

uspace_run_ok "the daemon serves r (a reshape in progress)" lvx lvchange -ay "$VG/r"
test_eq "its log names the reshape: position, direction, chunks, offsets" \
    "$(grep -c "$VG/r: a reshape in progress at sector 16384 (forward, 5 -> 5 legs, chunk 128 -> 256, data at 8192 -> 0): served frozen, 32768 sectors" "$LVX_RUN_DIR/lvxd.log")" 1
test_eq "lvs: frozen at 50%, data_offset A's" \
    "$("$LVX" lvs --noheadings -o raid_sync_action,sync_percent,data_offset "$VG/r" 2>/dev/null | xargs)" "frozen 50.00 8192"
test_eq "r reads both halves (B's rows below 16384, A's above)" \
    "$(lv_sum "$DM_DEV_DIR/$VG/r" 0 $((16 * M)))" "$(fsum "$SCRATCH/d16")"
head -c $((16 * M)) /dev/urandom >"$SCRATCH/e16"
uspace_run_ok "16 MiB of new data written (both geometries, 1 MiB requests across the position)" \
    dd if="$SCRATCH/e16" of="$DM_DEV_DIR/$VG/r" bs=1M oflag=direct conv=fsync status=none
test_eq "read back" "$(lv_sum "$DM_DEV_DIR/$VG/r" 0 $((16 * M)))" "$(fsum "$SCRATCH/e16")"
rc=0
out=$("$LVX" lvchange --syncaction check "$VG/r" 2>&1) || rc=$?
test_eq "--syncaction check refused during the reshape (LVM2's line for a frozen action)" \
    "$rc $(grep -c . <<<"$out") $(grep -cF "$VG/r state is currently \"frozen\".  Unable to switch to \"check\"." <<<"$out")" "5 1 1"
uspace_run_ok "deactivated" lvx lvchange -an "$VG/r"
for i in 0 1 2 3 4; do pv_get "r_rimage_$i" 0 $((8 * M)) "$SCRATCH/img$i"; done
test_ok "on the PVs: B's data and parity below 16384, A's above (md's placement)" \
    "$PYTHON" "$ROWS" verify "$SCRATCH/e16" 16384 128 8192 256 0 "${IMGS[@]}"
fields >"$SCRATCH/sb.after"
test_eq "every superblock field kept (events aside), bitmap clean" \
    "$(diff "$SCRATCH/sb.before" "$SCRATCH/sb.after")" ""

# ---- refused: a position md would not resume from
test_ok "reshape_position 16384 + 512 (not on md's 1024-sector boundary)" sb_set reshape=16896
before=$(sha_devs "${DEVS[@]}")
rc=0
out=$("$LVX" lvchange -ay "$VG/r" 2>&1) || rc=$?
test_eq "refused (exit 5), one line, md's reason" \
    "$rc $(grep -c . <<<"$out") $(grep -cF "RAID LV $VG/r: a reshape in progress (the superblock of image 0: reshape_position 16896, delta_disks 0): reshape_position not on a stripe boundary; not served" <<<"$out")" "5 1 1"
[[ $rc == 5 ]] || diag "$out"
test_eq "... nothing written" "$(sha_devs "${DEVS[@]}")" "$before"
lvx daemon stop >/dev/null 2>&1
done_testing
