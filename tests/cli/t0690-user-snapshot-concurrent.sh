#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0690-user-snapshot-concurrent: a COW snapshot in the user-space backend under
# concurrent origin writes (the daemon copies chunks out concurrently and commits their
# records in groups: daemon/cow_shared.c), on two loop devices:
#   - fio with 4 jobs (iodepth 8, 4k..1m blocks, --verify) rewrites the whole origin
#     while the snapshot is read in a loop: every read of the snapshot, during and
#     after, is the old data byte for byte; the store on the PVs parses as the kernel
#     reads it, each record's COW chunk holds the old origin chunk, no origin chunk is
#     recorded twice, and the snapshot read as the kernel would equals what the daemon
#     serves;
#   - SIGKILL of the daemon during 4 jobs of origin writes into a new snapshot: the
#     restarted daemon serves it unchanged, the store on disk parses with every record
#     holding the old chunk, the kernel's view of it equals the daemon's; further
#     writes after the restart append to the store consistently;
#   - fio --verify on the snapshot itself while 3 jobs write the origin: the written
#     part reads back, the rest still the old data, the store consistent.
# The daemon is private to the test.  Costs about 30-60 s.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"
source "$LVX_ROOT/tests/tools/uspace-snap.sh"

VG=vgscc$$
uspace_snap_env "$VG"
MB=32

out_field() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" "$SCRATCH/out"; }
# store_ok LV BEFORE WHAT: the store parses, every record holds BEFORE's chunk, no
# origin chunk twice, the kernel's view equals the daemon's (3 checks)
store_ok() {
    lv_get orig "$SCRATCH/orig.now"
    lv_get "$1" "$SCRATCH/snap.now"
    cow_bytes "$1" "$SCRATCH/cow.bin"
    uspace_run_ok "$3: $1's store parses, every record holds the old origin chunk" \
        "$PYTHON" "$COWCHECK" "$SCRATCH/cow.bin" "$2"
    diag "$(cat "$SCRATCH/out")"
    test_eq "$3: no origin chunk recorded twice" "$(out_field olds)" "$(out_field records)"
    uspace_run_ok "$3: $1 read as the kernel does equals what the daemon serves" \
        "$PYTHON" "$COWCHECK" "$SCRATCH/cow.bin" - "$SCRATCH/orig.now" "$SCRATCH/snap.now"
}
# fio_jobs N OFFSET ARGS...: N jobs of 8 MiB regions from OFFSET (MiB) on the origin
fio_jobs() {
    local n=$1 off=$2
    shift 2
    fio --name=c --filename="$DEV/orig" --direct=1 --ioengine=libaio --iodepth=8 \
        --numjobs="$n" --size=8m --offset="${off}m" --offset_increment=8m --rw=randwrite \
        --bsrange=4k-1m --randrepeat=0 --group_reporting "$@"
}

head -c ${MB}M /dev/urandom >"$SCRATCH/A"
uspace_run_ok "vgcreate" lvx vgcreate "$VG" "${D[@]}"
uspace_run_ok "lvcreate orig (${MB}m on the first PV)" lvx lvcreate -n orig -L ${MB}m "$VG" "${D[0]}"
uspace_run_ok "pattern A written to the origin" \
    dd if="$SCRATCH/A" of="$DEV/orig" bs=1M oflag=direct status=none
uspace_run_ok "origin deactivated" lvx lvchange -an "$VG/orig"
uspace_run_ok "lvcreate -s -c 4k -n s1 (COW on the second PV)" \
    lvx lvcreate -s -c 4k -L 40m -n s1 "$VG/orig" "${D[1]}"
uspace_run_ok "the set activated" lvx lvchange -ay "$VG/orig"
sumA=$(fsum "$SCRATCH/A")
test_eq "s1 reads pattern A" "$(lv_sum s1)" "$sumA"

# ------------------------------------------------------------ 4 writers, readers
fio_jobs 4 0 --verify=crc32c --verify_fatal=1 >"$SCRATCH/fio.out" 2>&1 &
FIO=$!
: >"$SCRATCH/sums"
while kill -0 "$FIO" 2>/dev/null; do lv_sum s1 >>"$SCRATCH/sums"; done
wait "$FIO"
test_eq "fio: 4 jobs of origin writes, verified" "$?" 0
reads=$(wc -l <"$SCRATCH/sums")
test_ok "s1 read $reads times during the writes" test "$reads" -gt 0
test_eq "... every read pattern A" "$(sort -u "$SCRATCH/sums" | xargs)" "$sumA"
test_eq "after the writes: s1 reads pattern A" "$(lv_sum s1)" "$sumA"
test_ok "the origin differs from A now" test "$(lv_sum orig)" != "$sumA"
pct=$(field s1 snap_percent)
test_ok "s1: snap_percent grew with the copies ($pct)" \
    "$PYTHON" -c "import sys; sys.exit(not 50 < float('$pct') <= 100)"
store_ok s1 "$SCRATCH/A" "after the writes"
test_eq "... one record for each origin chunk" "$(out_field records)" $((MB * 256))

# ------------------------------------------------------------ SIGKILL during writes
uspace_run_ok "the set deactivated" lvx lvchange -an "$VG/orig"
uspace_run_ok "lvcreate -s -c 64k -n s2 (writes of 4k share chunks)" lvx lvcreate -s -c 64k -L 40m -n s2 "$VG/orig" "${D[1]}"
uspace_run_ok "the set with s1 and s2 activated" lvx lvchange -ay "$VG/orig"
lv_get orig "$SCRATCH/B"
sumB=$(fsum "$SCRATCH/B")
kill_during_copies s2 0.3 fio_jobs 4 0 --bsrange=4k-64k --time_based --runtime=30
test_eq "after SIGKILL: s2 reads the origin as it was when s2 was taken" "$(lv_sum s2)" "$sumB"
test_eq "after SIGKILL: s1 reads pattern A" "$(lv_sum s1)" "$sumA"
store_ok s2 "$SCRATCH/B" "after SIGKILL"
records=$(out_field records)
test_ok "... records written before the kill (${records:-none})" test "${records:-0}" -gt 0
fio_jobs 4 0 --verify=crc32c --verify_fatal=1 >"$SCRATCH/fio.out" 2>&1
test_eq "after the restart: 4 jobs of origin writes, verified" "$?" 0
test_eq "s2 still reads the origin as it was" "$(lv_sum s2)" "$sumB"
store_ok s2 "$SCRATCH/B" "after the restart"

# ------------------------------------------------------------ writes to the snapshot
fio_jobs 3 8 >/dev/null 2>&1 &
FIO=$!
uspace_run_ok "fio --verify on s2's first 8 MiB while 3 jobs write the origin" \
    fio --name=s --filename="$DEV/s2" --direct=1 --ioengine=libaio --iodepth=8 --size=8m \
    --rw=randwrite --bsrange=4k-1m --randrepeat=0 --verify=crc32c --verify_fatal=1
wait "$FIO"
test_eq "the origin writers ended well" "$?" 0
test_eq "s2 past 8 MiB still reads the old origin" \
    "$(dd if="$DEV/s2" bs=1M skip=8 iflag=direct status=none | sha256sum | cut -d' ' -f1)" \
    "$(tail -c +$((8 * 1048576 + 1)) "$SCRATCH/B" | sha256sum | cut -d' ' -f1)"
lv_get orig "$SCRATCH/orig.now"
lv_get s2 "$SCRATCH/snap.now"
cow_bytes s2 "$SCRATCH/cow.bin"
uspace_run_ok "s2 read as the kernel does equals what the daemon serves" \
    "$PYTHON" "$COWCHECK" "$SCRATCH/cow.bin" - "$SCRATCH/orig.now" "$SCRATCH/snap.now"
test_eq "... no origin chunk recorded twice" "$(out_field olds)" "$(out_field records)"
test_eq "s1 reads pattern A" "$(lv_sum s1)" "$sumA"

uspace_run_ok "vgremove -f" lvx vgremove -f "$VG"
test_eq "no loop device over the daemon's files" \
    "$(losetup -a 2>/dev/null | grep -cF "$LVX_RUN_DIR/vol/")" 0
done_testing
