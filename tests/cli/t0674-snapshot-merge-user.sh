#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0674-snapshot-merge-user: `lvconvert --merge` of COW snapshots in the user-space
# backend (the lvx daemon serves the origin as the kernel's snapshot-merge does and the
# poll drives the copy; daemon/target_snapshot.c), on loop devices, LVM2 reading the VG:
#   * an active origin (not open): the merge starts at once, LVM2's lines ("Merging of
#     volume ... started.", "Merged: P%", "Merge of snapshot into logical volume ...
#     has finished.", the snapshot removed), and the origin then reads as the
#     snapshot did (writes made to the origin and to the snapshot since it was taken);
#     another snapshot of the origin keeps its own contents through the merge;
#   * an inactive origin: "will occur on next activation", and the next lvchange -ay
#     runs and finishes it;
#   * an open origin: "Delaying merge since origin is open.", done at the next
#     activation;
#   * a merge in steps (activated with --poll n, steps asked of the daemon): in the
#     middle the origin reads right and the raw PVs hold a store the kernel would
#     finish (tests/tools/cow_check.py); after a SIGKILL of the daemon the next
#     activation finishes it, data right;
#   * after each merge LVM2's vgck passes and LVM2's lvs -a equals lvx's.
# The kernel's side (LVM2 merging a store lvx wrote and the other way round) is t0703.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_loop
need_cmd lvm
need_lvx
[[ -e /dev/fuse ]] || skip_all "no /dev/fuse"
plan_later

D1=$(make_loop 160M) && D2=$(make_loop 160M) || { _tap_result 1 "loop devices"; done_testing; }
DEVS="$D1,$D2"
X() { lvx "$@" --devices "$DEVS"; }
mkdir -p "$SCRATCH/dev"
U() { DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user X "$@" --config 'global { activation = 1 }'; }
dev() { echo "$SCRATCH/dev/vg1/$1"; }
sum() { sha256sum <"$(dev "$1")" | cut -d' ' -f1; }
# write COUNT 64 KiB blocks of random data at 64 KiB block SEEK of LV
put() { dd if=/dev/urandom of="$(dev "$1")" bs=64k seek="$2" count="$3" oflag=direct conv=notrunc status=none; }
same_lvs() {
    local rep=lv_name,lv_attr,origin,lv_size
    test_eq "$1: LVM2's lvs -a equals lvx's" "$(X lvs -a --noheadings -o $rep vg1 2>&1)" \
        "$(lvm2 lvs -a --noheadings -o $rep vg1 2>/dev/null)"
    test_ok "$1: LVM2's vgck passes" lvm2 vgck vg1
}
# new_snap NAME SIZE: the set deactivated, snapshot NAME of orig taken, the set active
new_snap() {
    U lvchange -an vg1/orig >/dev/null 2>&1 &&
        X lvcreate -s -L "$2" -n "$1" vg1/orig >/dev/null 2>&1 &&
        U lvchange -ay vg1/orig >/dev/null 2>&1
}

test_ok "vg1: a 48m origin with random contents" sh -c \
    "'$LVX' pvcreate -q $D1 $D2 --devices $DEVS && '$LVX' vgcreate -q vg1 $D1 $D2 --devices $DEVS &&
     '$LVX' lvcreate -an -L 48m -n orig vg1 --devices $DEVS >/dev/null"
U lvchange -ay vg1/orig >/dev/null 2>&1
put orig 0 768
U lvchange -an vg1/orig >/dev/null 2>&1

# ---------------------------------------------------------------- 1: active origin
test_ok "two snapshots: s1 (4k chunks), s2 (16k chunks)" sh -c \
    "'$LVX' lvcreate -s -L 40m -n s1 vg1/orig --devices $DEVS >/dev/null &&
     '$LVX' lvcreate -s -L 40m -c 16k -n s2 vg1/orig --devices $DEVS >/dev/null"
test_ok "the set activated (user backend)" U lvchange -ay vg1/orig
s0=$(sum orig)
put orig 10 200        # 12.5 MiB rewritten: s1 and s2 save the chunks
put s1 300 16          # a write to the snapshot: the merge brings it into the origin
put orig 700 68
s1=$(sum s1)
s2=$(sum s2)
test_eq "s2 still reads as the origin did" "$s2" "$s0"
out=$(U lvconvert --merge -i 1 vg1/s1 2>&1 | sandbox_noise; exit "${PIPESTATUS[0]}")
test_eq "lvconvert --merge of an active origin: exit 0" "$?" 0
diag "$out"
test_eq "... LVM2's first line" "$(head -n 1 <<<"$out")" "  Merging of volume vg1/s1 started."
test_ok "... progress lines (vg1/orig: Merged: P%)" grep -qE '^  vg1/orig: Merged: [0-9]+\.[0-9]{2}%$' <<<"$out"
test_eq "... LVM2's last lines" "$(tail -n 2 <<<"$out")" \
    '  Merge of snapshot into logical volume vg1/orig has finished.
  Logical volume "s1" successfully removed.'
test_eq "the origin reads as s1 did (origin and snapshot writes merged)" "$(sum orig)" "$s1"
test_eq "s2 keeps its contents through the merge" "$(sum s2)" "$s2"
test_fail "s1's device is gone" test -e "$(dev s1)"
same_lvs "after the merge of s1"

# ---------------------------------------------------------------- 2: inactive origin
put orig 100 50
o_before=$(sum orig)
test_ok "the set deactivated" U lvchange -an vg1/orig
out=$(U lvconvert --merge vg1/s2 2>&1 | sandbox_noise; exit "${PIPESTATUS[0]}")
test_eq "lvconvert --merge of an inactive origin: exit 0, deferred as LVM2 says" "$?:$out" \
    "0:  Merging of snapshot vg1/s2 will occur on next activation of vg1/orig."
test_eq "LVM2 sees the merge pending (s2 hidden, origin O)" \
    "$(lvm2 lvs -a --noheadings -o lv_name,lv_attr vg1 2>/dev/null | awk '{print $1, substr($2, 1, 1)}')" \
    "$(X lvs -a --noheadings -o lv_name,lv_attr vg1 2>/dev/null | awk '{print $1, substr($2, 1, 1)}')"
out=$(U lvchange -ay vg1/orig 2>&1 | sandbox_noise; exit "${PIPESTATUS[0]}")
test_eq "the next lvchange -ay runs the merge: exit 0" "$?" 0
diag "$out"
test_ok "... and finishes it" grep -q "Merge of snapshot into logical volume vg1/orig has finished." <<<"$out"
test_eq "the origin reads as s2 did (its contents when taken)" "$(sum orig)" "$s2"
test_fail "... the origin read differently before the merge" test "$o_before" = "$s2"
same_lvs "after the deferred merge of s2"

# ---------------------------------------------------------------- 3: open origin
test_ok "s3 taken" new_snap s3 40m
s3=$(sum s3)
put orig 0 256
# held open exclusively, as a mounted filesystem holds it
python3 -c 'import os, sys, time; fd = os.open(sys.argv[1], os.O_RDONLY | os.O_EXCL); print("held", flush=True); time.sleep(60)' \
    "$(readlink -f "$(dev orig)")" >"$SCRATCH/held" 2>&1 &
holder=$!
for _ in $(seq 1 100); do grep -q held "$SCRATCH/held" && break; sleep 0.05; done
out=$(U lvconvert --merge vg1/s3 2>&1 | sandbox_noise; exit "${PIPESTATUS[0]}")
test_eq "lvconvert --merge of an open origin: delayed, as LVM2" "$?:$out" \
    "0:  Delaying merge since origin is open.
  Merging of snapshot vg1/s3 will occur on next activation of vg1/orig."
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
test_fail "... nothing merged yet" test "$(sum orig)" = "$s3"
out=$(U lvchange -an vg1/orig 2>&1 && U lvchange -ay vg1/orig 2>&1)
test_ok "... done at the next activation" grep -q "has finished." <<<"$out"
diag "$out"
test_eq "the origin reads as s3 did" "$(sum orig)" "$s3"
same_lvs "after the delayed merge of s3"

# ---------------------------------------------------------------- 4: a merge in steps
# The merge activated without its poll (--poll n), then driven one step at a time by
# requests to the daemon (what the poll sends): in the middle the origin reads as the
# snapshot did, and the PVs hold a store the kernel would finish (checked by
# tests/tools/cow_check.py from the raw PVs, written independently of lvx); a
# SIGKILL of the daemon there, then the next activation finishes the merge.
step() {  # step MAX: one snapmerge request; prints the daemon's answer
    python3 "$LVX_ROOT/tests/tools/lvxd_request.py" snapmerge vg1 orig "$1"
}
pvread() {  # pvread LV OUT: the LV's bytes straight from the PVs, by LVM2's report
    local r=$SCRATCH/pvr        # (-a -S: a merging snapshot is hidden)
    lvm2 lvs -a --segments -o lv_name,seg_start,seg_size,stripes,stripe_size,seg_pe_ranges \
        --units s --nosuffix --reportformat json -S "lv_name=$1" vg1 >"$r.segs" 2>/dev/null
    lvm2 pvs -o pv_name,pe_start --units s --nosuffix --reportformat json >"$r.pvs" 2>/dev/null
    lvm2 vgs -o vg_extent_size --units s --nosuffix --reportformat json vg1 >"$r.vgs" 2>/dev/null
    local size
    size=$(lvm2 lvs -a --noheadings --units s --nosuffix -o lv_size -S "lv_name=$1" vg1 2>/dev/null | tr -d ' ')
    python3 "$LVX_ROOT/tests/tools/lv_pvread.py" "$r.segs" "$r.pvs" "$r.vgs" 0 $((size * 512)) "$2" >/dev/null
}
test_ok "s4 taken (40 MiB of the origin rewritten next)" new_snap s4 44m
s4=$(sum s4)
put orig 0 640
U lvchange -an vg1/orig >/dev/null 2>&1
U lvconvert --merge vg1/s4 >/dev/null 2>&1
test_ok "lvchange -ay --poll n: the origin served, merging, the merge not polled" \
    U lvchange -ay --poll n vg1/orig
test_eq "... the merging origin reads as s4 did (nothing merged yet)" "$(sum orig)" "$s4"
r1=$(step 200)
r2=$(step 200)
r3=$(step 100000)
diag "records left after three steps: $r1, $r2, $r3"
test_ok "three merge steps: each answers the records left, fewer each time" \
    python3 -c 'import sys; v = [int(x.split()[1]) for x in sys.argv[1:]]; sys.exit(not (v[0] > v[1] > v[2] > 0))' \
    "$r1" "$r2" "$r3"
test_eq "... in the middle of the merge the origin reads as s4 did" "$(sum orig)" "$s4"
pvread orig "$SCRATCH/orig.bin"
pvread s4 "$SCRATCH/cow.bin"
dd if="$(dev orig)" of="$SCRATCH/s4.bin" bs=1M iflag=direct status=none
chk=$(python3 "$LVX_ROOT/tests/tools/cow_check.py" "$SCRATCH/cow.bin" - "$SCRATCH/orig.bin" "$SCRATCH/s4.bin" 2>&1)
test_ok "... the PVs hold a store the kernel reads as s4 over the half-merged origin" \
    grep -q "records=${r3#ok }" <<<"$chk"
diag "$chk"
sup=$(cat "$LVX_RUN_DIR/lvxd.pid" 2>/dev/null)
# shellcheck disable=SC2046
kill -KILL "$sup" $(cat "/proc/$sup/task/$sup/children" 2>/dev/null) 2>/dev/null   # supervisor and worker
sleep 0.5
out=$(U lvchange -an vg1/orig 2>&1; U lvchange -ay vg1/orig 2>&1)
test_ok "after a SIGKILL of the daemon: the next activation finishes the merge" \
    grep -q 'has finished' <<<"$out"
diag "$out"
test_eq "the origin reads as s4 did" "$(sum orig)" "$s4"
test_eq "no snapshot left" "$(X lvs -a --noheadings -o lv_name vg1 2>/dev/null | tr -d ' ')" orig
same_lvs "after the merge in steps"

test_ok "deactivated, VG removed" sh -c \
    "DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user '$LVX' lvchange -an vg1/orig --devices $DEVS --config 'global { activation = 1 }' &&
     '$LVX' vgremove -f vg1 --devices $DEVS >/dev/null"
done_testing
