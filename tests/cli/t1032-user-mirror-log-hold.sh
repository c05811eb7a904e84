#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1032-user-mirror-log-hold: a live lvconvert -m +1 of a disk-log mirror served by the
# lvx daemon commits metadata that lists a new, not yet copied image.  Until this
# change the log on disk said "in sync" across that commit (the daemon dirtied it only
# when the new state started), so an lvconvert that died right after its commit,
# followed by a deactivation (or a crash), left the new image counted in sync and
# never copied (review s7 B1).  Now lvconvert has the daemon hold the log all out of
# sync on disk before the commit, until the reload carries the real bits over:
#   * a failed commit (LVX_TEST_FAIL_WRITE=1) releases the hold: the log says in sync;
#   * lvconvert killed after each of its writes in turn (LVX_TEST_CRASH_AFTER_WRITE=N)
#     until the new metadata is on disk: the log says 0 regions in sync, also after the
#     deactivation that follows (in sync on the old binary);
#   * activated again, the new image is copied: read from its PV it holds m's data.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"
source "$LVX_ROOT/tests/tools/mirror_layer.sh"

VG=vgumh$$
uspace_test_loops "$VG" 4 32M
MIB=1048576
log_state() { local magic nreg x nsync; read -r magic nreg x nsync < <(mir_log_synced "$VG" m_mlog)
              echo "$magic $nsync/$nreg"; }
wait_copied() {  # until copy_percent is 100.00 (60 s at most)
    local i
    for ((i = 0; i < 600; i++)); do
        [[ $(field "$VG/m" copy_percent) == 100.00 ]] && return 0
        sleep 0.1
    done
    return 1
}

uspace_run_ok "pvcreate, vgcreate" sh -c "$LVX pvcreate ${DEVS[*]} && $LVX vgcreate $VG ${DEVS[*]}"
uspace_run_ok "mirror m (-m1, 8 MiB, images on D0 D1, log on D2)" \
    lvx lvcreate -Zn --type mirror -m1 -L 8m -n m "$VG" "${DEVS[0]}" "${DEVS[1]}" "${DEVS[2]}"
test_ok "m in sync" wait_copied
head -c $((8 * MIB)) /dev/urandom >"$SCRATCH/d"
uspace_run_ok "8 MiB written to m (fsync: the quiet regions' bits set again)" \
    dd if="$SCRATCH/d" of="$DM_DEV_DIR/$VG/m" bs=1M oflag=direct conv=fsync status=none
NREG=$(log_state | sed 's|.*/||')
test_eq "the log on D2 says every region in sync" "$(log_state)" "MiRr $NREG/$NREG"

# ---- a commit that fails: the hold released
rc=0
LVX_TEST_FAIL_WRITE=1 "$LVX" lvconvert -y -m +1 "$VG/m" "${DEVS[3]}" >"$SCRATCH/f.out" 2>&1 || rc=$?
diag "$(cat "$SCRATCH/f.out")"
test_ok "lvconvert -m +1 whose first write fails: exit non-zero ($rc)" test "$rc" -ne 0
test_eq "... m keeps 2 images" "$(field "$VG/m" stripes)" 2
test_eq "... its log written in sync again (the hold released)" "$(log_state)" "MiRr $NREG/$NREG"

# ---- lvconvert killed after write N, N = 1, 2, ... until its metadata is committed
n=0 committed=
while ((++n <= 64)); do
    rc=0
    LVX_TEST_CRASH_AFTER_WRITE=$n "$LVX" lvconvert -y -m +1 "$VG/m" "${DEVS[3]}" \
        >"$SCRATCH/c.out" 2>&1 || rc=$?
    if [[ $(field "$VG/m" stripes) == 3 ]]; then committed=$n; break; fi
    [[ $rc == 99 ]] || break
done
diag "lvconvert killed after write $n: exit $rc; $(head -c 300 "$SCRATCH/c.out")"
test_ok "a kill after write $n left the new metadata (3 images) on disk" test -n "$committed"
test_eq "... the log on disk says no region in sync (held before the commit)" \
    "$(log_state)" "MiRr 0/$NREG"
uspace_run_ok "m deactivated (the old state's stop writes its log)" lvx lvchange -an "$VG/m"
test_eq "... still no region in sync on disk" "$(log_state)" "MiRr 0/$NREG"
uspace_run_ok "m activated again" lvx lvchange -ay "$VG/m"
test_ok "m in sync again (copy_percent 100.00)" wait_copied
test_eq "m reads its data" "$(lv_sum "$VG/m")" "$(fsum "$SCRATCH/d")"
for img in m_mimage_0 m_mimage_1 m_mimage_2; do
    test_eq "$img holds it (read from its PV)" "$(mir_pv_sum "$VG" $img $((8 * MIB)))" \
        "$(fsum "$SCRATCH/d")"
done
uspace_run_ok "m flushed, deactivated" sh -c "sync && $LVX lvchange -an $VG/m"
test_eq "the log says every region in sync after the copy" "$(log_state)" "MiRr $NREG/$NREG"
done_testing
