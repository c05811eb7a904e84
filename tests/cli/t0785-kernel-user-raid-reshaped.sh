#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0785-kernel-user-raid-reshaped: RAID LVs that LVM2 and the kernel reshaped, moved to
# lvx's user-space daemon and back (docs/reshape-user.md §5 step 1):
#   1. guest (tests/kernel/user-raid-reshaped.sh, phase 1): LVM2 makes raid5 kr/r5
#      (-i3) and gives it a fourth stripe (the kernel moves the data to offset 0, the
#      reshape space behind it), raid5 kr/r5b gets another stripe size (the data moved
#      into the reshape space: offset 2048); both written after the reshape;
#   2. host: lvx's daemon serves both (the data offsets from the superblocks), reads
#      the kernel's bytes, writes its own, deactivates cleanly; the superblocks keep the
#      kernel's offsets, array size and geometry (events raised); `sectors` becomes each
#      image's data (8192) as dm-raid writes it at its next use (md's end of the
#      reshape left 24576 and 0: with 0 dm-raid refuses r5b, "Invalid rdev size");
#   3. guest (phase 2): the kernel takes both in sync at once (r5b too, which it
#      refuses without the daemon's use), reads the daemon's bytes, a --syncaction
#      check finds no mismatch.
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
detach_all

# ---- 1. LVM2 and the kernel reshape
echo 1 >"$SCRATCH/data/phase"
KERNEL_GUEST_MORE=1 kernel_guest_test user-raid-reshaped.sh 5 64M 900 --disk-dir "$DISKS" --reuse-disks \
    --put "$SCRATCH/data:/t/data"
cp "$KERNEL_OUT"/ka_*.bin "$KERNEL_OUT/rec/offsets" "$SCRATCH/data/" 2>/dev/null
[[ -n ${LVX_GUEST_KEEP:-} ]] && { rm -rf "$LVX_GUEST_KEEP"; cp -r "$KERNEL_OUT" "$LVX_GUEST_KEEP"; }

# ---- 2. lvx's daemon serves them
attach_all
uspace_env "$SCRATCH/us" "${DEVS[@]}"
lvm_sandbox "${DEVS[@]}"
: >"$LOG"
# the dm-raid superblock fields the daemon must keep (all but events), per rmeta
sbs() {
    local lv i f
    for lv in r5 r5b; do
        for ((i = 0; i < $1; i++)); do
            report "${lv}_rmeta_$i"
            for f in devices position level layout stripe array_sectors data_offset \
                new_data_offset flags reshape bm_sync_size; do
                printf '%s ' "$f=$(sb_field "${lv}_rmeta_$i" $f)"
            done
            echo
        done
        set -- 4
    done
}
sbs 5 >"$SCRATCH/sb.kernel"
diag "the kernel's superblocks: $(cat "$SCRATCH/sb.kernel")"
uspace_run_ok "lvx activates kr (reshaped by LVM2 and the kernel)" lvx vgchange -ay kr
for lv in r5 r5b; do
    test_eq "kr/$lv: the daemon reads the kernel's bytes" "$(lv_sha "$DM_DEV_DIR/kr/$lv")" "$(sha "$SCRATCH/data/ka_$lv.bin")"
    head -c "$(stat -c %s "$SCRATCH/data/ka_$lv.bin")" /dev/urandom >"$SCRATCH/data/hx_$lv.bin"
    uspace_run_ok "kr/$lv: new data written through the daemon" dd if="$SCRATCH/data/hx_$lv.bin" \
        of="$DM_DEV_DIR/kr/$lv" bs=1M oflag=direct conv=fsync status=none
    test_eq "kr/$lv reads them back" "$(lv_sha "$DM_DEV_DIR/kr/$lv")" "$(sha "$SCRATCH/data/hx_$lv.bin")"
done
test_eq "no resync or rebuild in the daemon's log" \
    "$(grep -c -e 'new RAID set' -e 'is rebuilt' -e 'resync' -e 'failed' "$LOG")" "0"
uspace_run_ok "deactivate kr" lvx vgchange -an kr
sbs 5 >"$SCRATCH/sb.daemon"
test_eq "the superblocks keep the kernel's fields (offsets, array size, geometry)" \
    "$(diff "$SCRATCH/sb.kernel" "$SCRATCH/sb.daemon")" ""
# md's end of a reshape leaves `sectors` at 24576 (r5) and 0 (r5b: dm-raid then refuses
# it, "Invalid rdev size"); dm-raid's next use writes each image's data, 8192
test_eq "the daemon writes sectors 8192 in every superblock (dm-raid's own after its next use)" \
    "$(for lv in r5 r5b; do for i in 0 1 2 3 4; do [[ $lv$i == r5b4 ]] || sb_field ${lv}_rmeta_$i sectors; done; done | sort -u | xargs)" "8192"
lvx daemon stop >/dev/null 2>&1
for _ in $(seq 100); do [[ -z $(uspace_daemon_pids) ]] && break; sleep 0.1; done
detach_all

# ---- 3. the kernel takes them back
echo 2 >"$SCRATCH/data/phase"
KERNEL_GUEST_MORE=1 kernel_guest_test user-raid-reshaped.sh 5 64M 900 --disk-dir "$DISKS" --reuse-disks \
    --put "$SCRATCH/data:/t/data"
attach_all
lvm_sandbox "${DEVS[@]}"
sbs 5 >"$SCRATCH/sb.kernel2"
diag "the kernel's superblocks after its second use: $(cat "$SCRATCH/sb.kernel2")"
detach_all
done_testing
