#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1007-user-snapshot-kill-commit: crash safety of the daemon's group commit of COW
# exceptions (daemon/cow_shared.c: data and metadata areas written with FUA, one area
# write per batch).  16 threads write every 4 KiB block of a 48 MiB origin once, in
# random order (tests/tools/ack_writes.py, each acknowledged write logged), into a
# fresh 4k-chunk snapshot; the daemon is SIGKILLed while they run (copies and batches
# in flight).  After the restart:
#   - the snapshot still reads exactly the origin as it was (every chunk: copied, or
#     still on the origin untouched), the store on the PVs parses as the kernel reads
#     it, each record's COW chunk holds the old origin chunk, the kernel's view of the
#     store equals what the daemon serves;
#   - the origin holds every acknowledged write;
#   - a second pass of writes after the restart appends to the store consistently,
#     and the daemon's count of the store's commits (logged when the set is
#     deactivated) shows no flush of the COW PVs and at most one area write per record.
# The daemon is private to the test.  Costs about 30-60 s.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"
source "$LVX_ROOT/tests/tools/uspace-snap.sh"

VG=vgskc$$
uspace_snap_env "$VG"
MB=48
ACK=$LVX_ROOT/tests/tools/ack_writes.py

out_field() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" "$SCRATCH/out"; }
# snap_exact WHAT: s1 reads A byte for byte; the differing 4 KiB chunks counted in diag
snap_exact() {
    lv_get s1 "$SCRATCH/snap.now"
    diag "$1: chunks of s1 differing from A: $("$PYTHON" -c '
import sys
a, b = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
print(sum(a[i:i + 4096] != b[i:i + 4096] for i in range(0, max(len(a), len(b)), 4096)))' \
        "$SCRATCH/A" "$SCRATCH/snap.now")"
    test_eq "$1: s1 reads the origin as it was, every chunk" "$(fsum "$SCRATCH/snap.now")" "$sumA"
}
# store_ok WHAT: the store parses, every record holds A's chunk, no chunk twice, the
# kernel's view equals the daemon's (3 checks)
store_ok() {
    lv_get orig "$SCRATCH/orig.now"
    cow_bytes s1 "$SCRATCH/cow.bin"
    uspace_run_ok "$1: the store parses, every record holds the old origin chunk" \
        "$PYTHON" "$COWCHECK" "$SCRATCH/cow.bin" "$SCRATCH/A"
    diag "$(cat "$SCRATCH/out")"
    test_eq "$1: no origin chunk recorded twice" "$(out_field olds)" "$(out_field records)"
    uspace_run_ok "$1: s1 read as the kernel does equals what the daemon serves" \
        "$PYTHON" "$COWCHECK" "$SCRATCH/cow.bin" - "$SCRATCH/orig.now" "$SCRATCH/snap.now"
}

head -c ${MB}M /dev/urandom >"$SCRATCH/A"
sumA=$(fsum "$SCRATCH/A")
uspace_run_ok "vgcreate" lvx vgcreate "$VG" "${D[@]}"
uspace_run_ok "lvcreate orig (${MB}m on the first PV)" lvx lvcreate -n orig -L ${MB}m "$VG" "${D[0]}"
uspace_run_ok "pattern A written to the origin" \
    dd if="$SCRATCH/A" of="$DEV/orig" bs=1M oflag=direct status=none
uspace_run_ok "origin deactivated" lvx lvchange -an "$VG/orig"
uspace_run_ok "lvcreate -s -c 4k -n s1 (COW on the second PV)" \
    lvx lvcreate -s -c 4k -L 44m -n s1 "$VG/orig" "${D[1]}"
uspace_run_ok "the set activated" lvx lvchange -ay "$VG/orig"
test_eq "s1 reads pattern A" "$(lv_sum s1)" "$sumA"

# ------------------------------------------------------------ SIGKILL during writes
# the first 40 MiB: s1's COW (44 MiB) holds them all with its metadata areas
kill_during_copies s1 0.3 "$PYTHON" "$ACK" write "$DEV/orig" $((40 << 20)) 16 \
    "$SCRATCH/acked1" one
acked=$(wc -l <"$SCRATCH/acked1")
test_ok "writes acknowledged before the kill ($acked)" test "$acked" -gt 0
test_ok "... and not all of the $((40 * 256)) blocks: the kill came mid-run" \
    test "$acked" -lt $((40 * 256))
snap_exact "after SIGKILL"
"$PYTHON" "$ACK" check "$DEV/orig" "$SCRATCH/acked1" one >"$SCRATCH/check" 2>&1
test_eq "after SIGKILL: the origin holds every acknowledged write ($(cat "$SCRATCH/check"))" \
    "$?" 0
store_ok "after SIGKILL"
records=$(out_field records)
test_ok "... records committed before the kill (${records:-none}), one per acknowledged write at least" \
    test "${records:-0}" -ge "$acked"

# ------------------------------------------------------------ after the restart
"$PYTHON" "$ACK" write "$DEV/orig" $((40 << 20)) 16 "$SCRATCH/acked2" two >"$SCRATCH/w2" 2>&1
test_eq "after the restart: a second pass of 16 writers ($(cat "$SCRATCH/w2"))" \
    "$(sed -n 's/.*failed=\([0-9]*\).*/\1/p' "$SCRATCH/w2")" 0
"$PYTHON" "$ACK" check "$DEV/orig" "$SCRATCH/acked2" two >"$SCRATCH/check" 2>&1
test_eq "the origin holds every write of the second pass ($(cat "$SCRATCH/check"))" "$?" 0
snap_exact "after the second pass"
store_ok "after the second pass"
test_eq "... one record for each chunk written" "$(out_field records)" $((40 * 256))

uspace_run_ok "the set deactivated (the store's counts logged)" lvx lvchange -an "$VG/orig"
line=$(grep "snapshot $VG/s1: .* records in" "$LVX_RUN_DIR/lvxd.log" | tail -1)
diag "daemon: ${line#*] }"
n_rec=$(sed -n 's/.*: \([0-9]*\) records in.*/\1/p' <<<"$line")
n_area=$(sed -n 's/.* \([0-9]*\) metadata area writes.*/\1/p' <<<"$line")
n_flush=$(sed -n 's/.* \([0-9]*\) COW flushes.*/\1/p' <<<"$line")
test_ok "the second pass committed its records (${n_rec:-none})" test "${n_rec:-0}" -gt 0
test_eq "... without a flush of the COW PVs" "${n_flush:-none}" 0
test_ok "... with at most one metadata area write per record (${n_area:-none})" \
    test "${n_area:-999999999}" -le "${n_rec:-0}"

uspace_run_ok "vgremove -f" lvx vgremove -f "$VG"
done_testing
