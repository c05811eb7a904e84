#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1008-user-thin-cow: COW snapshots of thin LVs (`lvcreate -s -L SIZE VG/THIN`) served
# by lvx's daemon (the `user` backend: the thin LV is the snapshot-origin, read and
# written through its pool; daemon/target_snapshot.c over target_thin.c's thin device):
#   - a snapshot of the active thin LV (half of it provisioned, half never written:
#     zeroes) is taken live; fio --verify=crc32c rewrites the whole thin LV; the
#     snapshot still equals the copy taken before, chunk by chunk; a second snapshot
#     with a 1 MiB COW fills up, is invalidated (EIO, snap_percent 100) and the origin
#     goes on; lvs reports the origin (lv_attr o, data_percent) and snap_percent;
#   - the pool passes thin_check, the exception store on the PVs parses as the kernel
#     reads it and every record holds the old chunk (tests/tools/cow_check.py);
#   - a discard of the origin (the snapshots copy first, the pool unmaps), then a
#     fresh snapshot, and SIGKILL of the daemon's worker during 16 writers' 4 KiB
#     writes (some into blocks the pool provisions): the supervisor's new worker
#     serves both again, the snapshot reads the origin as it was, the origin holds
#     every acknowledged write in its provisioned blocks (the others: the write or
#     zeroes, as a crash before the pool's commit leaves them), the store parses,
#     thin_check passes;
#   - lvconvert --merge of that snapshot restores the origin; lvextend of an active
#     snapshot (the set reloaded: the daemon's table grows); lvremove of a snapshot
#     and of the pool (COW snapshots, thin LV, pool) leave metadata LVM2's vgck takes.
# The kernel's side (LVM2 with dm reads what the daemon wrote and the other way
# round) is t0752.  The daemon is private to the test.  Costs about 30-60 s.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"
source "$LVX_ROOT/tests/tools/uspace-snap.sh"

VG=vgtcd$$
uspace_snap_env "$VG"
need_cmd thin_check
plan_later
ACK=$LVX_ROOT/tests/tools/ack_writes.py
MB=32
meta_ok() { "$LVX_ROOT/tests/tools/thin_meta_check.sh" "$VG" pool "$SCRATCH"; }
out_field() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" "$SCRATCH/out"; }
# chunks_differ A B: how many 4 KiB chunks of files A and B differ
chunks_differ() {
    "$PYTHON" -c '
import sys
a, b = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
print(sum(a[i:i + 4096] != b[i:i + 4096] for i in range(0, max(len(a), len(b)), 4096)))' "$1" "$2"
}
# snap_equals SNAP FILE WHAT: SNAP read through its device equals FILE, chunk by chunk
snap_equals() {
    lv_get "$1" "$SCRATCH/snap.now"
    local n
    n=$(chunks_differ "$SCRATCH/snap.now" "$2")
    test_eq "$3: $1 equals the copy taken before, every 4 KiB chunk ($n differ)" \
        "$(fsum "$SCRATCH/snap.now")" "$(fsum "$2")"
}
# store_ok SNAP BEFORE WHAT: SNAP's store on the PVs parses, every record holds the
# origin chunk of BEFORE, the kernel's view of SNAP equals the daemon's (2 checks)
store_ok() {
    lv_get thin "$SCRATCH/orig.now"
    lv_get "$1" "$SCRATCH/snap.now"
    cow_bytes "$1" "$SCRATCH/cow.bin"
    uspace_run_ok "$3: $1's store parses, every record holds the old origin chunk" \
        "$PYTHON" "$COWCHECK" "$SCRATCH/cow.bin" "$2"
    diag "$(cat "$SCRATCH/out")"
    uspace_run_ok "$3: $1 read as the kernel does equals what the daemon serves" \
        "$PYTHON" "$COWCHECK" "$SCRATCH/cow.bin" - "$SCRATCH/orig.now" "$SCRATCH/snap.now"
}

uspace_run_ok "vgcreate -s 1m" lvx vgcreate -s 1m "$VG" "${D[@]}"
uspace_run_ok "lvcreate -T -L 40m pool -V ${MB}m -n thin" \
    lvx lvcreate -T -L 40m "$VG/pool" -V ${MB}m -n thin
head -c 16M /dev/urandom >"$SCRATCH/A"
uspace_run_ok "16 MiB of random data into the thin LV (the rest never written)" \
    dd if="$SCRATCH/A" of="$DEV/thin" bs=1M oflag=direct status=none
lv_get thin "$SCRATCH/before"
test_eq "the thin LV reads A, then zeroes" "$(fsum "$SCRATCH/before")" \
    "$(cat "$SCRATCH/A" <(head -c $(((MB - 16) << 20)) /dev/zero) | sha256sum | cut -d' ' -f1)"

# ------------------------------------------------------------ snapshots of the live thin LV
rc=0
lvx lvcreate -s -L 36m -n snap "$VG/thin" >"$SCRATCH/o" 2>&1 || rc=$?
test_eq "lvcreate -s -L 36m -n snap of the active thin LV: exit 0" "$rc" 0
diag "$(cat "$SCRATCH/o")"
test_ok "... LVM2's created line" grep -qx '  Logical volume "snap" created.' "$SCRATCH/o"
test_ok "... snap active (its device is there)" test -b "$DEV/snap"
uspace_run_ok "lvcreate -s -L 1m -n small (a COW too small for the rewrite)" \
    lvx lvcreate -s -L 1m -n small "$VG/thin"
test_eq "thin: lv_attr o.....t, origin of 2 snapshots" \
    "$(field thin lv_attr | cut -c1,7) $(field thin snap_count)" "ot 2"
test_eq "snap: origin thin, snap_percent 0.00" "$(field snap origin) $(field snap snap_percent)" \
    "thin 0.00"
snap_equals snap "$SCRATCH/before" "at once"
d0=$(field thin data_percent)
test_eq "thin: data_percent from the daemon's thin device (16 of 32 MiB mapped)" "$d0" "50.00"

# ------------------------------------------------------------ fio rewrites the origin
uspace_run_ok "fio --verify=crc32c rewrites the whole thin LV (4k-256k random)" \
    fio --name=v --filename="$DEV/thin" --rw=randwrite --bsrange=4k-256k --direct=1 \
    --ioengine=libaio --iodepth=16 --verify=crc32c --do_verify=1 --verify_fatal=1 \
    --size=100% --randrepeat=0
test_eq "thin: data_percent 100.00 (every block provisioned)" "$(field thin data_percent)" "100.00"
snap_equals snap "$SCRATCH/before" "after fio"
sp=$(field snap snap_percent)
test_ok "snap: snap_percent grew (${sp})" test "${sp%%.*}" -gt 80
test_eq "small: invalidated when its COW filled (snap_percent 100.00, lv_attr I)" \
    "$(field small snap_percent) $(field small lv_attr | cut -c5)" "100.00 I"
test_ok "small: reads fail (EIO)" bash -c "! dd if='$DEV/small' of=/dev/null bs=4k count=1 iflag=direct status=none"
lv_get thin "$SCRATCH/C"
store_ok snap "$SCRATCH/before" "after fio"

uspace_run_ok "vgchange -an" lvx vgchange -an "$VG"
test_ok "thin_check passes on the pool" meta_ok
uspace_run_ok "lvchange -ay -y VG/snap (the set: the pool, thin, snap, small)" lvx lvchange -ay -y "$VG/snap"
test_ok "... thin active with its snapshot" test -b "$DEV/thin"
snap_equals snap "$SCRATCH/before" "after the reactivation"
test_eq "thin still reads what fio left" "$(lv_sum thin)" "$(fsum "$SCRATCH/C")"
uspace_run_ok "lvremove -f VG/small (the invalid snapshot)" lvx lvremove -f "$VG/small"
test_eq "thin: one snapshot left" "$(field thin snap_count)" "1"

# ------------------------------------------------------------ discard, new snapshot, SIGKILL
uspace_run_ok "blkdiscard of thin's second 8 MiB (snap copies first, the pool unmaps)" \
    blkdiscard -o $((8 << 20)) -l $((8 << 20)) "$DEV/thin"
test_eq "thin: data_percent 75.00 after the discard" "$(field thin data_percent)" "75.00"
snap_equals snap "$SCRATCH/before" "after the discard"
lv_get thin "$SCRATCH/C"
uspace_run_ok "lvcreate -s -L 36m -n s2 of the active thin LV" lvx lvcreate -s -L 36m -n s2 "$VG/thin"
snap_equals s2 "$SCRATCH/C" "s2 at once"
read -r sup worker <<<"$(uspace_daemon_pids)"
: >"$SCRATCH/acked"
"$PYTHON" "$ACK" write "$DEV/thin" $((MB << 20)) 16 "$SCRATCH/acked" one >"$SCRATCH/w" 2>&1 &
wpid=$!
for _ in $(seq 500); do [[ $(wc -l <"$SCRATCH/acked" 2>/dev/null) -gt 500 ]] && break; sleep 0.02; done
kill -9 "$worker"
at_kill=$(wc -l <"$SCRATCH/acked")
wait "$wpid"
diag "writers: $(cat "$SCRATCH/w")"
read -r sup2 worker2 <<<"$(uspace_daemon_pids)"
test_ok "SIGKILL of the worker during the writes: the supervisor ($sup) runs a new one" \
    test -n "$worker" -a "$sup2" = "$sup" -a "$worker2" != "$worker"
test_eq "... the writers never noticed" "$(sed -n 's/.*failed=\([0-9]*\).*/\1/p' "$SCRATCH/w")" 0
acked=$(wc -l <"$SCRATCH/acked")
test_ok "... writes acknowledged before the kill ($at_kill), not all of the $((MB * 256)): mid-run" \
    test "$at_kill" -gt 0 -a "$at_kill" -lt $((MB * 256))
snap_equals s2 "$SCRATCH/C" "after SIGKILL"
snap_equals snap "$SCRATCH/before" "after SIGKILL"
lv_get thin "$SCRATCH/after"
"$PYTHON" - "$SCRATCH/after" "$SCRATCH/acked" >"$SCRATCH/ackcheck" 2>&1 <<'EOF'
import hashlib, sys
data = open(sys.argv[1], "rb").read()
def pattern(i):
    h = hashlib.sha256(b"one:%d" % i).digest()
    return (h * (4096 // len(h)))[:4096]
kept = lost = bad = 0
for line in open(sys.argv[2]):
    i = int(line)
    got = data[i * 4096:(i + 1) * 4096]
    if got == pattern(i):
        kept += 1
    elif 2048 <= i < 4096 and got == bytes(4096):
        lost += 1        # a block the pool provisioned after its last commit
    else:
        bad += 1
print("kept=%d unprovisioned=%d bad=%d" % (kept, lost, bad))
sys.exit(1 if bad else 0)
EOF
test_eq "thin: every acknowledged write kept (blocks provisioned since the last commit: the write or zeroes)" "$?" 0
diag "$(cat "$SCRATCH/ackcheck")"
store_ok s2 "$SCRATCH/C" "after SIGKILL"
uspace_run_ok "a second pass of writes after the restart (with fsync)" sh -c \
    "'$PYTHON' '$ACK' write '$DEV/thin' $((MB << 20)) 16 '$SCRATCH/acked2' two && sync '$DEV/thin'"
uspace_run_ok "... all of them read back" "$PYTHON" "$ACK" check "$DEV/thin" "$SCRATCH/acked2" two
snap_equals s2 "$SCRATCH/C" "after the second pass"
lv_get thin "$SCRATCH/D"
uspace_run_ok "vgchange -an" lvx vgchange -an "$VG"
test_ok "thin_check passes on the pool after the SIGKILL" meta_ok
store_ok_inactive() {
    cow_bytes s2 "$SCRATCH/cow.bin"
    uspace_run_ok "s2's store parses after the deactivation" "$PYTHON" "$COWCHECK" \
        "$SCRATCH/cow.bin" "$SCRATCH/C" "$SCRATCH/D" "$SCRATCH/C"
}
store_ok_inactive

# ------------------------------------------------------------ merge, removal
uspace_run_ok "lvchange -ay VG/thin" lvx lvchange -ay "$VG/thin"
rc=0
lvx lvconvert --merge "$VG/s2" >"$SCRATCH/o" 2>&1 || rc=$?
test_eq "lvconvert --merge VG/s2: exit 0" "$rc" 0
diag "$(cat "$SCRATCH/o")"
test_ok "... s2 is gone" bash -c "! lvx lvs '$VG/s2' >/dev/null 2>&1"
test_eq "thin reads what s2 held (the origin restored)" "$(lv_sum thin)" "$(fsum "$SCRATCH/C")"
snap_equals snap "$SCRATCH/before" "after the merge of s2"
uspace_run_ok "vgchange -an" lvx vgchange -an "$VG"
test_ok "thin_check passes after the merge" meta_ok
test_ok "LVM2's vgck passes" lvm2 vgck "$VG"
uspace_run_ok "vgchange -ay" lvx vgchange -ay "$VG"
lv_get thin "$SCRATCH/E"
uspace_run_ok "lvcreate -s -L 4m -n s3, 2 MiB written to thin" sh -c \
    "$LVX lvcreate -s -L 4m -n s3 $VG/thin && dd if=/dev/urandom of=$DEV/thin bs=1M count=2 oflag=direct status=none"
sp0=$(field s3 snap_percent)
uspace_run_ok "lvextend -L +4m VG/s3 (active: thin and its snapshots reloaded)" lvx lvextend -L +4m "$VG/s3"
sp1=$(field s3 snap_percent)
test_ok "s3: snap_percent halved by the extension ($sp0 -> $sp1)" \
    "$PYTHON" -c "import sys; a, b = float('$sp0'), float('$sp1'); sys.exit(not (a > 40 and abs(2 * b - a) < 2))"
snap_equals s3 "$SCRATCH/E" "after lvextend"
lvx lvremove -f "$VG/pool" >"$SCRATCH/o" 2>&1
rc=$?
test_eq "lvremove -f VG/pool of the active set: snap, thin, pool (LVM2's order)" \
    "$rc $(sed -n 's/^  Logical volume "\(.*\)" successfully removed.*/\1/p' "$SCRATCH/o" | xargs)" \
    "0 snap s3 thin pool"
test_ok "LVM2's vgck passes" lvm2 vgck "$VG"
test_eq "nothing served any more" "$(uspace_leftovers | grep -c "$LVX_RUN_DIR/vol/$VG")" 0
uspace_run_ok "vgremove -f" lvx vgremove -f "$VG"
done_testing
