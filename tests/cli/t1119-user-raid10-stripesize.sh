#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1119-user-raid10-stripesize: lvx's user-space daemon changes the stripe size of a
# raid10 LV it serves, as md raid10 + dm-raid do (docs/reshape-user.md §1.3, §14):
# lvconvert --stripesize of raid10 -i2 -m1 (4 images kept), LVM2's _raid_reshape_keep_images
# commits, the one with the reshape space sent as the daemon's `raidreshape` (delta_disks
# 0, data_offset 8192: dm-raid's rs_adjust_data_offsets puts the new place on the other
# side of the space), the walker copying 64 KiB steps (one copy read in A, both written
# in B), md's finish; then the reshape space freed (--stripes 2 unchanged).
#   64k -> 128k: backward (data at 0 -> 8192), 16 MiB of random data, --maxrecoveryrate
#      512k: lvs `reshape` mid-way, the superblocks S2's/RUN's (flags 3, stripe 128 ->
#      256, offsets 0 -> 8192), fio (crc32c) writes and verifies 4 MiB during the walk,
#      LVM2's "not in-sync" refusal of another lvconvert, a SIGKILL of the daemon mid-walk
#      resumes from the record; at the end the bytes, fio's verify, both copies of every
#      chunk equal on the PVs, md's finished superblocks, lvs -a (devices, stripe size,
#      reshape_len, data_offset) = LVM2's with activation off, the next activation in sync;
#   128k -> 64k: forward (the space reused, data at 8192 -> 0), likewise;
#   --stripes 2: the space freed (LVM2's lines, reshape_len 0, images 2 extents), the bytes;
#   64k -> 128k again, then --stripes 2 with the data behind the space: the images' extents
#      rotated and "data_offset 0" (the daemon's raidreshape 0 0: offsets 0 recorded, no
#      data moved), the bytes, md's superblocks.
#   refusals: --stripes 2 with no space (LVM2's lines), a stripe size with a region size
#      below it (LVM2's lines), a read-only LV (lvx's line), another lvconvert during the
#      walk (LVM2's "not in-sync").
# shellcheck disable=SC2317  # helpers called through test_ok / uspace_run_ok
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/uspace-env.sh
source "$LVX_ROOT/tests/tools/uspace-env.sh"
: "${PYTHON:=python3}"
need_cmd "$PYTHON"
need_cmd fio
VG=vgr10s$$
uspace_test_loops "$VG" 4 64M
source "$LVX_ROOT/tests/tools/raid-pvread.sh"
# shellcheck source=tests/tools/reshape-refused.sh
source "$LVX_ROOT/tests/tools/reshape-refused.sh"
# shellcheck source=tests/tools/raid-reshaped.sh
source "$LVX_ROOT/tests/tools/raid-reshaped.sh"
plan_later
# data_offset of t and its rimages by lvx (the daemon's status; LVM2 reports it from
# the kernel's status only, empty with activation off)
doff() { "$LVX" lvs -a --noheadings -o data_offset "$VG" 2>/dev/null | xargs; }

# pairs_equal OFF: rimages 0/1 and 2/3 (raid10 near-2 on 4 legs: both copies of every
# chunk on legs 2k mod 4 and 2k+1 mod 4, the same row) equal over the data (8 MiB at OFF)
pairs_equal() {
    local i
    for i in 0 2; do
        report "t_rimage_$i"
        report "t_rimage_$((i + 1))"
        [[ $(pv_sum "t_rimage_$i" "$1" $((8 * M))) == $(pv_sum "t_rimage_$((i + 1))" "$1" $((8 * M))) ]] ||
            return 1
    done
}
ref_ok() { [[ $(lv_sum "$DM_DEV_DIR/$VG/t" 0 $((16 * M))) == $(fsum "$SCRATCH/ref") ]]; }
# finished N OFF: md's finished state in every superblock (stripe N sectors, data at OFF)
finished() {
    echo "devices=4 level=10 layout=258 stripe=$1 flags=0 reshape=$MAXS delta_disks=0 array_sectors=32768 data_offset=$2 new_data_offset=$2 sectors=16384 recovery=$MAXS resync=$MAXS dirty=0 "
}
FINF=(devices level layout stripe flags reshape delta_disks array_sectors data_offset new_data_offset sectors recovery resync dirty)

uspace_run_ok "pvcreate, vgcreate" sh -c "$LVX pvcreate -q ${DEVS[*]} && $LVX vgcreate -q $VG ${DEVS[*]}"
make_lv t raid10 16 2

want="Using default stripesize 64.00 KiB.|No change in RAID LV $VG/t layout, freeing reshape space.|LV $VG/t does not have reshape space allocated.|Reshape request failed on LV $VG/t.|"
conv_refused "--stripes 2 with no reshape space (LVM2's lines)" t --stripes 2
want="Region size may not be smaller than stripe size on LV $VG/t.|Invalid conversion request on $VG/t.|"
conv_refused "--stripesize 4m above the region size (LVM2's lines)" t --stripesize 4m
uspace_run_ok "t read-only (lvchange -pr)" lvx lvchange -q -pr "$VG/t"
want="lvx cannot reshape $VG/t while it is active read-only: change it to read-write first.|"
conv_refused "--stripesize 128k of the read-only LV (lvx's line)" t --stripesize 128k
uspace_run_ok "t read-write again" lvx lvchange -q -prw "$VG/t"

# --- 64k -> 128k: backward --------------------------------------------------------------
uspace_run_ok "--maxrecoveryrate 512k" lvx lvchange -q --maxrecoveryrate 512k "$VG/t"
: >"$LOG"
test_ok "lvconvert --stripesize 128k: exit 0" conv t --stripesize 128k
test_ok "... 'successfully converted'" grep -q "Logical volume $VG/t successfully converted." "$SCRATCH/conv.out"
test_ok "the daemon's log: reshape started (backward, 4 -> 4 legs, chunk 128 -> 256, data at 0 -> 8192)" \
    grep -q "$VG/t: reshape started (backward, 4 -> 4 legs, layout 258 -> 258, chunk 128 -> 256, data at 0 -> 8192)" "$LOG"
test_ok "lvs mid-way: reshape, 0 < sync_percent < 100" moving t
test_eq "superblocks mid-way: reshape recorded backward, stripe 128 -> 256, offsets 0 -> 8192" \
    "$(sbs t 4 devices level layout stripe new_stripe flags delta_disks array_sectors data_offset new_data_offset)" \
    "devices=4 level=10 layout=258 stripe=128 new_stripe=256 flags=3 delta_disks=0 array_sectors=32768 data_offset=0 new_data_offset=8192 "
want="Unable to convert $VG/t while it is not in-sync.|Reshape request failed on LV $VG/t.|"
conv_refused "--stripesize 256k during the reshape (LVM2's refusal)" t --stripesize 256k
test_ok "fio writes and verifies 4 MiB at 2 MiB during the reshape" \
    fio_crc f1 "$DM_DEV_DIR/$VG/t" 4m --offset=2m
test_ok "still moving after fio" moving t
killed_resumed t 32768 backward
ended t "4 legs, chunk 256, data at 8192, 32768 sectors"
# fio's 4 MiB at 2 MiB: the reference takes them from the LV (fio's verify checks them)
test_ok "fio verifies its 4 MiB at 2 MiB" fio_crc f1 "$DM_DEV_DIR/$VG/t" 4m --offset=2m --verify_only
dd if="$DM_DEV_DIR/$VG/t" of="$SCRATCH/ref" bs=1M skip=2 seek=2 count=4 iflag=direct conv=notrunc status=none
test_eq "t reads the reference outside fio's range" \
    "$(lv_sum "$DM_DEV_DIR/$VG/t" 0 $((2 * M))) $(lv_sum "$DM_DEV_DIR/$VG/t" $((6 * M)) $((10 * M)))" \
    "$(head -c $((2 * M)) "$SCRATCH/ref" | sha256sum | cut -d' ' -f1) $(tail -c $((10 * M)) "$SCRATCH/ref" | sha256sum | cut -d' ' -f1)"
test_ok "both copies of every chunk equal on the PVs (data at 4 MiB)" pairs_equal $((4 * M))
test_eq "lvs after: idle 100%, 16 MiB, stripe size 128k" \
    "$("$LVX" lvs --noheadings -o raid_sync_action,sync_percent,lv_size,stripe_size --units k "$VG/t" 2>/dev/null | xargs)" \
    "idle 100.00 16384.00k 128.00k"
test_eq "lvs -a (devices, stripe size, reshape_len): LVM2's of the same metadata" "$(rep_lvx)" "$(rep_lvm)"
test_eq "lvs -a data_offset: 8192 for t and its rimages (dm-raid's status word)" "$(doff)" "8192 8192 8192 8192 8192"
uspace_run_ok "t deactivated" lvx lvchange -an "$VG/t"
test_eq "every superblock: md's finished state (stripe 256, data at 8192)" "$(sbs t 4 "${FINF[@]}")" "$(finished 256 8192)"
: >"$LOG"
uspace_run_ok "t activated again" lvx lvchange -ay "$VG/t"
test_ok "... in sync at once (no resync logged)" sh -c "! grep -q 'resync\|rebuilt' $LOG"
test_ok "... reads the reference" ref_ok

# --- 128k -> 64k: forward, the space reused ---------------------------------------------
: >"$LOG"
test_ok "lvconvert --stripesize 64k: exit 0" conv t --stripesize 64k
test_ok "the daemon's log: reshape started (forward, chunk 256 -> 128, data at 8192 -> 0)" \
    grep -q "$VG/t: reshape started (forward, 4 -> 4 legs, layout 258 -> 258, chunk 256 -> 128, data at 8192 -> 0)" "$LOG"
test_ok "lvs mid-way: reshape" moving t
test_eq "superblocks mid-way: reshape recorded forward, stripe 256 -> 128, offsets 8192 -> 0" \
    "$(sbs t 4 devices stripe new_stripe flags delta_disks array_sectors data_offset new_data_offset)" \
    "devices=4 stripe=256 new_stripe=128 flags=1 delta_disks=0 array_sectors=32768 data_offset=8192 new_data_offset=0 "
uspace_run_ok "--maxrecoveryrate 0 (unpaced)" lvx lvchange -q --maxrecoveryrate 0 "$VG/t"
ended t "4 legs, chunk 128, data at 0, 32768 sectors"
test_ok "t reads the reference" ref_ok
test_ok "both copies of every chunk equal on the PVs (data at 0)" pairs_equal 0
test_eq "lvs -a: LVM2's of the same metadata" "$(rep_lvx)" "$(rep_lvm)"
test_eq "lvs -a data_offset: 0" "$(doff)" "0 0 0 0 0"
uspace_run_ok "t deactivated" lvx lvchange -an "$VG/t"
test_eq "every superblock: md's finished state (stripe 128, data at 0)" "$(sbs t 4 "${FINF[@]}")" "$(finished 128 0)"
uspace_run_ok "t activated again" lvx lvchange -ay "$VG/t"

# --- the reshape space freed --------------------------------------------------------------
test_ok "lvconvert --stripes 2: exit 0" conv t --stripes 2
test_eq "... LVM2's lines" "$(lines <"$SCRATCH/conv.out")" \
    "Using default stripesize 64.00 KiB.|No change in RAID LV $VG/t layout, freeing reshape space.|Logical volume $VG/t successfully converted.|"
test_eq "lvs: reshape_len 0, every image 2 extents, 16 MiB" \
    "$("$LVX" lvs -a --noheadings -o lv_name,reshape_len_le,seg_size_pe "$VG" 2>/dev/null | grep rimage | xargs)" \
    "[t_rimage_0] 0 2 [t_rimage_1] 0 2 [t_rimage_2] 0 2 [t_rimage_3] 0 2"
test_eq "lvs -a: LVM2's of the same metadata" "$(rep_lvx)" "$(rep_lvm)"
test_ok "t reads the reference" ref_ok
uspace_run_ok "t deactivated and activated again" sh -c "$LVX lvchange -an $VG/t && $LVX lvchange -ay $VG/t"
test_ok "... reads the reference" ref_ok
uspace_run_ok "t deactivated" lvx lvchange -an "$VG/t"
test_eq "every superblock: in sync, stripe 128, data at 0" "$(sbs t 4 "${FINF[@]}")" "$(finished 128 0)"

# --- 64k -> 128k once more (new space, unpaced), then freed with the data behind it ------
uspace_run_ok "t activated" lvx lvchange -ay "$VG/t"
: >"$LOG"
test_ok "lvconvert --stripesize 128k: exit 0" conv t --stripesize 128k
test_ok "the reshape ends (backward, data at 8192)" done_wait t
test_eq "lvs -a data_offset: 8192" "$(doff)" "8192 8192 8192 8192 8192"
test_ok "lvconvert --stripes 2 (the data behind the space): exit 0" conv t --stripes 2
test_eq "... LVM2's lines" "$(lines <"$SCRATCH/conv.out")" \
    "Using default stripesize 64.00 KiB.|No change in RAID LV $VG/t layout, freeing reshape space.|Logical volume $VG/t successfully converted.|"
test_ok "... the daemon recorded data offset 0 (dm-raid's \"data_offset 0\")" \
    grep -q "$VG/t: data offset 8192 -> 0 (the reshape space moved behind the data)" "$LOG"
test_eq "lvs -a data_offset: 0" "$(doff)" "0 0 0 0 0"
test_eq "lvs -a: LVM2's of the same metadata (no reshape space)" "$(rep_lvx)" "$(rep_lvm)"
test_eq "lvs: reshape_len 0, every image 2 extents" \
    "$("$LVX" lvs -a --noheadings -o lv_name,reshape_len_le,seg_size_pe "$VG" 2>/dev/null | grep rimage | xargs)" \
    "[t_rimage_0] 0 2 [t_rimage_1] 0 2 [t_rimage_2] 0 2 [t_rimage_3] 0 2"
test_ok "t reads the reference" ref_ok
test_ok "both copies of every chunk equal on the PVs (data at 0 of the images)" pairs_equal 0
uspace_run_ok "t deactivated and activated again" sh -c "$LVX lvchange -an $VG/t && $LVX lvchange -ay $VG/t"
test_ok "... reads the reference" ref_ok
uspace_run_ok "t deactivated" lvx lvchange -an "$VG/t"
test_eq "every superblock: in sync, stripe 256, data at 0" "$(sbs t 4 "${FINF[@]}")" "$(finished 256 0)"

lvx daemon stop >/dev/null 2>&1
done_testing
