#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0678-user-thin: thin pools and thin LVs in the user-space backend (the lvx daemon
# serves them over the pool's kernel-format metadata: daemon/target_thin.c), on loop
# devices, LVM2 reading the VG:
#   * lvcreate -T of a pool (active: the daemon formats the zeroed _tmeta), thin LVs
#     made with -V (create_thin through the daemon, or by the command itself when the
#     pool is not served), ext4 on a thin LV, data written and read back;
#   * the pool's Data% grows with the writes, a thin LV's Data% is its mapped share;
#   * a thin snapshot (lvcreate -s, create_snap) keeps the old data while the origin
#     is rewritten, and the snapshot's own writes leave the origin alone;
#   * deactivated and reactivated (vgchange): the data is still there, transaction ids
#     of LVM2's metadata and of the pool's agree, LVM2's vgck passes;
#   * discards unmap: blkdiscard of a thin LV lowers the pool's Data%;
#   * a SIGKILL of the daemon during writes leaves metadata thin_check accepts, and the
#     data flushed before it;
#   * the pool full: with --errorwhenfull n a write waits (LVXD_THIN_NO_SPACE_TIMEOUT)
#     then fails with EIO, and goes on when the pool is extended meanwhile; with y it
#     fails at once (ENOSPC); the data written before stays;
#   * lvremove of a thin LV (delete) frees its blocks; bad input refused.
# The kernel's side (the kernel and thin_check take what the daemon wrote, and the
# other way round) is t0707.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
own_mount_ns "$@"   # umount ends the filesystem before it is checked (lib.sh says why)

need_loop
need_cmd lvm
need_lvx
need_cmd mkfs.ext4
need_cmd thin_check
[[ -e /dev/fuse ]] || skip_all "no /dev/fuse"
plan_later

D1=$(make_loop 128M) && D2=$(make_loop 128M) || { _tap_result 1 "loop devices"; done_testing; }
DEVS="$D1,$D2"
# the daemon (started by the first activation below) waits 6 s for space, not 60
export LVXD_THIN_NO_SPACE_TIMEOUT=6
X() { lvx "$@" --devices "$DEVS"; }
mkdir -p "$SCRATCH/dev"
U() { DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user X "$@" --config 'global { activation = 1 }'; }
dev() { echo "$SCRATCH/dev/vg1/$1"; }
sum() { sha256sum <"$(dev "$1")" | cut -d' ' -f1; }
fsum() { sha256sum <"$1" | cut -d' ' -f1; }
# put LV SEEK COUNT: COUNT 64 KiB blocks of random data at 64 KiB block SEEK
put() { dd if=/dev/urandom of="$(dev "$1")" bs=64k seek="$2" count="$3" oflag=direct conv=notrunc status=none; }
pct() { U lvs --noheadings -o "$2" "vg1/$1" 2>/dev/null | tr -d ' '; }
# timed_put SEEK COUNT: raw 64 KiB blocks into thin1; $err dd's messages, $secs the time (a diagnostic)
timed_put() {
    local t0 t1
    t0=$(date +%s.%N)
    err=$(dd if=/dev/urandom of="$(dev thin1)" bs=64k seek="$1" count="$2" oflag=direct conv=notrunc status=none 2>&1)
    t1=$(date +%s.%N)
    secs=$(python3 -c "print($t1 - $t0)")
    diag "$err (${secs}s)"
}
# nlog TEXT: how many lines of the daemon's log hold TEXT
nlog() { grep -cF "$1" "$LVX_RUN_DIR/lvxd.log" 2>/dev/null; }
# thin_check of the pool's metadata as the PVs hold it (the pool inactive)
meta_ok() { LVM_SYSTEM_DIR=$SCRATCH/lvm "$LVX_ROOT/tests/tools/thin_meta_check.sh" vg1 pool "$SCRATCH"; }
tid() { X lvs --noheadings -o transaction_id vg1/pool 2>/dev/null | tr -d ' '; }

test_ok "vg1 on two PVs" sh -c \
    "'$LVX' pvcreate -q $D1 $D2 --devices $DEVS && '$LVX' vgcreate -q vg1 $D1 $D2 --devices $DEVS"

# ---------------------------------------------------------------- 1: pool, thin LV, ext4
out=$(U lvcreate -T -L 64m vg1/pool 2>&1)
test_eq "lvcreate -T -L 64m vg1/pool (user backend): exit 0" "$?" 0
diag "$out"
test_eq "... the new pool is active with Data% 0.00" "$(pct pool data_percent)" "0.00"
out=$(U lvcreate -V 256m -T vg1/pool -n thin1 2>&1)
test_eq "lvcreate -V 256m -T vg1/pool -n thin1 (create_thin through the daemon): exit 0" "$?" 0
diag "$out"
test_ok "... overprovisioning warned as LVM2 does" grep -q "exceeds the size of thin pool" <<<"$out"
test_eq "... transaction_id 1" "$(tid)" 1
test_ok "... /dev/vg1/thin1 reads as 256 MiB of zeroes" sh -c \
    "cmp -n 268435456 '$(dev thin1)' /dev/zero"
test_ok "mkfs.ext4 on thin1" mkfs.ext4 -q -F "$(dev thin1)"
mkdir -p "$SCRATCH/mnt"
test_ok "... mounted, 8 MiB of files written" sh -c \
    "mount '$(dev thin1)' '$SCRATCH/mnt' && head -c 8388608 /dev/urandom >'$SCRATCH/mnt/f1' &&
     cp '$SCRATCH/mnt/f1' '$SCRATCH/f1.copy' && umount '$SCRATCH/mnt'"
d1=$(pct pool data_percent)
diag "pool Data% after mkfs and 8 MiB: $d1"
test_ok "the pool's Data% grew above 12% (8 MiB of 64 MiB and the file system)" \
    python3 -c "import sys; sys.exit(not float('$d1') > 12.5)"
t1=$(pct thin1 data_percent)
test_ok "thin1's Data% is above 3% of its 256 MiB ($t1)" python3 -c "import sys; sys.exit(not float('$t1') > 3.1)"

# ---------------------------------------------------------------- 2: a thin snapshot
out=$(U lvcreate -s -n snap1 vg1/thin1 2>&1)
test_eq "lvcreate -s -n snap1 vg1/thin1 (create_snap): exit 0" "$?" 0
diag "$out"
test_eq "... transaction_id 2" "$(tid)" 2
test_ok "... snap1 activated with -K" U lvchange -ay -K vg1/snap1
s0=$(sum thin1)
test_eq "... snap1 reads as thin1" "$(sum snap1)" "$s0"
test_ok "thin1's file rewritten and a second file written through ext4" sh -c \
    "mount '$(dev thin1)' '$SCRATCH/mnt' && head -c 8388608 /dev/urandom >'$SCRATCH/mnt/f1' &&
     head -c 4194304 /dev/urandom >'$SCRATCH/mnt/f2' && cp '$SCRATCH/mnt/f1' '$SCRATCH/f1.new' &&
     umount '$SCRATCH/mnt'"
test_eq "... snap1 still reads as thin1 did" "$(sum snap1)" "$s0"
test_ok "... snap1's file system has the old file and not the new one" sh -c \
    "mount -o ro,noload '$(dev snap1)' '$SCRATCH/mnt' && cmp '$SCRATCH/mnt/f1' '$SCRATCH/f1.copy' && ! test -e '$SCRATCH/mnt/f2'; r=\$?; umount '$SCRATCH/mnt'; exit \$r"
s1=$(sum thin1)
put snap1 2000 10
test_eq "a raw write to snap1 leaves thin1 alone" "$(sum thin1)" "$s1"
ss=$(sum snap1)
test_ok "... and snap1 reads it back" test "$ss" != "$s0"

# ---------------------------------------------------------------- 3: deactivate, reactivate
test_ok "vgchange -an vg1" U vgchange -an vg1
test_ok "LVM2's vgck passes" lvm2 vgck vg1
test_ok "thin_check passes on the metadata the daemon wrote (snapshot, COW breaks)" meta_ok
test_ok "lvcreate -an -V 32m -T vg1/pool -n thin2 (the pool inactive: the command writes create_thin)" \
    U lvcreate -an -V 32m -T vg1/pool -n thin2
test_eq "... transaction_id 3" "$(tid)" 3
test_ok "... thin_check passes" meta_ok
test_ok "vgchange -ay vg1 (snap1 skipped), lvchange -ay -K snap1" sh -c \
    "DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user '$LVX' vgchange -ay vg1 --devices $DEVS --config 'global { activation = 1 }' >/dev/null &&
     DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user '$LVX' lvchange -ay -K vg1/snap1 --devices $DEVS --config 'global { activation = 1 }'"
test_eq "thin1 reads as before" "$(sum thin1)" "$s1"
test_eq "snap1 reads as before" "$(sum snap1)" "$ss"
test_ok "thin1's file system has the rewritten file" sh -c \
    "mount '$(dev thin1)' '$SCRATCH/mnt' && cmp '$SCRATCH/mnt/f1' '$SCRATCH/f1.new'; r=\$?; umount '$SCRATCH/mnt'; exit \$r"

# ---------------------------------------------------------------- 4: discard, remove
d2=$(pct pool data_percent)
test_ok "lvremove -f vg1/snap1 and vg1/thin2 (delete, through the daemon)" U lvremove -f vg1/snap1 vg1/thin2
test_eq "... transaction_id 5" "$(tid)" 5
test_ok "blkdiscard of thin1" blkdiscard "$(dev thin1)"
d3=$(pct pool data_percent)
diag "pool Data%: $d2 before, $d3 after the removal and the discard"
test_ok "... the pool's Data% dropped to 0.00 (every block freed)" test "$d3" = "0.00"
test_ok "... thin1 reads as zeroes" sh -c "cmp -n 268435456 '$(dev thin1)' /dev/zero"

# ---------------------------------------------------------------- 5: SIGKILL while writing
dd if=/dev/urandom of="$(dev thin1)" bs=64k count=256 oflag=direct conv=fsync,notrunc status=none
sk=$(head -c 16777216 "$(dev thin1)" | sha256sum | cut -d' ' -f1)
dd if=/dev/urandom of="$(dev thin1)" bs=64k seek=256 count=1024 oflag=direct conv=notrunc status=none 2>/dev/null &
writer=$!
sleep 1
sup=$(cat "$LVX_RUN_DIR/lvxd.pid" 2>/dev/null)
# shellcheck disable=SC2046
kill -KILL "$sup" $(cat "/proc/$sup/task/$sup/children" 2>/dev/null) 2>/dev/null   # supervisor and worker
wait "$writer" 2>/dev/null
sleep 0.5
test_ok "SIGKILL of the daemon during writes: thin_check passes on the metadata left" meta_ok
test_ok "... deactivated and reactivated (the daemon restarted)" sh -c \
    "DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user '$LVX' vgchange -an vg1 --devices $DEVS --config 'global { activation = 1 }' >/dev/null 2>&1;
     DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user '$LVX' vgchange -an vg1 --devices $DEVS --config 'global { activation = 1 }' >/dev/null &&
     DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user '$LVX' lvchange -ay vg1/thin1 --devices $DEVS --config 'global { activation = 1 }'"
test_eq "... the 16 MiB flushed before the kill read back" \
    "$(head -c 16777216 "$(dev thin1)" | sha256sum | cut -d' ' -f1)" "$sk"

# ---------------------------------------------------------------- 6: pool full
put thin1 0 512
sf=$(head -c 33554432 "$(dev thin1)" | sha256sum | cut -d' ' -f1)
w0=$(nlog 'out of data space, writes wait'); e0=$(nlog 'no data space after the timeout: EIO')
timed_put 1024 1024
test_ok "64 MiB more into the full pool (errorwhenfull n): the write fails with EIO" \
    grep -q "Input/output error" <<<"$err"
test_ok "... after waiting for space (lvxd.log: writes wait, then EIO at the timeout)" \
    test "$(nlog 'out of data space, writes wait')" -gt "$w0" -a "$(nlog 'no data space after the timeout: EIO')" -gt "$e0"
test_eq "... Data% 100.00" "$(pct pool data_percent)" "100.00"
test_eq "... the first 32 MiB read back as written" \
    "$(head -c 33554432 "$(dev thin1)" | sha256sum | cut -d' ' -f1)" "$sf"
head -c 4194304 /dev/urandom >"$SCRATCH/q"
dd if="$SCRATCH/q" of="$(dev thin1)" bs=64k seek=2048 oflag=direct conv=notrunc,fsync status=none &
writer=$!
sleep 1
test_ok "a write waiting for space, lvextend -L +16m vg1/pool meanwhile" U lvextend -q -L +16m vg1/pool
wait "$writer"
test_eq "... the waiting write went on into the new space: exit 0" "$?" 0
test_eq "... and reads back" "$(dd if="$(dev thin1)" bs=64k skip=2048 count=64 iflag=direct status=none | sha256sum | cut -d' ' -f1)" \
    "$(fsum "$SCRATCH/q")"
test_eq "... the first 32 MiB still read back as written" \
    "$(head -c 33554432 "$(dev thin1)" | sha256sum | cut -d' ' -f1)" "$sf"
test_ok "lvchange --errorwhenfull y vg1/pool, reactivated" sh -c \
    "'$LVX' lvchange --errorwhenfull y vg1/pool --devices $DEVS >/dev/null &&
     DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user '$LVX' vgchange -an vg1 --devices $DEVS --config 'global { activation = 1 }' >/dev/null &&
     DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user '$LVX' lvchange -ay vg1/thin1 --devices $DEVS --config 'global { activation = 1 }'"
w0=$(nlog 'out of data space, writes wait')
timed_put 3000 1024
test_ok "64 MiB into the pool with 12 MiB free, errorwhenfull y: the write fails with ENOSPC" \
    grep -q "No space left on device" <<<"$err"
test_eq "... without waiting for space (no new 'writes wait' in lvxd.log)" "$(nlog 'out of data space, writes wait')" "$w0"
test_eq "... the data written before stays" \
    "$(head -c 33554432 "$(dev thin1)" | sha256sum | cut -d' ' -f1)" "$sf"

# ---------------------------------------------------------------- 7: bad input
out=$(U lvcreate -V 16m -T vg1/nopool -n t2 2>&1)
test_eq "lvcreate -T of a pool that does not exist: exit 5" "$?" 5
diag "$out"
out=$(U lvcreate -V 16m -T vg1/thin1 -n t2 2>&1)
test_eq "lvcreate -T with a thin LV as the pool: exit 5" "$?" 5
diag "$out"
test_eq "... nothing made: transaction_id still 5" "$(tid)" 5

test_ok "deactivated" U vgchange -an vg1
test_ok "thin_check passes after discards and the pool full" meta_ok
test_ok "VG removed" X vgremove -f vg1
done_testing
