#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1021-user-snapshot-area-blocks: the daemon's commit of COW exceptions writes the
# logical blocks of the metadata area its records went into, not the whole area chunk
# (daemon/cow_shared.c write_area), and the store stays the kernel's.  A 4k-chunk
# snapshot on its own PV (512-byte blocks), an origin on another:
#   - 64 origin writes of 4 KiB, one at a time, each to a chunk of its own (each
#     copy commits alone): the COW PV takes 9 sectors per copy (the 4 KiB chunk and
#     one 512-byte block of the area; a whole-area commit takes 16), counted in
#     /sys/block/loopN/stat; the daemon logs 64 area writes of 512 bytes;
#   - 16 concurrent writers of 4 KiB at random places until 700 chunks are recorded
#     (the records fill two metadata areas and go on in a third: the full areas are
#     written whole, the next one zeroed first): the store on the PV parses as the
#     kernel reads it, one record per chunk written, every record's COW chunk holding
#     the old origin chunk, the snapshot reads the origin as it was;
#   - after a deactivation and activation (the store loaded from the PV) the snapshot
#     still reads the old origin and the kernel's view of it equals the daemon's.
# The daemon is private to the test.  Costs about 10-20 s.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"
source "$LVX_ROOT/tests/tools/uspace-snap.sh"

VG=vgsab$$
uspace_snap_env "$VG"
MB=16
ACK=$LVX_ROOT/tests/tools/ack_writes.py

out_field() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" "$SCRATCH/out"; }
# sectors written to loop device $1 so far (/sys/block/loopN/stat field 7)
wsect() { awk '{print $7}' "/sys/block/${1#/dev/}/stat"; }

for d in "${D[@]}"; do
    [[ $(blockdev --getss "$d") == 512 ]] || skip_all "$d has blocks of $(blockdev --getss "$d") bytes"
done
head -c ${MB}M /dev/urandom >"$SCRATCH/A"
sumA=$(fsum "$SCRATCH/A")
head -c 4096 /dev/urandom >"$SCRATCH/B"
uspace_run_ok "vgcreate" lvx vgcreate "$VG" "${D[@]}"
uspace_run_ok "lvcreate orig (${MB}m on the first PV)" lvx lvcreate -n orig -L ${MB}m "$VG" "${D[0]}"
uspace_run_ok "pattern A written to the origin" \
    dd if="$SCRATCH/A" of="$DEV/orig" bs=1M oflag=direct status=none
uspace_run_ok "origin deactivated" lvx lvchange -an "$VG/orig"
uspace_run_ok "lvcreate -s -c 4k -L 8m -n s1 (COW on the second PV)" \
    lvx lvcreate -s -c 4k -L 8m -n s1 "$VG/orig" "${D[1]}"
uspace_run_ok "the set activated" lvx lvchange -ay "$VG/orig"
test_eq "s1 reads pattern A" "$(lv_sum s1)" "$sumA"

# ------------------------------------------------------------ one copy at a time
N=64
w0=$(wsect "${D[1]}")
for ((i = 0; i < N; i++)); do     # chunks 0, 7, 14, ...: one of its own each time
    dd if="$SCRATCH/B" of="$DEV/orig" bs=4k seek=$((i * 7)) count=1 oflag=direct \
        conv=notrunc status=none || break
done
w1=$(wsect "${D[1]}")
test_eq "$N single 4 KiB origin writes: the COW PV took 9 sectors per copy (chunk + one area block)" \
    "$((w1 - w0))" $((N * 9))
diag "COW PV sectors written: $((w1 - w0)) for $N copies (whole-area commits: $((N * 16)))"
test_eq "s1 reads pattern A" "$(lv_sum s1)" "$sumA"

uspace_run_ok "the set deactivated (the store's counts logged)" lvx lvchange -an "$VG/orig"
line=$(grep "snapshot $VG/s1: .* records in" "$LVX_RUN_DIR/lvxd.log" | tail -1)
diag "daemon: ${line#*] }"
n_area=$(sed -n 's/.* \([0-9]*\) metadata area writes.*/\1/p' <<<"$line")
n_bytes=$(sed -n 's/.* metadata area writes (\([0-9]*\) bytes).*/\1/p' <<<"$line")
test_eq "the daemon logged $N area writes" "${n_area:-none}" "$N"
test_eq "... of $((N * 512)) bytes (one 512-byte block each)" "${n_bytes:-none}" $((N * 512))
uspace_run_ok "the set activated again" lvx lvchange -ay "$VG/orig"

# ------------------------------------------------------------ concurrent copies
# 16 writers, every 4 KiB block of the first 2800 KiB once in random order: 700 records
# (the 64 chunks above among them: chunk 441 is the last)
"$PYTHON" "$ACK" write "$DEV/orig" $((700 << 12)) 16 "$SCRATCH/acked" one >"$SCRATCH/w" 2>&1
test_eq "16 concurrent writers over 700 chunks ($(cat "$SCRATCH/w"))" \
    "$(sed -n 's/.*failed=\([0-9]*\).*/\1/p' "$SCRATCH/w")" 0
want=700
test_eq "s1 reads pattern A" "$(lv_sum s1)" "$sumA"
lv_get orig "$SCRATCH/orig.now"
lv_get s1 "$SCRATCH/snap.now"
cow_bytes s1 "$SCRATCH/cow.bin"
uspace_run_ok "the store parses as the kernel reads it, every record holds the old origin chunk" \
    "$PYTHON" "$COWCHECK" "$SCRATCH/cow.bin" "$SCRATCH/A"
diag "$(cat "$SCRATCH/out")"
test_eq "... one record for each chunk written ($want)" "$(out_field records)" "$want"
test_eq "... in three metadata areas (256 records each)" "$(out_field areas)" 3
test_eq "... no origin chunk recorded twice" "$(out_field olds)" "$want"

# ------------------------------------------------------------ the store loaded again
uspace_run_ok "the set deactivated" lvx lvchange -an "$VG/orig"
uspace_run_ok "the set activated (the store read from the PV)" lvx lvchange -ay "$VG/orig"
test_eq "s1 reads pattern A" "$(lv_sum s1)" "$sumA"
test_eq "the origin reads what was written" "$(lv_sum orig)" "$(fsum "$SCRATCH/orig.now")"
lv_get s1 "$SCRATCH/snap.now"
uspace_run_ok "s1 read as the kernel does equals what the daemon serves" \
    "$PYTHON" "$COWCHECK" "$SCRATCH/cow.bin" - "$SCRATCH/orig.now" "$SCRATCH/snap.now"

uspace_run_ok "vgremove -f" lvx vgremove -f "$VG"
done_testing
