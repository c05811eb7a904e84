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
#     snapshot did, the other snapshot keeps its contents; LVM2 reads the VG (vgck);
#   - lvconvert -y --repair of the active origin with a leg's PV hidden: m becomes its
#     survivor, then a mirror again (LVM2's order under snapshots) with a new image and
#     log, the origin's file reloaded: s2's view kept, the new image
#     copied, both mimages hold a later write, the new log in sync after the stop.
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

osnap_patterns

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

# ---------------------------------------------------------------- conversions under s2
uspace_run_ok "the set activated" lvx lvchange -ay "$VG/m"
uspace_run_ok "lvconvert -y --mirrorlog core of the active origin m" \
    lvx lvconvert -y --mirrorlog core "$VG/m"
test_eq "core log: m reads S1, s2 its contents" "$(sum_of m) $(sum_of s2)" "$S1 $(fsum "$SCRATCH/before2")"
uspace_run_ok "lvconvert -y -m0 of the active origin m (linear)" lvx lvconvert -y -m0 "$VG/m"
test_eq "linear: m reads S1, s2 its contents" "$(sum_of m) $(sum_of s2)" "$S1 $(fsum "$SCRATCH/before2")"
uspace_run_ok "pattern A written over the linear m (copied out for s2)" \
    dd if="$SCRATCH/A" of="$DEV/m" bs=1M oflag=direct status=none
uspace_run_ok "lvconvert -y --type mirror -m1 of the active linear origin m (disk log)" \
    lvx lvconvert -y --type mirror -m1 "$VG/m"
test_eq "a mirror again: m reads A, s2 its contents" "$(sum_of m) $(sum_of s2)" "$A $(fsum "$SCRATCH/before2")"
test_ok "m in sync (the new image copied)" origin_synced
uspace_run_ok "the set deactivated" lvx lvchange -an "$VG/m"
legs_hold "after -m0 and --type mirror -m1" "$A"
test_eq "m_mlog (new) in sync after the stop" "$(mlog_insync)" "4d695272 $NREG $NREG"
test_eq "LVM2 reads the VG: m (mirror), s2 a snapshot of m" \
    "$(lvm2 lvs --noheadings -o lv_name,segtype,origin "$VG/m" "$VG/s2" 2>/dev/null | xargs)" \
    "m mirror s2 linear m"
S1=$(fsum "$SCRATCH/A")

# ---------------------------------------------------------------- repair under s2
# m_mimage_1's PV hidden: the set activated partial, lvconvert --repair of the active
# origin (LVM2 adds no image under snapshots: m goes on with its survivor)
lost=$(lvm2 lvs -a --noheadings -o devices "$VG/m_mimage_1" 2>/dev/null | tr -d ' ' | sed 's/(.*//')
keep=()
for d in "${DEVS[@]}"; do [[ $d != "$lost" ]] && keep+=("$d"); done
HIDE="--devices=$(IFS=,; echo "${keep[*]}")"
uspace_run_ok "the set activated with $lost hidden (--activationmode partial)" \
    lvx vgchange -ay --activationmode partial "$HIDE" "$VG"
test_eq "degraded: m reads S1, s2 its contents" "$(sum_of m) $(sum_of s2)" \
    "$S1 $(fsum "$SCRATCH/before2")"
lvx lvconvert -y --repair "$HIDE" "$VG/m" >"$SCRATCH/rep.out" 2>&1
test_eq "lvconvert -y --repair of the active origin m: exit 0" "$?" 0
test_eq "after the repair: m reads S1, s2 its contents" "$(sum_of m) $(sum_of s2)" \
    "$S1 $(fsum "$SCRATCH/before2")"
uspace_run_ok "pattern B written over m (copied out for s2)" \
    dd if="$SCRATCH/B" of="$DEV/m" bs=1M oflag=direct status=none
test_eq "after the write: m reads B, s2 its contents" "$(sum_of m) $(sum_of s2)" \
    "$B $(fsum "$SCRATCH/before2")"
test_eq "the repair gave m a new image on a PV left (a linear origin made a mirror again, as LVM2)" \
    "$(lvm2 lvs --noheadings -o segtype,stripes,origin "$VG/m" "$VG/s2" 2>/dev/null | xargs) $(lvm2 lvs -a --noheadings -o devices "$VG" 2>/dev/null | grep -c "$lost")" \
    "mirror 2 linear 1 m 0"
synced_hidden() {
    local _i
    for _i in $(seq 600); do
        [[ $(lvx lvs --noheadings -o copy_percent "$HIDE" "$VG/m" 2>/dev/null | tr -d ' ') == 100.00 ]] && return 0
        sleep 0.2
    done
    return 1
}
test_ok "the new image copied (copy_percent 100.00 through the snapshot-origin)" synced_hidden
uspace_run_ok "the set deactivated" lvx lvchange -an "$HIDE" "$VG/m"
legs_hold "after the repair and the write" "$B"
test_eq "m_mlog (new) in sync after the stop" "$(mlog_insync)" "4d695272 $NREG $NREG"

uspace_run_ok "vgremove -f" lvx vgremove -f "$HIDE" "$VG"
test_eq "no loop device over the daemon's files" \
    "$(losetup -a 2>/dev/null | grep -cF "$LVX_RUN_DIR/vol/")" 0
done_testing
