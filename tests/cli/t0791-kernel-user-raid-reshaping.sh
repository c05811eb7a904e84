#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0791-kernel-user-raid-reshaping: RAID reshapes that LVM2 and the kernel started and
# left unfinished, served frozen by lvx's user-space daemon, then finished by the
# kernel (docs/reshape-user.md §5 step 3):
#   1. guest (tests/kernel/user-raid-reshaping.sh, phase 1): LVM2 starts raid5 -i3 ->
#      4 stripes (forward), raid6 -i3 -> 4 (forward), raid5 stripe size 64k -> 128k
#      (backward), raid5 k4 -i4 -> 3 (a stripe removed, --force: backward), throttled,
#      and deactivates them once a position is recorded;
#   2. host: lvx's daemon serves them in both geometries (the moved side in the new,
#      the rest in the old), reports the reshape frozen, reads the kernel's bytes,
#      writes its own over each LV's old size, deactivates; the superblocks keep every
#      reshape field (events aside);
#   2b. host: the daemon, read-write (step 4), continues r5's reshape to its end and
#      writes the new space; r5's superblocks are md's finished state;
#   2c. host: the daemon makes raid5 u5, starts its reshape (lvconvert --stripes 4:
#      step 5's raidreshape) and is stopped mid-way: every superblock records one
#      position between the start and the end;
#   2d. host: the daemon makes raid10 t10 and s10 (-i2 -m1) and grows them
#      (--stripes 3, docs/reshape-user.md §12): t10 to its end and the new space's
#      resync, s10 stopped mid-walk; 2d2. z10 (-i2 -m1) gets --stripesize 128k
#      (backward) and is stopped mid-walk;
#   2e. host: the daemon removes a stripe of its raid5 d5 (-i4, --stripes 3 --force,
#      §13) and walks it to its end (first command only);
#   2f. host: the daemon continues LVM2's removal of k4 to its end, then lvx's second
#      command;
#   3. guest (phase 2): the kernel goes on from the recorded position to the end and
#      reads the daemon's bytes (r5: takes the daemon's finished array in sync, no
#      reshape, no resync; u5: finishes the reshape the daemon started; t10, d5, k4:
#      taken in sync at once; s10: the kernel finishes the growth, its superblock and
#      bitmap recorded mid-way; z10: the kernel finishes the stripe size change); d5's leaving leg's superblock as the kernel leaves it
#      (array_position), LVM2's second command of d5 refused after the reactivation (as
#      LVM2's own x5 cannot even be reactivated between its two commands);
#   4. host: the daemon takes t10 and s10 back from the kernel (in sync, bytes) and runs
#      d5's second command.
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"
# shellcheck source=tests/tools/uspace-env.sh
source "$LVX_ROOT/tests/tools/uspace-env.sh"
# shellcheck source=tests/tools/guest-disks.sh
# shellcheck disable=SC2034  # guest-disks.sh reads it
GUEST_DISK_SIZE=128M   # 31 extents a PV: r5 r6 r5b u5 k4 t10 s10 d5
source "$LVX_ROOT/tests/tools/guest-disks.sh"
# shellcheck source=tests/tools/raid-pvread.sh
source "$LVX_ROOT/tests/tools/raid-pvread.sh"
# shellcheck disable=SC2034  # raid-pvread.sh reads it
VG=kr
: "${PYTHON:=python3}"
LVS=(r5 r6 r5b)
declare -A LEGS=([r5]=5 [r6]=6 [r5b]=4)
detach_all

# ---- 1. LVM2 and the kernel start the reshapes and stop them
echo 1 >"$SCRATCH/data/phase"
KERNEL_GUEST_MORE=1 kernel_guest_test user-raid-reshaping.sh 6 128M 900 --disk-dir "$DISKS" --reuse-disks \
    --put "$SCRATCH/data:/t/data"
cp "$KERNEL_OUT"/ka_*.bin "$SCRATCH/data/" 2>/dev/null
[[ -n ${LVX_GUEST_KEEP:-} ]] && { rm -rf "$LVX_GUEST_KEEP"; cp -r "$KERNEL_OUT" "$LVX_GUEST_KEEP"; }

# ---- 2. lvx's daemon serves them frozen (step 3's serving: a read-write activation
# would continue them since step 4; the daemon inherits this)
attach_all
export LVX_TEST_RESHAPE_FROZEN=1
uspace_env "$SCRATCH/us" "${DEVS[@]}"
lvm_sandbox "${DEVS[@]}"
: >"$LOG"
# the dm-raid superblock fields the daemon must keep (all but events), per rmeta
sbs() {
    local lv i f
    for lv in "${LVS[@]}"; do
        for ((i = 0; i < LEGS[$lv]; i++)); do
            report "${lv}_rmeta_$i"
            for f in devices position level layout stripe array_sectors data_offset \
                new_data_offset flags reshape delta_disks sectors recovery resync bm_sync_size dirty; do
                printf '%s ' "$f=$(sb_field "${lv}_rmeta_$i" $f)"
            done
            echo
        done
    done
}
# shellcheck disable=SC2317  # called through test_ok
lv_synced() {
    for _ in $(seq 300); do
        [[ $("$LVX" lvs --noheadings -o sync_percent "kr/$1" 2>/dev/null | xargs) == 100.00 ]] && return 0
        sleep 0.2
    done
    return 1
}
# shellcheck disable=SC2317
logged() { for _ in $(seq 300); do grep -q "$1" "$LOG" && return 0; sleep 0.2; done; return 1; }
# shellcheck disable=SC2317
# lv_moving LV: lvs reshape, 5 < sync_percent < 60 (polled)
lv_moving() {
    local a p
    for _ in $(seq 150); do
        read -r a p <<<"$("$LVX" lvs --noheadings -o raid_sync_action,sync_percent "kr/$1" 2>/dev/null)"
        [[ $a == reshape ]] && awk -v p="$p" 'BEGIN { exit !(p > 5 && p < 60) }' && return 0
        sleep 0.2
    done
    return 1
}
# sbl LV N FIELDS...: the distinct lines of the fields of LV's N superblocks
sbl() {
    local lv=$1 n=$2 i f
    shift 2
    for ((i = 0; i < n; i++)); do
        report "${lv}_rmeta_$i"
        for f in "$@"; do printf '%s ' "$f=$(sb_field "${lv}_rmeta_$i" "$f")"; done
        echo
    done | sort -u
}
# midway LV LEGS DESC WANT FIELD...: kr/LV deactivated mid-reshape; its LEGS superblocks'
# FIELDs are one record equal to WANT (the reshape position written as P), P inside the
# 8 MiB array (16384 sectors)
midway() {
    local lv=$1 legs=$2 desc=$3 want=$4 pos
    shift 4
    uspace_run_ok "deactivate kr/$lv mid-reshape" lvx lvchange -an "kr/$lv"
    sbl "$lv" "$legs" "$@" >"$SCRATCH/$lv.sb"
    diag "kr/$lv's superblocks (the daemon's, mid-walk): $(cat "$SCRATCH/$lv.sb")"
    pos=$(sed -n 's/.* reshape=\([0-9a-f]*\) .*/\1/p' "$SCRATCH/$lv.sb")
    test_eq "kr/$lv: one record of $legs legs mid-way ($desc)" \
        "$(sed "s/reshape=$pos /reshape=P /" "$SCRATCH/$lv.sb")" "$want"
    test_ok "... P strictly inside the array ($((0x${pos:-0})))" \
        test "$((0x${pos:-0}))" -gt 0 -a "$((0x${pos:-0}))" -lt 16384
}
# second_command LV: lvx's second lvconvert --stripes 3 of a removal ended 5 -> 4 legs;
# the LV then 4 images, 12 MiB, which read SCRATCH/data/hx_LV.bin
second_command() {
    uspace_run_ok "lvx's second lvconvert --stripes 3 kr/$1" lvx lvconvert -y --stripes 3 "kr/$1"
    test_eq "kr/$1: 4 images, 3 data stripes, 12 MiB" \
        "$("$LVX" lvs --noheadings --units m -o stripes,data_stripes,lv_size "kr/$1" 2>/dev/null | xargs)" "4 3 12.00m"
    test_eq "kr/$1 reads its 12 MiB after the second command" \
        "$(head -c $((12 << 20)) "$DM_DEV_DIR/kr/$1" | sha256sum | cut -d' ' -f1)" "$(sha "$SCRATCH/data/hx_$1.bin")"
}
sbs >"$SCRATCH/sb.kernel"
diag "the kernel's superblocks: $(cat "$SCRATCH/sb.kernel")"
test_eq "every superblock records a reshape in progress (flags 1 or 3, a position)" \
    "$(grep -E 'flags=[13] reshape=' "$SCRATCH/sb.kernel" | grep -c -v -e 'reshape=0 ' -e 'reshape=ffffffffffffffff ')" "15"
uspace_run_ok "lvx activates kr/r5 kr/r6 kr/r5b (three reshapes in progress)" lvx lvchange -ay kr/r5 kr/r6 kr/r5b
test_eq "the daemon names each reshape's position (its log)" \
    "$(grep -c 'a reshape in progress at sector [1-9].*served frozen' "$LOG")" "3"
lvx lvs --noheadings -o lv_name,raid_sync_action,sync_percent kr >"$SCRATCH/lvs" 2>&1
diag "$(cat "$SCRATCH/lvs")"
test_eq "lvs: each reshape frozen, 0 < sync_percent < 100" \
    "$(awk '$2 == "frozen" && $3 > 0 && $3 < 100' "$SCRATCH/lvs" | wc -l)" "3"
for lv in "${LVS[@]}"; do
    bytes=$(stat -c %s "$SCRATCH/data/ka_$lv.bin")
    test_eq "kr/$lv: the daemon reads the kernel's bytes on both sides of the position" \
        "$(head -c "$bytes" "$DM_DEV_DIR/kr/$lv" | sha256sum | cut -d' ' -f1)" "$(sha "$SCRATCH/data/ka_$lv.bin")"
    head -c "$bytes" /dev/urandom >"$SCRATCH/data/hx_$lv.bin"
    uspace_run_ok "kr/$lv: new data written through the daemon (both geometries)" dd if="$SCRATCH/data/hx_$lv.bin" \
        of="$DM_DEV_DIR/kr/$lv" bs=1M oflag=direct conv=fsync status=none
    test_eq "kr/$lv reads them back" \
        "$(head -c "$bytes" "$DM_DEV_DIR/kr/$lv" | sha256sum | cut -d' ' -f1)" "$(sha "$SCRATCH/data/hx_$lv.bin")"
done
test_eq "no resync or rebuild in the daemon's log" \
    "$(grep -c -e 'new RAID set' -e 'is rebuilt' -e 'resync' -e 'failed' "$LOG")" "0"
uspace_run_ok "deactivate kr" lvx vgchange -an kr
sbs >"$SCRATCH/sb.daemon"
test_eq "the superblocks keep every reshape field the kernel wrote (events aside)" \
    "$(diff "$SCRATCH/sb.kernel" "$SCRATCH/sb.daemon")" ""
lvx daemon stop >/dev/null 2>&1
for _ in $(seq 100); do [[ -z $(uspace_daemon_pids) ]] && break; sleep 0.1; done

# ---- 2b. the daemon (step 4) continues r5's reshape (3 -> 4 stripes) to its end
unset LVX_TEST_RESHAPE_FROZEN
uspace_run_ok "kr/r5 unthrottled (lvchange --maxrecoveryrate 0)" lvx lvchange -q --maxrecoveryrate 0 kr/r5
: >"$LOG"
uspace_run_ok "lvx activates kr/r5 read-write" lvx lvchange -ay kr/r5
for _ in $(seq 600); do grep -q "kr/r5: reshape done" "$LOG" && break; sleep 0.2; done
test_ok "the daemon continued kr/r5's reshape to its end (its log)" \
    grep -q "kr/r5: reshape done after [0-9]* steps: 5 legs" "$LOG"
test_eq "kr/r5 reads the daemon's 12 MiB after the end" \
    "$(head -c $((12 << 20)) "$DM_DEV_DIR/kr/r5" | sha256sum | cut -d' ' -f1)" "$(sha "$SCRATCH/data/hx_r5.bin")"
head -c $((4 << 20)) /dev/urandom >>"$SCRATCH/data/hx_r5.bin"
uspace_run_ok "kr/r5: its new 4 MiB (past the old size) written" dd if="$SCRATCH/data/hx_r5.bin" \
    of="$DM_DEV_DIR/kr/r5" bs=1M skip=12 seek=12 oflag=direct conv=fsync status=none
uspace_run_ok "deactivate kr/r5" lvx lvchange -an kr/r5
fin=0
for ((i = 0; i < 5; i++)); do
    report "r5_rmeta_$i"
    [[ "$(sb_field r5_rmeta_$i flags) $(sb_field r5_rmeta_$i reshape) $(sb_field r5_rmeta_$i data_offset)" == "0 ffffffffffffffff 0" ]] &&
        fin=$((fin + 1))
done
test_eq "kr/r5's superblocks: md's finished state (no reshape, data at 0)" "$fin" 5
touch "$SCRATCH/data/done_r5"

# ---- 2c. the daemon (step 5) starts a reshape of its own and is stopped mid-way
# (docs/reshape-user.md §4 guest direction 1): u5, raid5_ls -i3, made and synced by the
# daemon, throttled, --stripes 4; deactivated once the walk is under way (a clean stop
# records the position); the kernel finishes it in phase 2
uspace_run_ok "lvx lvcreate --type raid5 -i3 -I 64k -L 12m kr/u5" \
    lvx lvcreate -q -y -Zn --type raid5 -i3 -I 64k -L 12m -n u5 kr
test_ok "kr/u5 in sync (the daemon's initial sync)" lv_synced u5
head -c $((12 << 20)) /dev/urandom >"$SCRATCH/data/hx_u5.bin"
uspace_run_ok "kr/u5: 12 MiB written through the daemon" dd if="$SCRATCH/data/hx_u5.bin" \
    of="$DM_DEV_DIR/kr/u5" bs=1M oflag=direct conv=fsync status=none
uspace_run_ok "kr/u5 throttled (--maxrecoveryrate 256k)" lvx lvchange -q --maxrecoveryrate 256k kr/u5
: >"$LOG"
uspace_run_ok "lvx lvconvert --stripes 4 kr/u5 (the daemon starts the reshape)" \
    lvx lvconvert -y --stripes 4 kr/u5
test_ok "kr/u5: the walk under way (lvs: reshape, 5 < sync_percent < 60)" lv_moving u5
uspace_run_ok "deactivate kr/u5 mid-reshape" lvx lvchange -an kr/u5
test_ok "the daemon's log: u5's reshape started forward, 4 -> 5 legs" \
    grep -q "kr/u5: reshape started (forward, 4 -> 5 legs" "$LOG"
LVS+=(u5)
LEGS[u5]=5
u5_pos=()
for ((i = 0; i < 5; i++)); do
    report "u5_rmeta_$i"
    u5_pos+=("$(sb_field u5_rmeta_$i flags) $(printf '%d' "0x$(sb_field u5_rmeta_$i reshape)")")
done
diag "u5's superblocks (flags, reshape_position): ${u5_pos[*]}"
test_eq "kr/u5: every superblock records the reshape at one position" \
    "$(printf '%s\n' "${u5_pos[@]}" | sort -u | wc -l) ${u5_pos[0]%% *}" "1 1"
test_ok "kr/u5: the position lies between the start and the end (32768)" \
    test "${u5_pos[0]##* }" -gt 0 -a "${u5_pos[0]##* }" -lt 32768

# ---- 2d. the daemon's raid10 growths (docs/reshape-user.md §12): t10 to its end and
# the new space's resync; s10 stopped mid-walk (the kernel finishes it in phase 2)
M=1048576
MAXS=ffffffffffffffff
for lv in t10 s10; do
    uspace_run_ok "lvx lvcreate --type raid10 -i2 -m1 -I 64k -L 8m kr/$lv" \
        lvx lvcreate -q -y -Zn --type raid10 -i2 -m1 -I 64k -L 8m -n $lv kr
    test_ok "kr/$lv in sync" lv_synced $lv
    head -c $((8 * M)) /dev/urandom >"$SCRATCH/data/hx_$lv.bin"
    uspace_run_ok "kr/$lv: 8 MiB written through the daemon" dd if="$SCRATCH/data/hx_$lv.bin" \
        of="$DM_DEV_DIR/kr/$lv" bs=1M oflag=direct conv=fsync status=none
done
uspace_run_ok "kr/t10 unthrottled" lvx lvchange -q --maxrecoveryrate 0 kr/t10
uspace_run_ok "kr/s10 throttled (--maxrecoveryrate 256k)" lvx lvchange -q --maxrecoveryrate 256k kr/s10
: >"$LOG"
uspace_run_ok "lvx lvconvert --stripes 3 kr/t10 (4 -> 6 images)" lvx lvconvert -y --stripes 3 kr/t10
test_ok "kr/t10: the reshape ends, then the new space's resync (the daemon's log)" \
    logged "kr/t10: resync done"
test_ok "... logged: 6 legs, data at 0, 24576 sectors" \
    grep -q "kr/t10: reshape done after [0-9]* steps: 6 legs, chunk 128, data at 0, 24576 sectors" "$LOG"
test_eq "kr/t10: lvs idle 100%, 12 MiB" \
    "$("$LVX" lvs --noheadings -o raid_sync_action,sync_percent,lv_size --units m kr/t10 2>/dev/null | xargs)" \
    "idle 100.00 12.00m"
test_eq "kr/t10 reads its 8 MiB after the growth" "$(head -c $((8 * M)) "$DM_DEV_DIR/kr/t10" | sha256sum | cut -d' ' -f1)" \
    "$(sha "$SCRATCH/data/hx_t10.bin")"
head -c $((4 * M)) /dev/urandom >>"$SCRATCH/data/hx_t10.bin"
uspace_run_ok "kr/t10: its new 4 MiB written" dd if="$SCRATCH/data/hx_t10.bin" of="$DM_DEV_DIR/kr/t10" \
    bs=1M skip=8 seek=8 oflag=direct conv=fsync status=none
uspace_run_ok "deactivate kr/t10" lvx lvchange -an kr/t10
test_eq "kr/t10's superblocks: md's finished growth, in sync (resync MaxSector, no bit)" \
    "$(sbl t10 6 devices flags reshape delta_disks array_sectors data_offset new_data_offset resync dirty bm_sync_size)" \
    "devices=6 flags=0 reshape=$MAXS delta_disks=0 array_sectors=24576 data_offset=0 new_data_offset=0 resync=$MAXS dirty=0 bm_sync_size=24576 "
: >"$LOG"
uspace_run_ok "lvx lvconvert --stripes 3 kr/s10 (throttled)" lvx lvconvert -y --stripes 3 kr/s10
test_ok "kr/s10: the walk under way (lvs: reshape, 5 < sync_percent < 60)" lv_moving s10
midway s10 6 "forward, delta 2, the old size, bitmap of the new" \
    "devices=6 flags=1 reshape=P delta_disks=2 array_sectors=16384 data_offset=8192 new_data_offset=0 resync=$MAXS bm_sync_size=24576 " \
    devices flags reshape delta_disks array_sectors data_offset new_data_offset resync bm_sync_size
uspace_run_ok "kr/s10 at 512k for the guest (its walk seen mid-way there)" lvx lvchange -q --maxrecoveryrate 512k kr/s10

# ---- 2d2. the daemon's raid10 stripe size change (docs/reshape-user.md §14): z10 64k ->
# 128k (backward, data 0 -> 8192) stopped mid-walk (the kernel finishes it in phase 2)
uspace_run_ok "lvx lvcreate --type raid10 -i2 -m1 -I 64k -L 8m kr/z10" \
    lvx lvcreate -q -y -Zn --type raid10 -i2 -m1 -I 64k -L 8m -n z10 kr
test_ok "kr/z10 in sync" lv_synced z10
head -c $((8 * M)) /dev/urandom >"$SCRATCH/data/hx_z10.bin"
uspace_run_ok "kr/z10: 8 MiB written, throttled (256k)" sh -c "dd if=$SCRATCH/data/hx_z10.bin \
    of=$DM_DEV_DIR/kr/z10 bs=1M oflag=direct conv=fsync status=none &&
    $LVX lvchange -q --maxrecoveryrate 256k kr/z10"
uspace_run_ok "lvx lvconvert --stripesize 128k kr/z10 (throttled)" lvx lvconvert -y --stripesize 128k kr/z10
test_ok "kr/z10: the walk under way (lvs: reshape, 5 < sync_percent < 60)" lv_moving z10
midway z10 4 "backward, stripe 128 -> 256, offsets 0 -> 8192" \
    "stripe=128 new_stripe=256 flags=3 reshape=P delta_disks=0 array_sectors=16384 data_offset=0 new_data_offset=8192 " \
    stripe new_stripe flags reshape delta_disks array_sectors data_offset new_data_offset

# ---- 2e. the daemon removes a stripe of d5 (docs/reshape-user.md §13), first command
uspace_run_ok "lvx lvcreate --type raid5 -i4 -I 64k -L 16m kr/d5" \
    lvx lvcreate -q -y -Zn --type raid5 -i4 -I 64k -L 16m -n d5 kr
test_ok "kr/d5 in sync" lv_synced d5
head -c $((16 * M)) /dev/urandom >"$SCRATCH/d5.16"
uspace_run_ok "kr/d5: 16 MiB written through the daemon" dd if="$SCRATCH/d5.16" \
    of="$DM_DEV_DIR/kr/d5" bs=1M oflag=direct conv=fsync status=none
head -c $((12 * M)) "$SCRATCH/d5.16" >"$SCRATCH/data/hx_d5.bin"
uspace_run_ok "kr/d5 unthrottled" lvx lvchange -q --maxrecoveryrate 0 kr/d5
: >"$LOG"
uspace_run_ok "lvx lvconvert --stripes 3 --force kr/d5 (5 -> 4 legs)" lvx lvconvert -y --force --stripes 3 kr/d5
test_ok "kr/d5: the walk ends (logged: 4 legs, data at 8192)" \
    logged "kr/d5: reshape done after [0-9]* steps: 4 legs, chunk 128, data at 8192"
test_eq "kr/d5 reads the first 12 MiB" "$(head -c $((12 * M)) "$DM_DEV_DIR/kr/d5" | sha256sum | cut -d' ' -f1)" \
    "$(sha "$SCRATCH/data/hx_d5.bin")"
uspace_run_ok "deactivate kr/d5" lvx lvchange -an kr/d5
test_eq "kr/d5's 5 superblocks: md's finished removal (4 devices, data at 8192, 12 MiB)" \
    "$(sbl d5 5 devices flags reshape delta_disks array_sectors data_offset new_data_offset resync dirty)" \
    "devices=4 flags=0 reshape=$MAXS delta_disks=0 array_sectors=24576 data_offset=8192 new_data_offset=8192 resync=$MAXS dirty=0 "
test_eq "... the leaving leg keeps its array_position (4)" "$(sb_field d5_rmeta_4 position)" 4

# ---- 2f. the daemon continues LVM2's removal of k4 to its end, then lvx's second command
uspace_run_ok "kr/k4 unthrottled" lvx lvchange -q --maxrecoveryrate 0 kr/k4
: >"$LOG"
uspace_run_ok "lvx activates kr/k4 (LVM2's removal stopped mid-way)" lvx lvchange -ay kr/k4
test_ok "kr/k4: the daemon continues it to its end (logged: 4 legs, data at 8192)" \
    logged "kr/k4: reshape done after [0-9]* steps: 4 legs, chunk 128, data at 8192"
head -c $((12 * M)) "$SCRATCH/data/ka_k4.bin" >"$SCRATCH/data/hx_k4.bin"
test_eq "kr/k4 reads the kernel's first 12 MiB" "$(head -c $((12 * M)) "$DM_DEV_DIR/kr/k4" | sha256sum | cut -d' ' -f1)" \
    "$(sha "$SCRATCH/data/hx_k4.bin")"
second_command k4
uspace_run_ok "deactivate kr/k4" lvx lvchange -an kr/k4
test_eq "kr/k4's 4 superblocks: md's finished removal" \
    "$(sbl k4 4 devices flags reshape delta_disks array_sectors data_offset new_data_offset resync dirty)" \
    "devices=4 flags=0 reshape=$MAXS delta_disks=0 array_sectors=24576 data_offset=8192 new_data_offset=8192 resync=$MAXS dirty=0 "
lvx daemon stop >/dev/null 2>&1
for _ in $(seq 100); do [[ -z $(uspace_daemon_pids) ]] && break; sleep 0.1; done
detach_all

# ---- 3. the kernel finishes them (r5: takes the daemon's finished array)
echo 2 >"$SCRATCH/data/phase"
KERNEL_GUEST_MORE=1 kernel_guest_test user-raid-reshaping.sh 6 128M 900 --disk-dir "$DISKS" --reuse-disks \
    --put "$SCRATCH/data:/t/data"
attach_all
lvm_sandbox "${DEVS[@]}"
sbs >"$SCRATCH/sb.kernel2"
diag "the kernel's superblocks after the end: $(cat "$SCRATCH/sb.kernel2")"
test_eq "no superblock records a reshape after the kernel's end" \
    "$(grep -c 'reshape=ffffffffffffffff ' "$SCRATCH/sb.kernel2")" "20"
diag "the guest's records: $(cat "$KERNEL_OUT/s10_sb_mid.txt" "$KERNEL_OUT/d5_sb.txt" "$KERNEL_OUT/x5.txt" 2>&1)"
s10_mid=$(grep '^[0-5] ' "$KERNEL_OUT/s10_sb_mid.txt" 2>/dev/null | cut -d' ' -f2- | sed 's/ events=[0-9]*//; s/ reshape=[0-9a-f]*//; s/ position=[0-9]*//' | sort -u)
test_eq "kr/s10 mid-growth in the kernel: md's superblocks, bitmap sync_size the old size (the daemon's: the new)" \
    "$s10_mid" "devices=6 flags=1 delta_disks=2 array_sectors=16384 data_offset=8192 new_data_offset=0 bm_sync_size=16384"
test_eq "kr/t10 after the kernel: in sync, the daemon's bitmap sync_size (the new size) kept" \
    "$(sbl t10 6 devices flags reshape delta_disks array_sectors data_offset resync dirty bm_sync_size)" \
    "devices=6 flags=0 reshape=$MAXS delta_disks=0 array_sectors=24576 data_offset=0 resync=$MAXS dirty=0 bm_sync_size=24576 "
test_eq "kr/s10 after the kernel's end: finished, in sync, md's bitmap sync_size still the old size" \
    "$(sbl s10 6 devices flags reshape delta_disks array_sectors data_offset resync dirty bm_sync_size)" \
    "devices=6 flags=0 reshape=$MAXS delta_disks=0 array_sectors=24576 data_offset=0 resync=$MAXS dirty=0 bm_sync_size=16384 "
sbl z10 4 stripe flags reshape delta_disks data_offset new_data_offset sectors >"$SCRATCH/z10k.sb"
diag "kr/z10's superblocks after the kernel: $(cat "$SCRATCH/z10k.sb")"
test_eq "kr/z10 after the kernel's end: stripe 256, no reshape, data at 8192" \
    "$(sed 's/ sectors=[0-9]*//' "$SCRATCH/z10k.sb")" \
    "stripe=256 flags=0 reshape=$MAXS delta_disks=0 data_offset=8192 new_data_offset=8192 "
test_eq "kr/d5's leaving leg as the kernel left it: array_position 4 (lvx's), devices 4" \
    "$(awk '$1 == "kernel" && $2 == 4 { print $3, $4 }' "$KERNEL_OUT/d5_sb.txt" 2>/dev/null)" "devices=4 position=4"
test_eq "LVM2's own removal (x5) deactivated before its second command: md wrote -1 there" \
    "$(awk '$1 == "lvm2" && $2 == 4 { print $3, $4 }' "$KERNEL_OUT/d5_sb.txt" 2>/dev/null)" "devices=4 position=-1"

# ---- 4. the daemon takes the kernel's raid10 growths back (md's bitmap: sync_size the
# old size after s10's growth, the daemon's the new size after t10's)
uspace_env "$SCRATCH/us" "${DEVS[@]}"
: >"$LOG"
for lv in t10 s10; do
    uspace_run_ok "lvx activates kr/$lv (the kernel ran it last)" lvx lvchange -ay kr/$lv
    test_eq "kr/$lv: lvs idle 100%, 12 MiB" \
        "$("$LVX" lvs --noheadings -o raid_sync_action,sync_percent,lv_size --units m kr/$lv 2>/dev/null | xargs)" \
        "idle 100.00 12.00m"
    bytes=$(stat -c %s "$SCRATCH/data/hx_$lv.bin")
    test_eq "kr/$lv: the daemon reads the bytes" \
        "$(head -c "$bytes" "$DM_DEV_DIR/kr/$lv" | sha256sum | cut -d' ' -f1)" "$(sha "$SCRATCH/data/hx_$lv.bin")"
    uspace_run_ok "deactivate kr/$lv" lvx lvchange -an kr/$lv
done
uspace_run_ok "lvx activates kr/z10 (the kernel finished its stripe size change)" lvx lvchange -ay kr/z10
test_eq "kr/z10: the daemon reads the bytes" "$(head -c $((8 * M)) "$DM_DEV_DIR/kr/z10" | sha256sum | cut -d' ' -f1)" \
    "$(sha "$SCRATCH/data/hx_z10.bin")"
uspace_run_ok "deactivate kr/z10" lvx lvchange -an kr/z10
uspace_run_ok "lvx activates kr/d5 (the kernel ran it last, LVM2's second command refused)" lvx lvchange -ay kr/d5
test_ok "... logged: a stripe removal ended, 4 of 5 legs" grep -q "kr/d5: a stripe removal ended: 4 of 5 legs" "$LOG"
second_command d5
uspace_run_ok "deactivate kr/d5" lvx lvchange -an kr/d5
test_eq "no resync or rebuild in the daemon's log" \
    "$(grep -c -e 'new RAID set' -e 'is rebuilt' -e 'resync' -e 'failed' "$LOG")" "0"
lvx daemon stop >/dev/null 2>&1
for _ in $(seq 100); do [[ -z $(uspace_daemon_pids) ]] && break; sleep 0.1; done
detach_all
done_testing
