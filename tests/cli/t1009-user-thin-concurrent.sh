#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1009-user-thin-concurrent: I/O to blocks a thin pool has already provisioned runs
# beside other such I/O in lvx's daemon (daemon/target_thin.c: the pool's rwlock read-held,
# the mapping found in the metadata's block cache), while provisioning, copies of shared
# blocks and commits still take the pool lock:
#   - two thin LVs of one pool, written whole, and a thin snapshot of the first: fio
#     --verify=crc32c rewrites all three at once (4k-128k random writes, 16 deep each:
#     the first writes into t1 and ts break the sharing under the lock, the rest go in
#     place beside each other); every LV reads back the same after a deactivation and
#     reactivation; the daemon's count shows requests served without the pool lock
#     (logged when the pool goes); thin_check passes;
#   - part of t2 discarded, then 16 writers into each of t1, t2 and ts (each 4 KiB block
#     once, tests/tools/ack_writes.py) and SIGKILL of the daemon (supervisor and worker)
#     mid-run: thin_check passes on the metadata as the crash left it; after the
#     restart every acknowledged write is there (the blocks re-provisioned after the
#     last commit in the discarded range: the write or zeroes), ts and t1 apart.
# The daemon is private to the test.  Costs about 30-90 s.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"
source "$LVX_ROOT/tests/tools/uspace-snap.sh"

VG=vgtcc$$
uspace_snap_env "$VG"
need_cmd thin_check
plan_later
ACK=$LVX_ROOT/tests/tools/ack_writes.py
MB=24
meta_ok() { "$LVX_ROOT/tests/tools/thin_meta_check.sh" "$VG" pool "$SCRATCH"; }
fast_count() {
    sed -n "s/.*thin pool $VG\/pool: \([0-9]*\) requests served beside each other, \([0-9]*\) under.*/\1 \2/p" \
        "$LVX_RUN_DIR/lvxd.log" | tail -1
}

uspace_run_ok "vgcreate -s 1m" lvx vgcreate -s 1m "$VG" "${D[@]}"
uspace_run_ok "lvcreate -T -L 120m pool -V ${MB}m -n t1" lvx lvcreate -T -L 120m "$VG/pool" -V ${MB}m -n t1
uspace_run_ok "lvcreate -V ${MB}m -T pool -n t2" lvx lvcreate -V ${MB}m -T "$VG/pool" -n t2
head -c ${MB}M /dev/urandom >"$SCRATCH/A"
head -c ${MB}M /dev/urandom >"$SCRATCH/B"
uspace_run_ok "t1 and t2 written whole (every block provisioned)" sh -c \
    "dd if='$SCRATCH/A' of='$DEV/t1' bs=1M oflag=direct status=none &&
     dd if='$SCRATCH/B' of='$DEV/t2' bs=1M oflag=direct status=none"
uspace_run_ok "lvcreate -s -n ts VG/t1 (thin snapshot), lvchange -ay -K" sh -c \
    "'$LVX' lvcreate -s -n ts '$VG/t1' >/dev/null && '$LVX' lvchange -ay -K '$VG/ts'"
test_eq "ts reads A" "$(lv_sum ts)" "$(fsum "$SCRATCH/A")"

# ------------------------------------------------------------ fio on three LVs at once
rc=0
fio --direct=1 --ioengine=libaio --iodepth=16 --rw=randwrite --bsrange=4k-128k \
    --verify=crc32c --do_verify=1 --verify_fatal=1 --size=100% --randrepeat=0 \
    --name=t1 --filename="$DEV/t1" --name=t2 --filename="$DEV/t2" \
    --name=ts --filename="$DEV/ts" >"$SCRATCH/fio.out" 2>&1 || rc=$?
test_eq "fio --verify=crc32c rewrites t1, t2 and ts at once, every block verified: exit 0" "$rc" 0
[[ $rc == 0 ]] || diag "$(tail -20 "$SCRATCH/fio.out")"
for lv in t1 t2 ts; do lv_get $lv "$SCRATCH/$lv.fio"; done
test_ok "... t1 no longer reads A, ts no longer equals t1" \
    test "$(fsum "$SCRATCH/t1.fio")" != "$(fsum "$SCRATCH/A")" -a \
    "$(fsum "$SCRATCH/t1.fio")" != "$(fsum "$SCRATCH/ts.fio")"
test_eq "pool: data_percent of 3 x ${MB} MiB in 120 MiB (every block of each LV its own)" \
    "$(field pool data_percent)" "60.00"
uspace_run_ok "vgchange -an (the pool committed, its counts logged)" lvx vgchange -an "$VG"
# the pool's last user logs the counts as it lets go, which can come after the
# command's answer (seen on a loaded machine): the line is waited for, 15 s at most
for _ in $(seq 150); do [[ -n $(fast_count) ]] && break; sleep 0.1; done
read -r nfast nlocked <<<"$(fast_count)"
diag "requests: ${nfast:-?} beside each other, ${nlocked:-?} under the pool lock"
test_ok "requests to provisioned blocks were served without the pool lock (${nfast:-none}), more than under it" \
    test "${nfast:-0}" -gt "${nlocked:-0}"
test_ok "... and the first writes into shared blocks under it (${nlocked:-none})" \
    test "${nlocked:-0}" -gt 0
test_ok "thin_check passes on the pool" meta_ok
uspace_run_ok "vgchange -ay, lvchange -ay -K VG/ts" sh -c \
    "'$LVX' vgchange -ay '$VG' >/dev/null && '$LVX' lvchange -ay -K '$VG/ts'"
for lv in t1 t2 ts; do
    test_eq "$lv reads back what fio left after the reactivation" "$(lv_sum $lv)" \
        "$(fsum "$SCRATCH/$lv.fio")"
done

# ------------------------------------------------------------ SIGKILL mid-write
uspace_run_ok "blkdiscard of t2's first 4 MiB (unmapped: the writes provision them)" \
    blkdiscard -o 0 -l $((4 << 20)) "$DEV/t2"
uspace_run_ok "vgchange -an, vgchange -ay (the discard committed)" sh -c \
    "'$LVX' vgchange -an '$VG' >/dev/null && '$LVX' vgchange -ay '$VG' >/dev/null &&
     '$LVX' lvchange -ay -K '$VG/ts'"
lv_get t2 "$SCRATCH/t2.before"
wpids=()
for lv in t1 t2 ts; do
    : >"$SCRATCH/acked.$lv"
    "$PYTHON" "$ACK" write "$DEV/$lv" $((MB << 20)) 16 "$SCRATCH/acked.$lv" "k$lv" 1000 \
        >"$SCRATCH/w.$lv" 2>&1 &
    wpids+=($!)
done
for _ in $(seq 1000); do
    [[ $(cat "$SCRATCH"/acked.t* 2>/dev/null | wc -l) -gt 3000 ]] && break
    sleep 0.02
done
read -r sup worker <<<"$(uspace_daemon_pids)"
kill -9 "$sup" ${worker:+"$worker"} 2>/dev/null
at_kill=$(cat "$SCRATCH"/acked.t* | wc -l)
wait "${wpids[@]}"
diag "writers: $(cat "$SCRATCH"/w.t* | xargs)"
test_ok "SIGKILL of the daemon ($sup $worker) mid-run ($at_kill of $((3 * MB * 256)) writes acknowledged)" \
    test -n "$worker" -a "$at_kill" -gt 0 -a "$at_kill" -lt $((3 * MB * 256))
for _ in $(seq 50); do [[ -z $(uspace_daemon_pids) ]] && break; sleep 0.1; done
sleep 0.5
rc=0
meta_ok >"$SCRATCH/check.out" || rc=$?
test_eq "thin_check passes on the metadata as the crash left it" "$rc" 0
diag "$(head -5 "$SCRATCH/check.out")"
uspace_run_ok "deactivated and activated again (the daemon restarted)" sh -c \
    "'$LVX' vgchange -an '$VG' >/dev/null 2>&1; '$LVX' vgchange -an '$VG' >/dev/null &&
     '$LVX' vgchange -ay '$VG' >/dev/null && '$LVX' lvchange -ay -K '$VG/ts'"
# ack_ok LV SEED OLD LO HI: every acknowledged write of LV holds its pattern; in blocks
# [LO, HI) (unmapped before the run) also zeroes (provisioned after the last commit)
ack_ok() {
    lv_get "$1" "$SCRATCH/$1.now"
    "$PYTHON" - "$SCRATCH/$1.now" "$SCRATCH/acked.$1" "$2" "$3" "$4" >"$SCRATCH/ackcheck" 2>&1 <<'EOF'
import hashlib, sys
data = open(sys.argv[1], "rb").read()
seed, lo, hi = sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
def pattern(i):
    h = hashlib.sha256(b"%s:%d" % (seed.encode(), i)).digest()
    return (h * (4096 // len(h)))[:4096]
kept = lost = bad = 0
for line in open(sys.argv[2]):
    i = int(line)
    got = data[i * 4096:(i + 1) * 4096]
    if got == pattern(i):
        kept += 1
    elif lo <= i < hi and got == bytes(4096):
        lost += 1
    else:
        bad += 1
print("kept=%d zeroes=%d bad=%d" % (kept, lost, bad))
sys.exit(1 if bad or not kept else 0)
EOF
    local rc=$?
    test_eq "$1: every acknowledged write read back ($(cat "$SCRATCH/ackcheck"))" "$rc" 0
}
ack_ok t1 kt1 0 0
ack_ok t2 kt2 0 1024
ack_ok ts kts 0 0
"$PYTHON" - "$SCRATCH/t2.now" "$SCRATCH/t2.before" "$SCRATCH/acked.t2" >"$SCRATCH/rest" 2>&1 <<'EOF'
import sys
now, before = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
acked = {int(l) for l in open(sys.argv[3])}
bad = 0
for i in range(len(now) // 4096):
    if i in acked or i < 1024:
        continue
    old = before[i * 4096:(i + 1) * 4096]
    got = now[i * 4096:(i + 1) * 4096]
    # not acknowledged: the old bytes, or the write that was in flight
    if got != old and got[:32] * 128 != got:
        bad += 1
print("bad=%d" % bad)
sys.exit(1 if bad else 0)
EOF
test_eq "t2: every block not written holds its old bytes ($(cat "$SCRATCH/rest"))" "$?" 0
uspace_run_ok "vgchange -an" lvx vgchange -an "$VG"
test_ok "thin_check passes after the restart" meta_ok
uspace_run_ok "vgremove -f" lvx vgremove -f "$VG"
done_testing
