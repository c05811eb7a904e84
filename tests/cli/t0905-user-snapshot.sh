#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0905-user-snapshot: COW snapshots served by the lvx daemon (the `user` backend), their
# exception store kept on the COW LV in the kernel's persistent format, on two loop
# devices:
#   - an origin with two snapshots activated as one set; the new stores' headers ("SnAp",
#     valid 1) on the COW LVs, read from the PVs where LVM2's report puts them;
#   - the origin rewritten: it reads the new data, snapshot s1 still the old data byte
#     for byte; s2 (a 4m COW) fills up: invalidated (header valid 0, lv_attr I,
#     snap_percent 100.00, reads fail) while the origin keeps working;
#   - writes to s1 (whole and partial chunks) read back, the origin untouched; the store
#     read from the PVs by an independent parser (tests/tools/cow_check.py): the snapshot
#     as the kernel would read it equals what the daemon serves;
#   - fio --verify on the origin while s1 keeps its content; deactivation and
#     reactivation of the set (stores loaded from disk) serve the same bytes;
#   - SIGKILL of the daemon during origin writes: the restarted daemon serves the
#     snapshot unchanged and the store on disk parses, every record's chunk holding the
#     origin chunk as it was (data before metadata);
#   - lvremove of an active snapshot (the origin stops copying for it) and of the last one.
# The daemon is private to the test.  Costs about 20-40 s.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"
source "$LVX_ROOT/tests/tools/uspace-snap.sh"

VG=vgsnu$$
uspace_snap_env "$VG"

header() {  # header LV: "magic valid version chunk" of the COW LV's header, from the PVs
    cow_bytes "$1" "$SCRATCH/cow.bin" &&
        od -A n -t x4 -N 16 "$SCRATCH/cow.bin" | xargs
}

head -c 16M /dev/urandom >"$SCRATCH/A"
head -c 16M /dev/urandom >"$SCRATCH/B"
head -c 1M /dev/urandom >"$SCRATCH/C"

uspace_run_ok "vgcreate" lvx vgcreate "$VG" "${D[@]}"
uspace_run_ok "lvcreate orig (16m, activated)" lvx lvcreate -n orig -L 16m "$VG"
uspace_run_ok "pattern A written to the origin" \
    dd if="$SCRATCH/A" of="$DEV/orig" bs=1M oflag=direct status=none
uspace_run_ok "origin deactivated" lvx lvchange -an "$VG/orig"
uspace_run_ok "lvcreate -s -L 24m -n s1 (trimmed to what a full copy needs)" \
    lvx lvcreate -s -L 24m -n s1 "$VG/orig"
uspace_run_ok "lvcreate -s -L 4m -n s2" lvx lvcreate -s -L 4m -n s2 "$VG/orig"
uspace_run_ok "lvchange -ay of the origin activates the set" lvx lvchange -ay "$VG/orig"
test_ok "s1 is served: $DEV/s1 is a block device" test -b "$DEV/s1"
test_ok "s2 is served" test -b "$DEV/s2"
test_eq "s1 is as large as its origin" "$(blockdev --getsize64 "$DEV/s1")" 16777216
attr=$(field s1 lv_attr)
test_eq "s1: lv_attr s...a (snapshot, active)" "${attr:0:1}${attr:4:1}" "sa"
test_eq "s1: lv_activation_backend user" "$(field s1 lv_activation_backend)" user
test_eq "s1: new store header on the COW LV (SnAp, valid, version 1, 8 sectors)" \
    "$(header s1)" "70416e53 00000001 00000001 00000008"
test_eq "s1 reads pattern A" "$(lv_sum s1)" "$(fsum "$SCRATCH/A")"
test_eq "s1: snap_percent of a new store" "$(field s1 snap_percent)" "0.00"

# ------------------------------------------------------------ origin rewritten
uspace_run_ok "pattern B written over the origin" \
    dd if="$SCRATCH/B" of="$DEV/orig" bs=1M oflag=direct status=none
test_eq "the origin reads pattern B" "$(lv_sum orig)" "$(fsum "$SCRATCH/B")"
test_eq "s1 still reads pattern A" "$(lv_sum s1)" "$(fsum "$SCRATCH/A")"
pct=$(field s1 snap_percent)
test_ok "s1: snap_percent grew ($pct)" "$PYTHON" -c "import sys; sys.exit(not 60 < float('$pct') < 100)"
test_eq "s1: data_percent equals snap_percent" "$(field s1 data_percent)" "$pct"
attr=$(field s2 lv_attr)
test_eq "s2 (4m COW) overflowed: lv_attr state I" "${attr:4:1}" "I"
test_eq "s2: snap_percent 100.00" "$(field s2 snap_percent)" "100.00"
test_eq "s2: header valid 0 on disk" "$(header s2)" "70416e53 00000000 00000001 00000008"
test_fail "s2: reads fail" dd if="$DEV/s2" of=/dev/null bs=4k count=1 iflag=direct status=none
uspace_run_ok "the origin keeps working after s2 overflowed (pattern A again)" \
    dd if="$SCRATCH/A" of="$DEV/orig" bs=1M oflag=direct status=none
test_eq "the origin reads pattern A" "$(lv_sum orig)" "$(fsum "$SCRATCH/A")"
uspace_run_ok "pattern B again" dd if="$SCRATCH/B" of="$DEV/orig" bs=1M oflag=direct status=none

# ------------------------------------------------------------ writes to the snapshot
cp "$SCRATCH/A" "$SCRATCH/S1"
uspace_run_ok "1 MiB of C written to s1 at 3 MiB" \
    dd if="$SCRATCH/C" of="$DEV/s1" bs=1M seek=3 oflag=direct status=none
dd if="$SCRATCH/C" of="$SCRATCH/S1" bs=1M seek=3 conv=notrunc status=none
uspace_run_ok "512 bytes of C written to s1 at sector 20001 (part of a chunk)" \
    dd if="$SCRATCH/C" of="$DEV/s1" bs=512 count=1 seek=20001 oflag=direct status=none
dd if="$SCRATCH/C" of="$SCRATCH/S1" bs=512 count=1 seek=20001 conv=notrunc status=none
test_eq "s1 reads A with those writes" "$(lv_sum s1)" "$(fsum "$SCRATCH/S1")"
test_eq "the origin still reads B" "$(lv_sum orig)" "$(fsum "$SCRATCH/B")"
lv_get orig "$SCRATCH/orig.now"
lv_get s1 "$SCRATCH/s1.now"
cow_bytes s1 "$SCRATCH/cow.bin"
uspace_run_ok "s1's store parses; read as the kernel does it equals what the daemon serves" \
    "$PYTHON" "$COWCHECK" "$SCRATCH/cow.bin" - "$SCRATCH/orig.now" "$SCRATCH/s1.now"
diag "$(cat "$SCRATCH/out")"

# ------------------------------------------------------------ fio on the origin
uspace_run_ok "fio --verify=crc32c of random 4k writes over the origin" \
    fio --name=v --filename="$DEV/orig" --rw=randwrite --bs=4k --size=16m --direct=1 \
    --ioengine=psync --verify=crc32c --verify_fatal=1 --randrepeat=0
test_eq "s1 still reads A with its own writes" "$(lv_sum s1)" "$(fsum "$SCRATCH/S1")"
o_sum=$(lv_sum orig)
uspace_run_ok "the set deactivated" lvx lvchange -an "$VG/orig"
test_fail "s1 is not served any more" test -b "$DEV/s1"
uspace_run_ok "the set activated again (stores read from disk)" lvx lvchange -ay "$VG/orig"
test_eq "after reactivation: s1 the same" "$(lv_sum s1)" "$(fsum "$SCRATCH/S1")"
test_eq "after reactivation: the origin the same" "$(lv_sum orig)" "$o_sum"
attr=$(field s2 lv_attr)
test_eq "after reactivation: s2 still invalid" "${attr:4:1}" "I"

# ------------------------------------------------------------ SIGKILL during writes
uspace_run_ok "lvremove -f of the active s2 (the set stays)" lvx lvremove -f "$VG/s2"
test_ok "the origin is still served" test -b "$DEV/orig"
uspace_run_ok "lvchange -an of the set" lvx lvchange -an "$VG/orig"
uspace_run_ok "lvcreate -s -L 20m -n s3" lvx lvcreate -s -L 20m -n s3 "$VG/orig"
uspace_run_ok "the set with s1 and s3 activated" lvx lvchange -ay "$VG/orig"
lv_get orig "$SCRATCH/before3"
kill_during_copies s3 1 fio --name=k --filename="$DEV/orig" --rw=randwrite --bs=64k \
    --size=16m --direct=1 --ioengine=libaio --iodepth=8 --time_based --runtime=30
test_eq "after SIGKILL: s3 reads the origin as it was when s3 was taken" \
    "$(lv_sum s3)" "$(fsum "$SCRATCH/before3")"
test_eq "after SIGKILL: s1 unchanged" "$(lv_sum s1)" "$(fsum "$SCRATCH/S1")"
cow_bytes s3 "$SCRATCH/cow3.bin"
uspace_run_ok "after SIGKILL: s3's store parses, every record holds the old origin chunk" \
    "$PYTHON" "$COWCHECK" "$SCRATCH/cow3.bin" "$SCRATCH/before3"
records=$(sed -n 's/.* records=\([0-9]*\) .*/\1/p' "$SCRATCH/out")
test_ok "... with records written before the kill (${records:-none})" test "${records:-0}" -gt 0
test_eq "LVM2 reads the VG: orig, s1, s3 with origin orig" \
    "$(lvm2 lvs --noheadings -o lv_name,origin "$VG" 2>/dev/null | xargs)" "orig s1 orig s3 orig"
uspace_run_ok "writes to the origin work again" \
    dd if="$SCRATCH/A" of="$DEV/orig" bs=1M oflag=direct status=none
test_eq "s3 still reads the origin as it was" "$(lv_sum s3)" "$(fsum "$SCRATCH/before3")"

# ------------------------------------------------------------ removal
uspace_run_ok "lvremove -f of the active s3" lvx lvremove -f "$VG/s3"
uspace_run_ok "lvremove -f of the active s1 (the last snapshot)" lvx lvremove -f "$VG/s1"
test_ok "the origin is still served" test -b "$DEV/orig"
uspace_run_ok "the origin takes writes" dd if="$SCRATCH/B" of="$DEV/orig" bs=1M oflag=direct status=none
test_eq "... and reads them back" "$(lv_sum orig)" "$(fsum "$SCRATCH/B")"
uspace_run_ok "vgremove -f" lvx vgremove -f "$VG"
test_eq "no loop device over the daemon's files" \
    "$(losetup -a 2>/dev/null | grep -cF "$LVX_RUN_DIR/vol/")" 0
done_testing
