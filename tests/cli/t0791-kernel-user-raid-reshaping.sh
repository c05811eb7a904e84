#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0791-kernel-user-raid-reshaping: RAID reshapes that LVM2 and the kernel started and
# left unfinished, served frozen by lvx's user-space daemon, then finished by the
# kernel (docs/reshape-user.md §5 step 3):
#   1. guest (tests/kernel/user-raid-reshaping.sh, phase 1): LVM2 starts raid5 -i3 ->
#      4 stripes (forward), raid6 -i3 -> 4 (forward), raid5 stripe size 64k -> 128k
#      (backward), throttled, and deactivates them once a position is recorded;
#   2. host: lvx's daemon serves them in both geometries (the moved side in the new,
#      the rest in the old), reports the reshape frozen, reads the kernel's bytes,
#      writes its own over each LV's old size, deactivates; the superblocks keep every
#      reshape field (events aside);
#   2b. host: the daemon, read-write (step 4), continues r5's reshape to its end and
#      writes the new space; r5's superblocks are md's finished state;
#   2c. host: the daemon makes raid5 u5, starts its reshape (lvconvert --stripes 4:
#      step 5's raidreshape) and is stopped mid-way: every superblock records one
#      position between the start and the end;
#   3. guest (phase 2): the kernel goes on from the recorded position to the end and
#      reads the daemon's bytes (r5: takes the daemon's finished array in sync, no
#      reshape, no resync; u5: finishes the reshape the daemon started).
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"
# shellcheck source=tests/tools/uspace-env.sh
source "$LVX_ROOT/tests/tools/uspace-env.sh"
# shellcheck source=tests/tools/guest-disks.sh
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
KERNEL_GUEST_MORE=1 kernel_guest_test user-raid-reshaping.sh 6 64M 900 --disk-dir "$DISKS" --reuse-disks \
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
sbs >"$SCRATCH/sb.kernel"
diag "the kernel's superblocks: $(cat "$SCRATCH/sb.kernel")"
test_eq "every superblock records a reshape in progress (flags 1 or 3, a position)" \
    "$(grep -E 'flags=[13] reshape=' "$SCRATCH/sb.kernel" | grep -c -v -e 'reshape=0 ' -e 'reshape=ffffffffffffffff ')" "15"
uspace_run_ok "lvx activates kr (three reshapes in progress)" lvx vgchange -ay kr
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
u5_synced() {
    for _ in $(seq 300); do
        [[ $("$LVX" lvs --noheadings -o sync_percent kr/u5 2>/dev/null | xargs) == 100.00 ]] && return 0
        sleep 0.2
    done
    return 1
}
test_ok "kr/u5 in sync (the daemon's initial sync)" u5_synced
head -c $((12 << 20)) /dev/urandom >"$SCRATCH/data/hx_u5.bin"
uspace_run_ok "kr/u5: 12 MiB written through the daemon" dd if="$SCRATCH/data/hx_u5.bin" \
    of="$DM_DEV_DIR/kr/u5" bs=1M oflag=direct conv=fsync status=none
uspace_run_ok "kr/u5 throttled (--maxrecoveryrate 256k)" lvx lvchange -q --maxrecoveryrate 256k kr/u5
: >"$LOG"
uspace_run_ok "lvx lvconvert --stripes 4 kr/u5 (the daemon starts the reshape)" \
    lvx lvconvert -y --stripes 4 kr/u5
u5_moving() {
    local a p
    for _ in $(seq 150); do
        read -r a p <<<"$("$LVX" lvs --noheadings -o raid_sync_action,sync_percent kr/u5 2>/dev/null)"
        [[ $a == reshape ]] && awk -v p="$p" 'BEGIN { exit !(p > 5 && p < 60) }' && return 0
        sleep 0.2
    done
    return 1
}
test_ok "kr/u5: the walk under way (lvs: reshape, 5 < sync_percent < 60)" u5_moving
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
lvx daemon stop >/dev/null 2>&1
for _ in $(seq 100); do [[ -z $(uspace_daemon_pids) ]] && break; sleep 0.1; done
detach_all

# ---- 3. the kernel finishes them (r5: takes the daemon's finished array)
echo 2 >"$SCRATCH/data/phase"
KERNEL_GUEST_MORE=1 kernel_guest_test user-raid-reshaping.sh 6 64M 900 --disk-dir "$DISKS" --reuse-disks \
    --put "$SCRATCH/data:/t/data"
attach_all
lvm_sandbox "${DEVS[@]}"
sbs >"$SCRATCH/sb.kernel2"
diag "the kernel's superblocks after the end: $(cat "$SCRATCH/sb.kernel2")"
test_eq "no superblock records a reshape after the kernel's end" \
    "$(grep -c 'reshape=ffffffffffffffff ' "$SCRATCH/sb.kernel2")" "20"
detach_all
done_testing
