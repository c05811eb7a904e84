#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1091-user-raid-reshaped: lvx's user-space daemon serves a raid5 LV that a reshape
# left behind (docs/reshape-user.md §5 step 1), both places the kernel leaves the data:
# built on the host as LVM2 2.03.16 + the kernel leave it (guest record of t0785): a
# raid5_ls -i4 LV of 32 MiB (images of 2 extents) made by lvx, written, then its
# metadata given LVM2's marks of a finished reshape (segment type
# "raid5+RESHAPE+RESHAPE_DATA_OFFSET", reshape_count 1 in the segment and the images:
# the LV is 16 MiB) and its superblocks the kernel's fields after the reshape
# (array_sectors, sectors, the bitmap's sync_size; data_offset = new_data_offset):
#   end    data_offset 0 (a stripe added: md moved the data to the front, the space
#          behind it): the daemon reads the first 16 MiB, writes new data, the
#          superblocks keep the kernel's fields but `sectors`, which becomes the data's
#          per image as dm-raid writes it at its next use; the reshape space untouched;
#   front  data_offset 8192 (the kernel's after a stripe size change: the data moved
#          into the space in front): each image's data moved there on the PVs; the
#          daemon reads it, writes, parity where md puts it at offset 8192
#          (tests/tools/parity_check.py on the images read from the PVs), the old
#          place untouched; a dirty bitmap region with a planted parity mismatch is
#          resynced at the offset; lvs reports the kernel's data_offset;
#   refused  a reshape in progress that md would not resume (RESHAPE_ACTIVE,
#          reshape_position, the geometry unchanged: t1105 serves one), images whose
#          superblocks disagree on the offset, an offset past the reshape space: exit
#          5, one line, nothing written;
#   free   lvconvert --stripes 4 with the data at 8192: the reshape space moved to the end
#          of every image and "data_offset 0" (the daemon's raidreshape 0 0): LVM2 reads
#          the LV without space, the data read, the superblocks' offsets 0.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/uspace-env.sh
source "$LVX_ROOT/tests/tools/uspace-env.sh"
: "${PYTHON:=python3}"
need_cmd "$PYTHON"
VG=vgrsd$$
uspace_test_loops "$VG" 5 64M
source "$LVX_ROOT/tests/tools/raid-pvread.sh"
# shellcheck source=tests/tools/side.sh
source "$LVX_ROOT/tests/tools/side.sh"
plan_later
M=1048576

uspace_run_ok "raid5 -i4 -I 64k -L 32m r (images of 2 extents), written" sh -c \
    "$LVX pvcreate -q ${DEVS[*]} && $LVX vgcreate -q $VG ${DEVS[*]} &&
     $LVX lvcreate -q -y -Zn --type raid5 -i4 -I 64k -L 32m -n r $VG"
head -c $((32 * M)) /dev/urandom >"$SCRATCH/d32"
head -c $((16 * M)) "$SCRATCH/d32" >"$SCRATCH/d16"
uspace_run_ok "32 MiB written, in sync, deactivated" sh -c \
    "dd if=$SCRATCH/d32 of=$DM_DEV_DIR/$VG/r bs=1M oflag=direct conv=fsync status=none &&
     $LVX lvchange -an $VG/r"
for i in 0 1 2 3 4; do report "r_rimage_$i"; report "r_rmeta_$i"; done

# shellcheck source=tests/tools/raid-reshaped.sh
source "$LVX_ROOT/tests/tools/raid-reshaped.sh"
test_ok "metadata: raid5+RESHAPE+RESHAPE_DATA_OFFSET, reshape_count 1 (16 MiB left)" reshaped_meta
test_eq "LVM2 reads the LV as 16 MiB with 4 MiB of reshape space in each image" \
    "$(lvm2 lvs --noheadings --units m --nosuffix -o lv_size,reshape_len_le $VG/r 2>/dev/null | xargs)" "16.00 5"
test_eq "lvx too" "$("$LVX" lvs --noheadings --units m --nosuffix -o lv_size,reshape_len_le $VG/r 2>/dev/null | xargs)" "16.00 5"
# the kernel's superblock after a stripe was added (t0785's record: offsets 0, sectors
# as md_finish_reshape left them, the bitmap over the data of one image)
test_ok "superblocks: array_sectors 32768, sectors 24576, sync_size 8192, offsets 0" \
    sb_set array_sectors=32768 sectors=24576 bm_sync_size=8192 data_offset=0 new_data_offset=0
for i in 0 1 2 3 4; do pv_get "r_rimage_$i" $((4 * M)) $((4 * M)) "$SCRATCH/space$i"; done

# ---- end: data at 0, the reshape space behind it
uspace_run_ok "end: the daemon serves r" lvx lvchange -ay "$VG/r"
test_eq "end: r is 16 MiB" "$(blockdev --getsize64 "$DM_DEV_DIR/$VG/r" 2>/dev/null)" $((16 * M))
test_eq "end: r reads the first 16 MiB written before" "$(lv_sum "$DM_DEV_DIR/$VG/r" 0 $((16 * M)))" "$(fsum "$SCRATCH/d16")"
head -c $((16 * M)) /dev/urandom >"$SCRATCH/e16"
uspace_run_ok "end: 16 MiB of new data written" dd if="$SCRATCH/e16" of="$DM_DEV_DIR/$VG/r" bs=1M oflag=direct conv=fsync status=none
test_eq "end: read back" "$(lv_sum "$DM_DEV_DIR/$VG/r" 0 $((16 * M)))" "$(fsum "$SCRATCH/e16")"
test_eq "end: the daemon's log names the reshape and the offset" \
    "$(grep -c "$VG/r: reshaped (reshape flags in its metadata (raid5+RESHAPE+RESHAPE_DATA_OFFSET)): its data at sector 0" "$LVX_RUN_DIR/lvxd.log")" 1
uspace_run_ok "end: deactivated" lvx lvchange -an "$VG/r"
for i in 0 1 2 3 4; do
    test_eq "end: rmeta $i: offsets, geometry the kernel's, sectors the data's (8192, as dm-raid writes after)" \
        "$(for f in devices level layout stripe array_sectors data_offset new_data_offset sectors flags reshape bm_sync_size dirty; do printf '%s ' "$(sb_field r_rmeta_$i $f)"; done)" \
        "5 5 2 128 32768 0 0 8192 0 ffffffffffffffff 8192 0 "
    test_eq "end: image $i's reshape space untouched" "$(pv_sum "r_rimage_$i" $((4 * M)) $((4 * M)))" "$(fsum "$SCRATCH/space$i")"
done
for i in 0 1 2 3 4; do pv_get "r_rimage_$i" 0 $((4 * M)) "$SCRATCH/img$i"; done
test_ok "end: data and parity where md puts them at offset 0" \
    "$PYTHON" "$LVX_ROOT/tests/tools/parity_check.py" raid5_ls 65536 "$SCRATCH/e16" "$SCRATCH"/img{0,1,2,3,4}

# ---- front: data at 8192 (in the space), as the kernel leaves a stripe size change
for i in 0 1 2 3 4; do cp "$SCRATCH/img$i" "$SCRATCH/old$i"; done
for i in 0 1 2 3 4; do pv_put "r_rimage_$i" $((4 * M)) "$SCRATCH/img$i"; done
test_ok "front: the data moved to 4 MiB in each image, superblocks at 8192 (sectors 0)" \
    sb_set data_offset=8192 new_data_offset=8192 sectors=0
uspace_run_ok "front: the daemon serves r" lvx lvchange -ay "$VG/r"
test_eq "front: r reads the data from the offset" "$(lv_sum "$DM_DEV_DIR/$VG/r" 0 $((16 * M)))" "$(fsum "$SCRATCH/e16")"
test_eq "front: in sync, idle (no resync)" \
    "$("$LVX" lvs --noheadings -o sync_percent,raid_sync_action "$VG/r" 2>/dev/null | xargs)" "100.00 idle"
head -c $((16 * M)) /dev/urandom >"$SCRATCH/f16"
uspace_run_ok "front: 16 MiB of new data written" dd if="$SCRATCH/f16" of="$DM_DEV_DIR/$VG/r" bs=1M oflag=direct conv=fsync status=none
uspace_run_ok "front: deactivated" lvx lvchange -an "$VG/r"
for i in 0 1 2 3 4; do pv_get "r_rimage_$i" $((4 * M)) $((4 * M)) "$SCRATCH/img$i"; done
test_eq "front: rmeta 0: offsets 8192, sectors 8192 (not md's 0, which dm-raid refuses)" \
    "$(for f in data_offset new_data_offset sectors array_sectors bm_sync_size; do printf '%s ' "$(sb_field r_rmeta_0 $f)"; done)" \
    "8192 8192 8192 32768 8192 "
test_ok "front: data and parity where md puts them at offset 8192" \
    "$PYTHON" "$LVX_ROOT/tests/tools/parity_check.py" raid5_ls 65536 "$SCRATCH/f16" "$SCRATCH"/img{0,1,2,3,4}
for i in 0 1 2 3 4; do
    test_eq "front: image $i's old place (now reshape space) untouched" "$(pv_sum "r_rimage_$i" 0 $((4 * M)))" "$(fsum "$SCRATCH/old$i")"
done

# ---- resync at the offset: a parity chunk planted (row 16: parity on image 3 in
# raid5_ls of 5), its region's bit set as a crash leaves it
pv_plant r_rimage_3 $((4 * M + 16 * 65536))
test_ok "resync: 4 KiB planted in a parity chunk at the offset, bitmap bit 0 set" sb_set bit=0
uspace_run_ok "resync: the daemon serves r" lvx lvchange -ay "$VG/r"
test_ok "resync: in sync again" wait_synced r
test_eq "resync: the daemon resynced the dirty region" \
    "$(grep -c "$VG/r: 1 dirty regions of the bitmap to resync" "$LVX_RUN_DIR/lvxd.log")" 1
test_eq "resync: r reads its data" "$(lv_sum "$DM_DEV_DIR/$VG/r" 0 $((16 * M)))" "$(fsum "$SCRATCH/f16")"
uspace_run_ok "resync: deactivated" lvx lvchange -an "$VG/r"
for i in 0 1 2 3 4; do pv_get "r_rimage_$i" $((4 * M)) $((4 * M)) "$SCRATCH/img$i"; done
test_ok "resync: the parity rewritten at the offset" \
    "$PYTHON" "$LVX_ROOT/tests/tools/parity_check.py" raid5_ls 65536 "$SCRATCH/f16" "$SCRATCH"/img{0,1,2,3,4}

# ---- refused: exit 5, one line, nothing written
refused() {      # refused DESC LINE
    local out rc=0 before
    before=$(sha_devs "${DEVS[@]}")
    out=$("$LVX" lvchange -ay "$VG/r" 2>&1) || rc=$?
    test_eq "$1: activation refused (exit 5), one line" \
        "$rc $(grep -c . <<<"$out") $(grep -cF "RAID LV $VG/r: $2" <<<"$out")" "5 1 1"
    [[ $rc == 5 ]] || diag "$out"
    test_eq "... nothing written" "$(sha_devs "${DEVS[@]}")" "$before"
}
test_ok "in progress: RESHAPE_ACTIVE, reshape_position 0" sb_set flags=1 reshape=0
refused "in progress" "a reshape in progress (the superblock of image 0: reshape_position 0, delta_disks 0): nothing to reshape; not served (activate it with the dm backend: the kernel goes on with it)."
test_ok "offsets differ: image 2's superblock says 0" sb_set flags=0 reshape=0xffffffffffffffff
test_ok "..." sb_set data_offset=0 new_data_offset=0 legs=2
refused "offsets differ" "the superblock of image 2 puts its data at sector 0 (new 0), image 0's at 8192: not served."
test_ok "past the space: every superblock says 16384" sb_set data_offset=16384 new_data_offset=16384
refused "past the space" "the superblocks put its data at sector 16384 of images of 16384 sectors with 8192 of reshape space: not served."
test_ok "the offsets back at 8192" sb_set data_offset=8192 new_data_offset=8192
uspace_run_ok "served again" lvx lvchange -ay "$VG/r"
test_eq "... with its data" "$(lv_sum "$DM_DEV_DIR/$VG/r" 0 $((16 * M)))" "$(fsum "$SCRATCH/f16")"
uspace_run_ok "... deactivated" lvx lvchange -an "$VG/r"

# ---- freeing the reshape space (lvconvert --stripes 4, nothing else to change) with the
# data behind it: the images' extents rotated (the space to the end) and "data_offset 0",
# the daemon's raidreshape 0 0 (dm-raid records offset 0, nothing moves)
uspace_run_ok "free: r active again (data at 8192)" lvx lvchange -ay "$VG/r"
uspace_run_ok "free: lvconvert -y --stripes 4 in the user backend" lvx lvconvert -y --stripes 4 "$VG/r"
test_eq "free: LVM2's lines" "$(grep -c -e "No change in RAID LV $VG/r layout, freeing reshape space." -e "Logical volume $VG/r successfully converted." "$SCRATCH/out")" 2
test_eq "free: 16 MiB, no reshape space, images of 1 extent (LVM2 reads the metadata)" \
    "$(lvm2 lvs -a --noheadings --units m --nosuffix -o lv_name,lv_size,reshape_len_le,segtype "$VG/r" "$VG/r_rimage_0" 2>/dev/null | xargs)" \
    "r 16.00 0 raid5 [r_rimage_0] 4.00 0 linear"
test_eq "free: r reads its data" "$(lv_sum "$DM_DEV_DIR/$VG/r" 0 $((16 * M)))" "$(fsum "$SCRATCH/f16")"
uspace_run_ok "free: deactivated, activated, read, deactivated" sh -c \
    "'$LVX' lvchange -an $VG/r && '$LVX' lvchange -ay $VG/r &&
     test \"\$(dd if=$DM_DEV_DIR/$VG/r bs=1M iflag=direct status=none | sha256sum | cut -d' ' -f1)\" = $(fsum "$SCRATCH/f16") &&
     '$LVX' lvchange -an $VG/r"
report r_rmeta_0
test_eq "free: rmeta 0: offset 0, sectors the image's, sync_size the image's" \
    "$(for f in data_offset new_data_offset sectors array_sectors bm_sync_size dirty; do printf '%s ' "$(sb_field r_rmeta_0 $f)"; done)" \
    "0 0 8192 32768 8192 0 "
done_testing
