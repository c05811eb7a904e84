# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# tests/tools/uspace-origin-snap.sh - the checks shared by the tests of COW snapshots of
# an origin with legs (RAID, mirror) served by the lvx daemon (sourced after
# uspace-snap.sh and raid-pvread.sh; VG, DEV, MIB, SCRATCH set; the test sets OSNAP_LEGS
# (the origin's image sub-LVs) and defines `origin_synced`):
#   osnap_patterns       random files A, B (16 MiB) and C (1 MiB) in SCRATCH, their sums
#                        in A and B (what the other functions write and expect)
#   osnap_s1_write       1 MiB of C written to s1 at 5 MiB (a check); S1: the sum of A
#                        with that write (SCRATCH/S1 the file)
#   sum_of LV            sha256 of the LV read through its device (direct I/O)
#   legs_hold DESC SUM   every leg in OSNAP_LEGS, read from its PV, holds 16 MiB with
#                        that sum (a check each)
#   cow_get LV OUT       the COW LV's bytes from the PVs
#   osnap_live O KIND STATEFIELD
#                        s1 taken live of the active origin O (holding A), B written
#                        over O: O reads B, s1 A, every leg B; s1's snap_percent grew;
#                        O's STATEFIELD is 100.00 through the snapshot-origin, its
#                        lv_attr an active origin; 1 MiB of C written to s1 (S1: its
#                        sum); s1's store parses and equals what the daemon serves; fio
#                        --verify=crc32c over O leaves s1 unchanged
#   osnap_store O        s1's store (read from its PVs) parses and, read as the kernel
#                        reads it over O, equals what the daemon serves as s1
#   osnap_fio O          fio --verify=crc32c over O (16 MiB) leaves s1 (S1) unchanged
#   osnap_kill O         s2 taken live, the daemon SIGKILLed during origin writes
#                        (kill_during_copies): s2 reads O as it was, s1 unchanged, s2's
#                        records hold the old chunks, O in sync again (origin_synced)
#   osnap_merge O        lvconvert --merge of s1: s1 gone, O reads as s1 did, s2 kept;
#                        the set deactivated, every leg holds S1
osnap_patterns() {
    head -c $((16 * MIB)) /dev/urandom >"$SCRATCH/A"
    head -c $((16 * MIB)) /dev/urandom >"$SCRATCH/B"
    head -c $MIB /dev/urandom >"$SCRATCH/C"
    A=$(fsum "$SCRATCH/A")
    B=$(fsum "$SCRATCH/B")
}
osnap_s1_write() {
    cp "$SCRATCH/A" "$SCRATCH/S1"
    uspace_run_ok "1 MiB of C written to s1 at 5 MiB" \
        dd if="$SCRATCH/C" of="$DEV/s1" bs=1M seek=5 oflag=direct status=none
    dd if="$SCRATCH/C" of="$SCRATCH/S1" bs=1M seek=5 conv=notrunc status=none
    S1=$(fsum "$SCRATCH/S1")
}
sum_of() { dd if="$DEV/$1" bs=1M iflag=direct status=none | sha256sum | cut -d' ' -f1; }
legs_hold() {
    local l
    for l in "${OSNAP_LEGS[@]}"; do
        report "$l"
        test_eq "$1: $l (read from its PV)" "$(pv_sum "$l" 0 $((16 * MIB)))" "$2"
    done
}
cow_get() {
    report "$1"
    local size
    size=$(lvm2 lvs --noheadings --units b --nosuffix -o lv_size "$VG/$1" 2>/dev/null | tr -d ' ')
    pv_get "$1" 0 "$size" "$2"
}

osnap_live() {
    local o=$1 kind=$2 sf=$3 pct
    uspace_run_ok "lvcreate -s -L 20m -n s1 of the active $kind $o" lvx lvcreate -s -L 20m -n s1 "$VG/$o"
    test_ok "s1 is served" test -b "$DEV/s1"
    test_eq "s1 reads pattern A" "$(sum_of s1)" "$A"
    uspace_run_ok "pattern B written over $o" dd if="$SCRATCH/B" of="$DEV/$o" bs=1M oflag=direct status=none
    test_eq "$o reads pattern B" "$(sum_of "$o")" "$B"
    test_eq "s1 still reads pattern A" "$(sum_of s1)" "$A"
    legs_hold "origin writes go to every leg" "$B"
    pct=$(field s1 snap_percent)
    test_ok "s1: snap_percent grew ($pct)" "$PYTHON" -c "import sys; sys.exit(not 60 < float('$pct') < 100)"
    test_eq "$o: $sf through the snapshot-origin (its $kind state)" "$(field "$o" "$sf")" "100.00"
    test_eq "$o: lv_attr origin of a $kind (o), active" "$(field "$o" lv_attr | cut -c1,5)" "oa"
    osnap_s1_write
    test_eq "s1 reads A with that write" "$(sum_of s1)" "$S1"
    test_eq "$o still reads B" "$(sum_of "$o")" "$B"
    osnap_store "$o"
    osnap_fio "$o"
}

osnap_store() {
    lv_get "$1" "$SCRATCH/$1.now"
    lv_get s1 "$SCRATCH/s1.now"
    cow_get s1 "$SCRATCH/cow.bin"
    uspace_run_ok "s1's store parses; read as the kernel does it equals what the daemon serves" \
        "$PYTHON" "$COWCHECK" "$SCRATCH/cow.bin" - "$SCRATCH/$1.now" "$SCRATCH/s1.now"
}

osnap_fio() {
    uspace_run_ok "fio --verify=crc32c of random 4k writes over $1" \
        fio --name=v --filename="$DEV/$1" --rw=randwrite --bs=4k --size=16m --direct=1 \
        --ioengine=psync --verify=crc32c --verify_fatal=1 --randrepeat=0 --output="$SCRATCH/fio.out"
    test_eq "s1 unchanged by fio" "$(sum_of s1)" "$S1"
}

osnap_kill() {
    local o=$1
    uspace_run_ok "lvcreate -s -L 20m -n s2 (live)" lvx lvcreate -s -L 20m -n s2 "$VG/$o"
    lv_get "$o" "$SCRATCH/before2"
    kill_during_copies s2 1 fio --name=k --filename="$DEV/$o" --rw=randwrite --bs=64k --size=16m \
        --direct=1 --ioengine=libaio --iodepth=8 --time_based --runtime=30
    test_eq "after SIGKILL: s2 reads $o as it was when s2 was taken" "$(sum_of s2)" "$(fsum "$SCRATCH/before2")"
    test_eq "after SIGKILL: s1 unchanged" "$(sum_of s1)" "$S1"
    cow_get s2 "$SCRATCH/cow2.bin"
    uspace_run_ok "after SIGKILL: s2's store parses, every record holds the old origin chunk" \
        "$PYTHON" "$COWCHECK" "$SCRATCH/cow2.bin" "$SCRATCH/before2"
    test_ok "$o in sync again after the crash (dirty regions resynced)" origin_synced
}

osnap_merge() {
    local o=$1
    uspace_run_ok "lvconvert --merge of s1 (origin active, not open)" lvx lvconvert --merge -i 1 "$VG/s1"
    test_eq "s1 is gone after the merge" "$(lvx lvs --noheadings -o lv_name "$VG" 2>/dev/null | xargs)" "$o s2"
    test_eq "$o reads as s1 did" "$(sum_of "$o")" "$S1"
    test_eq "s2 keeps its contents through the merge" "$(sum_of s2)" "$(fsum "$SCRATCH/before2")"
    uspace_run_ok "the set deactivated" lvx lvchange -an "$VG/$o"
    legs_hold "merged into every leg" "$S1"
}
