#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1089-user-mirror-snapshot: COW snapshots of old-style mirror LVs served by the lvx
# daemon (the `user` backend): the origin's file serves the mirror with its mirror
# target under the snapshot-origin target (daemon/target_snapshot.c, `inner`), the
# snapshot's file reads the origin through it.
#   - lvcreate -s of an active disk-log mirror (taken live), origin rewritten: the
#     origin reads the new data, both mimages hold it (read from their PVs), the
#     snapshot reads the old data; its store parses (tests/tools/cow_check.py) and, read
#     as the kernel reads it, equals what the daemon serves; the origin's lvs shows its
#     mirror state (copy_percent) and the origin attribute;
#   - fio --verify=crc32c over the origin; a write to the snapshot; deactivation: the
#     mlog holds dm-log's header with every region in sync; reactivation serves the
#     same bytes;
#   - SIGKILL of the daemon during origin writes: the restarted daemon serves a second
#     snapshot unchanged, its store's records hold the old chunks, the mirror resyncs
#     and its legs are equal;
#   - lvconvert --merge of the first snapshot: the origin (both legs) reads as the
#     snapshot did, the other snapshot keeps its contents; LVM2 reads the VG (vgck).
# The sections shared with t1083 (RAID origins): tests/tools/uspace-origin-snap.sh.
# The daemon is private to the test.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"
source "$LVX_ROOT/tests/tools/uspace-snap.sh"

VG=vgums$$
need_cmd fio
uspace_test_loops "$VG" 3 96M
DEV=$DM_DEV_DIR/$VG
MIB=1048576
source "$LVX_ROOT/tests/tools/raid-pvread.sh"

source "$LVX_ROOT/tests/tools/uspace-origin-snap.sh"
OSNAP_LEGS=(m_mimage_0 m_mimage_1)
# mlog_insync: "MAGIC REGIONS INSYNC" of m_mlog read from its PV (dm-log's layout)
mlog_insync() {
    report m_mlog
    pv_get m_mlog 0 8192 "$SCRATCH/mlog.bin"
    "$PYTHON" - "$SCRATCH/mlog.bin" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
magic, version, regions = struct.unpack_from("<IIQ", b, 0)
bits = b[1024:]
print("%08x %d %d" % (magic, regions, sum((bits[i // 8] >> (i % 8)) & 1 for i in range(regions))))
PY
}
origin_synced() {
    local _i
    for _i in $(seq 600); do
        [[ $(field m copy_percent) == 100.00 ]] && return 0
        sleep 0.2
    done
    return 1
}

head -c $((16 * MIB)) /dev/urandom >"$SCRATCH/A"
head -c $((16 * MIB)) /dev/urandom >"$SCRATCH/B"
head -c $MIB /dev/urandom >"$SCRATCH/C"
A=$(fsum "$SCRATCH/A")
B=$(fsum "$SCRATCH/B")

uspace_run_ok "vgcreate" lvx vgcreate "$VG" "${DEVS[@]}"
uspace_run_ok "lvcreate --type mirror -m1 -L 16m m (disk log)" \
    lvx lvcreate -Zn --type mirror -m1 -L 16m -n m "$VG" "${DEVS[0]}" "${DEVS[1]}" "${DEVS[2]}"
test_ok "m in sync" origin_synced
uspace_run_ok "pattern A written to m" dd if="$SCRATCH/A" of="$DEV/m" bs=1M oflag=direct status=none

# ---------------------------------------------------------------- a live snapshot
osnap_live m mirror copy_percent
test_eq "m: mirror health attribute" "$(field m lv_attr | cut -c9)" "-"
R=$(sum_of m)
uspace_run_ok "the set deactivated" lvx lvchange -an "$VG/m"
test_fail "s1 is not served any more" test -b "$DEV/s1"
NREG=$(mlog_insync | cut -d' ' -f2)
test_eq "m_mlog after the stop: MiRr, every one of its $NREG regions in sync" \
    "$(mlog_insync)" "4d695272 $NREG $NREG"
legs_hold "after the stop" "$R"
uspace_run_ok "the set activated again" lvx lvchange -ay "$VG/m"
test_eq "after reactivation: s1 the same" "$(sum_of s1)" "$S1"
test_eq "after reactivation: m the same" "$(sum_of m)" "$R"

# ---------------------------------------------------------------- SIGKILL
osnap_kill m
R=$(sum_of m)
uspace_run_ok "the set deactivated" lvx lvchange -an "$VG/m"
legs_hold "after the crash and the resync" "$R"
test_eq "m_mlog in sync after the stop" "$(mlog_insync)" "4d695272 $NREG $NREG"
uspace_run_ok "the set activated again" lvx lvchange -ay "$VG/m"

# ---------------------------------------------------------------- merge
osnap_merge m
test_eq "m_mlog in sync after the merge and the stop" "$(mlog_insync)" "4d695272 $NREG $NREG"
test_eq "LVM2 reads the VG: m (mirror), s2 a snapshot of m" \
    "$(lvm2 lvs --noheadings -o lv_name,segtype,origin "$VG/m" "$VG/s2" 2>/dev/null | xargs)" \
    "m mirror s2 linear m"
uspace_run_ok "LVM2's vgck" lvm2 vgck "$VG"

uspace_run_ok "vgremove -f" lvx vgremove -f "$VG"
test_eq "no loop device over the daemon's files" \
    "$(losetup -a 2>/dev/null | grep -cF "$LVX_RUN_DIR/vol/")" 0
done_testing
