#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1114-user-raid-reshape-remove: lvx's user-space daemon removes stripes of a raid4/5/6
# LV it serves as LVM2 + dm-raid do (docs/reshape-user.md §13): the first
# `lvconvert --stripes N --force` starts a backward reshape (`raidreshape VG LV -D O`:
# the array's size shrunk first, data 0 -> O, the last images flagged
# RESHAPE_DELTA_DISKS_MINUS then REMOVE_AFTER_RESHAPE and still served), the walker
# moves the removed legs' rows onto the others down to sector 0; the second
# `lvconvert --stripes N` takes the flagged images out and frees nothing else.
#   r  raid5_ls -i4 -I 64k, 32 MiB, --maxrecoveryrate 512k -> --stripes 3 --force: lvs
#      `reshape` mid-way, md's superblocks mid-way (4 devices, delta_disks -1, 24 MiB),
#      fio (crc32c) writes and verifies 4 MiB during the walk, a SIGKILL of the daemon
#      mid-walk resumed from the record; after: the LV's first 24 MiB = the reference
#      (fio's 4 MiB verified), every superblock md's finished state, lvs -a = LVM2's (activation off) before and after the
#      second command, which takes r_rimage_4/r_rmeta_4 out (24 MiB LV, the bytes kept);
#   q  raid6_zr -i4 -> --stripes 3 (6 -> 5 legs) to its end, the second command, the bytes.
# shellcheck disable=SC2317  # helpers called through test_ok / uspace_run_ok
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/uspace-env.sh
source "$LVX_ROOT/tests/tools/uspace-env.sh"
: "${PYTHON:=python3}"
need_cmd "$PYTHON"
need_cmd fio
VG=vgrrm$$
uspace_test_loops "$VG" 6 64M
source "$LVX_ROOT/tests/tools/raid-pvread.sh"
# shellcheck source=tests/tools/reshape-refused.sh
source "$LVX_ROOT/tests/tools/reshape-refused.sh"
# shellcheck source=tests/tools/raid-reshaped.sh
source "$LVX_ROOT/tests/tools/raid-reshaped.sh"
plan_later
M=1048576
LOG=$LVX_RUN_DIR/lvxd.log
# the first MIB of the reference
ref_sum() { head -c $(($1 * M)) "$SCRATCH/ref" | sha256sum | cut -d' ' -f1; }
# flagged FLAG: the sub-LVs whose segment types carry FLAG in the VG's metadata (LVM2's text)
flagged() {
    lvm2 vgcfgbackup -q -f "$SCRATCH/meta.txt" "$VG" >/dev/null 2>&1 &&
        awk -v f="$1" '/^\t\t[^ \t]+ \{$/ { lv = $1 } index($0, f) { print lv }' "$SCRATCH/meta.txt" |
        sort -u | tr '\n' ' '
}
# r_ref LV: LV's 24 MiB = the reference's first 24 MiB but fio's 4 MiB at 16 MiB
r_ref() {
    [[ $(lv_sum "$DM_DEV_DIR/$VG/$1" 0 $((16 * M))) == "$(ref_sum 16)" ]] &&
        [[ $(lv_sum "$DM_DEV_DIR/$VG/$1" $((20 * M)) $((4 * M))) == \
            "$(head -c $((24 * M)) "$SCRATCH/ref" | tail -c $((4 * M)) | sha256sum | cut -d' ' -f1)" ]]
}

uspace_run_ok "pvcreate, vgcreate" sh -c "$LVX pvcreate -q ${DEVS[*]} && $LVX vgcreate -q $VG ${DEVS[*]}"

# --- r: raid5_ls -i4 -> -i3 ---------------------------------------------------------
make_lv r raid5_ls 32 4
uspace_run_ok "--maxrecoveryrate 512k" lvx lvchange -q --maxrecoveryrate 512k "$VG/r"
want="Can't remove stripes without --force option.|Reshape request failed on LV $VG/r.|"
s0=$(seqno)
rc=0; conv r --stripes 3 || rc=$?
test_eq "--stripes 3 without --force: LVM2's refusal (exit 5)" \
    "$rc $(lines <"$SCRATCH/conv.out" | sed 's/^.*\(Can.t remove\)/\1/')" "5 $want"
test_eq "... the VG's seqno unchanged" "$(seqno)" "$s0"
: >"$LOG"
test_ok "lvconvert --stripes 3 --force: exit 0" conv r --stripes 3 --force
test_ok "... 'successfully converted'" grep -q "Logical volume $VG/r successfully converted." "$SCRATCH/conv.out"
test_ok "the daemon's log: reshape started (backward, 5 -> 4 legs, data 0 -> 8192)" \
    grep -q "$VG/r: reshape started (backward, 5 -> 4 legs, layout 2 -> 2, chunk 128 -> 128, data at 0 -> 8192)" "$LOG"
test_ok "lvs mid-way: reshape, 0 < sync_percent < 100" moving r
test_eq "superblocks mid-way: reshape recorded backward, 4 devices, delta_disks -1, 24 MiB, offsets 0 -> 8192" \
    "$(sbs r 5 devices flags delta_disks array_sectors data_offset new_data_offset)" \
    "devices=4 flags=3 delta_disks=-1 array_sectors=49152 data_offset=0 new_data_offset=8192 "
test_eq "the images past the new count flagged REMOVE_AFTER_RESHAPE in the metadata" \
    "$(flagged REMOVE_AFTER_RESHAPE)" "r_rimage_4 r_rmeta_4 "
test_ok "fio writes and verifies 4 MiB at 16 MiB during the reshape" \
    fio_crc f1 "$DM_DEV_DIR/$VG/r" 4m --offset=16m
test_ok "still moving after fio" moving r
killed_resumed r 49152 backward
ended r "4 legs, chunk 128, data at 8192"
test_eq "r reads the reference below 16 MiB" "$(lv_sum "$DM_DEV_DIR/$VG/r" 0 $((16 * M)))" "$(ref_sum 16)"
test_eq "... and from 20 MiB to 24 MiB" "$(lv_sum "$DM_DEV_DIR/$VG/r" $((20 * M)) $((4 * M)))" \
    "$(head -c $((24 * M)) "$SCRATCH/ref" | tail -c $((4 * M)) | sha256sum | cut -d' ' -f1)"
test_ok "fio verifies its 4 MiB at 16 MiB" fio_crc f1 "$DM_DEV_DIR/$VG/r" 4m --offset=16m --verify_only
test_eq "lvs after the walk: idle 100%" \
    "$("$LVX" lvs --noheadings -o raid_sync_action,sync_percent "$VG/r" 2>/dev/null | xargs)" "idle 100.00"
test_eq "lvs -a (devices, data_stripes, reshape_len) before the second command: LVM2's" "$(rep_lvx)" "$(rep_lvm)"
layout=$(sb_field r_rmeta_0 layout)
uspace_run_ok "r deactivated" lvx lvchange -an "$VG/r"
test_eq "every superblock: md's finished state (4 devices, no reshape, data at 8192, 24 MiB)" \
    "$(sbs r 5 "${FIN[@]}")" \
    "devices=4 level=5 layout=$layout stripe=128 flags=0 reshape=$MAXS delta_disks=0 array_sectors=49152 data_offset=8192 new_data_offset=8192 sectors=16384 recovery=$MAXS resync=$MAXS dirty=0 "
: >"$LOG"
uspace_run_ok "r activated again (the removal ended, images to take out)" lvx lvchange -ay "$VG/r"
test_ok "... logged: 4 of 5 legs" grep -q "$VG/r: a stripe removal ended: 4 of 5 legs, 49152 sectors" "$LOG"
test_ok "... reads the reference (24 MiB but fio's 4 MiB)" r_ref r
s0=$(seqno)
test_ok "the second lvconvert --stripes 3: exit 0" conv r --stripes 3
test_ok "... 'successfully converted'" grep -q "Logical volume $VG/r successfully converted." "$SCRATCH/conv.out"
test_eq "... the metadata committed (seqno + 1 or more)" "$(($(seqno) > s0))" 1
test_eq "lvs -a after the second command: LVM2's of the same metadata" "$(rep_lvx)" "$(rep_lvm)"
test_eq "r is 24 MiB of 4 images" \
    "$("$LVX" lvs --noheadings -o lv_size,stripes,data_stripes --units m "$VG/r" 2>/dev/null | xargs)" "24.00m 4 3"
test_ok "r reads the reference (24 MiB but fio's 4 MiB)" r_ref r
test_ok "fio verifies its 4 MiB at 16 MiB" fio_crc f1 "$DM_DEV_DIR/$VG/r" 4m --offset=16m --verify_only
uspace_run_ok "r deactivated" lvx lvchange -an "$VG/r"
test_eq "the 4 superblocks: md's finished state kept" \
    "$(sbs r 4 devices flags reshape delta_disks array_sectors data_offset new_data_offset sectors)" \
    "devices=4 flags=0 reshape=$MAXS delta_disks=0 array_sectors=49152 data_offset=8192 new_data_offset=8192 sectors=16384 "
uspace_run_ok "r activated, then removed" sh -c "$LVX lvchange -ay $VG/r && $LVX lvremove -q -y $VG/r"

# --- q: raid6_zr -i4 -> -i3 -----------------------------------------------------------
make_lv q raid6_zr 32 4
: >"$LOG"
test_ok "lvconvert --stripes 3 --force: exit 0" conv q --stripes 3 --force
test_ok "the daemon's log: reshape started (backward, 6 -> 5 legs, data 0 -> 8192)" \
    grep -q "$VG/q: reshape started (backward, 6 -> 5 legs, layout 8 -> 8, chunk 128 -> 128, data at 0 -> 8192)" "$LOG"
test_ok "the reshape ends" done_wait q
test_eq "q reads the reference (24 MiB)" "$(lv_sum "$DM_DEV_DIR/$VG/q" 0 $((24 * M)))" "$(ref_sum 24)"
test_eq "lvs -a before the second command: LVM2's" "$(rep_lvx)" "$(rep_lvm)"
test_ok "the second lvconvert --stripes 3: exit 0" conv q --stripes 3
test_eq "lvs -a after it: LVM2's" "$(rep_lvx)" "$(rep_lvm)"
test_eq "q reads the reference (24 MiB)" "$(lv_sum "$DM_DEV_DIR/$VG/q" 0 $((24 * M)))" "$(ref_sum 24)"
uspace_run_ok "q deactivated" lvx lvchange -an "$VG/q"
test_eq "every superblock: md's finished state (5 devices, data at 8192)" \
    "$(sbs q 5 devices level stripe flags reshape delta_disks array_sectors data_offset new_data_offset sectors)" \
    "devices=5 level=6 stripe=128 flags=0 reshape=$MAXS delta_disks=0 array_sectors=49152 data_offset=8192 new_data_offset=8192 sectors=16384 "

lvx daemon stop >/dev/null 2>&1
done_testing
