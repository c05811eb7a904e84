#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1004-user-raid-resync: the background resync of the lvx daemon's RAID targets
# (daemon/raid_resync.c), user-space activation over three 64 MiB loop devices, LVM2
# (activation off) as the oracle of where each sub-LV lives:
#   - lvcreate --type raid1 -R 512k --maxrecoveryrate 4m: the LV is served at once;
#     lvs shows raid_sync_action "resync" and sync_percent below 100 (polled), fio
#     writes with crc32c checksums while it runs; sync_percent reaches 100 and the
#     action turns "idle" (polled); fio verifies every block; both rimages hold the
#     same bytes (read from the PVs); the clean stop leaves the superblocks in sync;
#   - lvchange --syncaction check refused while a resync runs (LVM2's line), works
#     once the LV is in sync;
#   - lvchange --resync, then SIGKILL of the daemon once the bitmap on disk records
#     progress: array_resync_offset 0 (dm-raid's bitmap-driven resync), the regions done
#     clean, those left dirty; the next start resumes at the first dirty one (logged),
#     more data written meanwhile verifies, legs equal;
#   - raid5 -i2 with a rate limit: fio with crc32c while the parity is computed, then
#     verified, every stripe's parity the XOR of its data (tests/tools/parity_check.py).
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

need_cmd fio
VG=vgrs$$
uspace_test_loops "$VG" 3 64M
source "$LVX_ROOT/tests/tools/raid-pvread.sh"
MIB=1048576
LOG=$LVX_RUN_DIR/lvxd.log
R=$DM_DEV_DIR/$VG/r

lvsf() { lvx lvs --noheadings -o "$2" "$VG/$1" 2>/dev/null | tr -d ' '; }
# wait_in_sync LV: polls until sync_percent is 100.00 (at most ~120 s of polling)
wait_in_sync() {
    for _ in $(seq 600); do
        [[ $(lvsf "$1" sync_percent) == 100.00 ]] && return 0
        sleep 0.2
    done
    return 1
}
wait_log() {  # wait_log TEXT: polls the daemon's log for TEXT
    for _ in $(seq 100); do grep -q "$1" "$LOG" && return 0; sleep 0.1; done
    return 1
}
legs_equal() {  # legs_equal DESC LV LENGTH: both rimages hold the same bytes
    report "$2_rimage_0"
    report "$2_rimage_1"
    test_eq "$1" "$(pv_sum "$2_rimage_1" 0 "$3")" "$(pv_sum "$2_rimage_0" 0 "$3")"
}

uspace_run_ok "pvcreate" lvx pvcreate "${DEVS[@]}"
uspace_run_ok "vgcreate $VG" lvx vgcreate "$VG" "${DEVS[@]}"
uspace_run_ok "lvcreate --type raid1 -m1 -L 32m -R 512k --maxrecoveryrate 4m (returns at once)" \
    lvx lvcreate -Zn --type raid1 -m1 -L 32m -R 512k --maxrecoveryrate 4m -n r "$VG" \
    "${DEVS[0]}" "${DEVS[1]}"
test_ok "$R is a block device" test -b "$R"
seen=""
for _ in $(seq 100); do
    p=$(lvsf r sync_percent) a=$(lvsf r raid_sync_action)
    [[ $a == resync && -n $p && $p != 100.00 ]] && { seen="$p $a"; break; }
    sleep 0.1
done
test_ok "lvs shows the resync running: sync_percent below 100 (${seen:-never seen})" test -n "$seen"
out=$(lvx lvchange --syncaction check "$VG/r" 2>&1)
rc=$?
p=$(lvsf r sync_percent)
if [[ $p != 100.00 ]]; then
    test_eq "--syncaction check during the resync: refused as LVM2 refuses it (exit 5)" \
        "$rc|$(grep -c 'state is currently "resync".  Unable to switch to "check".' <<<"$out")" "5|1"
else
    test_ok "--syncaction check (the resync had ended already)" test "$rc" -eq 0
fi
uspace_run_ok "fio: 8 MiB of crc32c-headed random writes while the resync runs" \
    fio_crc w1 "$R" 8m --do_verify=0
test_ok "sync_percent reaches 100.00 (polled)" wait_in_sync r
test_eq "raid_sync_action is idle once in sync" "$(lvsf r raid_sync_action)" "idle"
test_ok "the daemon logged the end of the resync (polled)" wait_log "r: resync done"
uspace_run_ok "fio verifies every block written during the resync (crc32c)" \
    fio_crc w1 "$R" 8m --verify_only=1
uspace_run_ok "--syncaction check of the synced LV" lvx lvchange --syncaction check "$VG/r"
test_eq "no mismatch found" "$(lvsf r raid_mismatch_count)" "0"
uspace_run_ok "deactivate" lvx lvchange -an "$VG/r"
legs_equal "both rimages hold the same 32 MiB (read from the PVs)" r $((32 * MIB))
report r_rmeta_0
test_eq "r_rmeta_0: resync offset MaxSector, no dirty bit after the clean stop" \
    "$(sb_field r_rmeta_0 resync) $(sb_field r_rmeta_0 dirty)" "ffffffffffffffff 0"

# ---- --resync, SIGKILL of the daemon mid-resync, resume from the recorded offset
uspace_run_ok "lvchange -ay" lvx lvchange -ay "$VG/r"
uspace_run_ok "lvchange --resync -y (a full resync in the background)" \
    lvx lvchange --resync -y "$VG/r"
sb_wait_dirty r_rmeta_0 0 >/dev/null   # until a checkpoint cleared the first regions' bits
report r_rmeta_1
uspace_kill_daemon
test_ok "the daemon is gone (SIGKILL)" test -z "$(uspace_daemon_pids)"
test_eq "both superblocks record a resync left to the bitmap (array_resync_offset 0)" \
    "$(sb_field r_rmeta_0 resync) $(sb_field r_rmeta_1 resync)" "0 0"
first=$(sb_field r_rmeta_0 first_dirty)
test_ok "the regions done are clean on disk, the ones left dirty (first dirty: $first of 64)" \
    test "$first" -gt 0 -a "$first" -lt 64 -a "$(sb_field r_rmeta_0 dirty)" -eq $((64 - first))
test_eq "both legs' bitmaps agree" "$(sb_field r_rmeta_1 bits)" "$(sb_field r_rmeta_0 bits)"
: >"$LOG"
uspace_run_ok "lvx daemon start (serves r again)" lvx daemon start
test_ok "the resync resumed at the first dirty region (sector $((first * 1024)))" \
    grep -q "r: resync resumed at sector $((first * 1024))\$" "$LOG"
uspace_run_ok "fio: 8 MiB more crc32c-headed writes while it resumes" \
    fio_crc w2 "$R" 8m --offset=16m --do_verify=0
test_ok "sync_percent reaches 100.00 after the resume (polled)" wait_in_sync r
uspace_run_ok "fio verifies the first writes" fio_crc w1 "$R" 8m --verify_only=1
uspace_run_ok "fio verifies the writes made during the resumed resync" \
    fio_crc w2 "$R" 8m --offset=16m --verify_only=1
uspace_run_ok "deactivate" lvx lvchange -an "$VG/r"
legs_equal "after the resumed resync both rimages are equal" r $((32 * MIB))
test_eq "r_rmeta_1: in sync after the clean stop" \
    "$(sb_field r_rmeta_1 resync) $(sb_field r_rmeta_1 dirty)" "ffffffffffffffff 0"

# ---- raid5: the parity computed in the background under writes
uspace_run_ok "lvcreate --type raid5 -i2 -I 64k -L 16m -R 256k --maxrecoveryrate 2m" \
    lvx lvcreate -Zn --type raid5 -i2 -I 64k -L 16m -R 256k --maxrecoveryrate 2m -n r5 "$VG"
test_eq "raid5 resync running right after lvcreate" "$(lvsf r5 raid_sync_action)" "resync"
uspace_run_ok "fio: 16 MiB of crc32c-headed writes while the parity is computed" \
    fio_crc w5 "$DM_DEV_DIR/$VG/r5" 16m --do_verify=0
test_ok "r5 sync_percent reaches 100.00 (polled)" wait_in_sync r5
uspace_run_ok "fio verifies r5" fio_crc w5 "$DM_DEV_DIR/$VG/r5" 16m --verify_only=1
dd if="$DM_DEV_DIR/$VG/r5" of="$SCRATCH/r5.img" bs=1M iflag=direct status=none
uspace_run_ok "deactivate r5" lvx lvchange -an "$VG/r5"
imgs=()
for i in 0 1 2; do
    report "r5_rimage_$i"
    pv_get "r5_rimage_$i" 0 $((8 * MIB)) "$SCRATCH/img$i"
    imgs+=("$SCRATCH/img$i")
done
"$PYTHON" "$LVX_ROOT/tests/tools/parity_check.py" raid5_ls 65536 "$SCRATCH/r5.img" "${imgs[@]}" \
    >"$SCRATCH/pc.out" 2>&1
_tap_result $? "r5: data and parity right on the PVs ($(cat "$SCRATCH/pc.out"))"

done_testing
