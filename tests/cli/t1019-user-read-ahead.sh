#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1019-user-read-ahead: the queue settings the lvx daemon gives the loop device of an
# LV it serves (issue 20, buffered reads), on four loop devices:
#   - read-ahead (queue/read_ahead_kb, `blockdev --getra`, lvs lv_kernel_read_ahead):
#     16 MiB at least (a linear LV, a striped LV with a 1 MiB full stripe), twice a
#     full stripe above that (-i 4 -I 4m: 32 MiB);
#   - largest request (queue/max_sectors_kb) 1 MiB, the daemon's FUSE max_read: a
#     buffered sequential read of the LV reaches the loop device as requests of exactly
#     1 MiB at most and about 1 MiB on average (sectors / requests of its stat; a few
#     are shorter where udev's probe left pages cached), not the kernel's default 1280
#     KiB, which the kernel splits into a 1 MiB and a 256 KiB FUSE request;
#   - an LV's own read-ahead (lvcreate -r N, lvchange -r N|none|auto of the active LV)
#     instead, as LVM2 sets its dm device's;
#   - deactivated: the loop device gets the kernel's defaults back (128 KiB read-ahead,
#     max_sectors_kb = min(max_hw_sectors_kb, 1280)) for its next user.
# The daemon is private to the test.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

VG=vgra$$
uspace_test_loops "$VG" 4 128M
DEV=$DM_DEV_DIR/$VG

loop_of() { [[ -b $DEV/$1 ]] && basename "$(readlink -f "$DEV/$1")"; }
q() { cat "/sys/block/$1/queue/$2"; }

uspace_run_ok "vgcreate" lvx vgcreate "$VG" "${DEVS[@]}"
uspace_run_ok "lvcreate linear (64m)" lvx lvcreate -n lin -L 64m "$VG"
uspace_run_ok "lvcreate -i 4 -I 256k (64m)" lvx lvcreate -i 4 -I 256k -n s256 -L 64m "$VG"
uspace_run_ok "lvcreate -i 4 -I 4m (64m)" lvx lvcreate -i 4 -I 4m -n s4m -L 64m "$VG"
L=$(loop_of lin)
S=$(loop_of s256)
W=$(loop_of s4m)
test_ok "the LVs are served by loop devices" test -n "$L" -a -n "$S" -a -n "$W"

test_eq "linear: read_ahead_kb 16384" "$(q "$L" read_ahead_kb)" 16384
test_eq "linear: blockdev --getra (sectors)" "$(blockdev --getra "$DEV/lin")" 32768
test_eq "linear: lvs lv_kernel_read_ahead" \
    "$(lvx lvs --noheadings --units k -o lv_kernel_read_ahead "$VG/lin" | xargs)" "16384.00k"
test_eq "striped -I 256k (full stripe 1 MiB): read_ahead_kb 16384" "$(q "$S" read_ahead_kb)" 16384
test_eq "striped -I 4m (full stripe 16 MiB): read_ahead_kb twice that" \
    "$(q "$W" read_ahead_kb)" 32768
for lv in lin s256 s4m; do
    test_eq "$lv: max_sectors_kb 1024 (the FUSE max_read)" "$(q "$(loop_of $lv)" max_sectors_kb)" 1024
done

# a buffered read of the whole striped LV: the block device's page cache, read-ahead
# of the loop device's bdi; requests of 1 MiB (the LV is a multiple of it)
read -r r0 _ s0 _ <"/sys/block/$S/stat"
uspace_run_ok "buffered read of s256" dd if="$DEV/s256" of=/dev/null bs=1M status=none
read -r r1 _ s1 _ <"/sys/block/$S/stat"
reqs=$((r1 - r0)) sectors=$((s1 - s0))
test_eq "s256: the whole LV read (sectors)" "$sectors" $((64 * 2048))
avg_kb=$((sectors / 2 / (reqs ? reqs : 1)))
test_ok "s256: $reqs read requests, $avg_kb KiB on average: 900-1024 KiB" \
    test "$avg_kb" -gt 900 -a "$avg_kb" -le 1024

# the LV's own read-ahead (lvcreate/lvchange -r), as LVM2 sets it on its dm device
uspace_run_ok "lvcreate -r 256 (fixed read-ahead)" lvx lvcreate -r 256 -n fix -L 16m "$VG"
F=$(loop_of fix)
test_eq "-r 256: blockdev --getra 256" "$(blockdev --getra "$DEV/fix")" 256
test_eq "-r 256: lvs lv_read_ahead and lv_kernel_read_ahead" \
    "$(lvx lvs --noheadings --units s -o lv_read_ahead,lv_kernel_read_ahead "$VG/fix" | xargs)" "256S 256S"
uspace_run_ok "lvchange -r 1024 of the active LV" lvx lvchange -r 1024 "$VG/fix"
test_eq "lvchange -r 1024: blockdev --getra 1024" "$(blockdev --getra "$DEV/fix")" 1024
uspace_run_ok "lvchange -r none" lvx lvchange -r none "$VG/fix"
test_eq "lvchange -r none: blockdev --getra 0" "$(blockdev --getra "$DEV/fix")" 0
uspace_run_ok "lvchange -r auto" lvx lvchange -r auto "$VG/fix"
test_eq "lvchange -r auto: 16 MiB again" "$(blockdev --getra "$DEV/fix")" 32768
uspace_run_ok "lvchange -r 512 of s4m (auto was larger)" lvx lvchange -r 512 "$VG/s4m"
test_eq "s4m: 512 sectors" "$(q "$W" read_ahead_kb)" 256

uspace_run_ok "vgchange -an" lvx vgchange -an "$VG"
for b in "$L" "$S" "$W" "$F"; do
    if [[ -s /sys/block/$b/loop/backing_file ]]; then
        test_ok "$b: taken by another user meanwhile (not checked)" true
        continue
    fi
    test_eq "$b after deactivation: read_ahead_kb back to 128" "$(q "$b" read_ahead_kb)" 128
    hw=$(q "$b" max_hw_sectors_kb)
    test_eq "$b after deactivation: max_sectors_kb back to the kernel's default" \
        "$(q "$b" max_sectors_kb)" $((hw < 1280 ? hw : 1280))
done
uspace_stop_daemon "$VG"
test_eq "nothing left behind" "" "$(uspace_leftovers)"
done_testing
