#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1032-user-mirror-log-hold: a live lvconvert -m +1 of a disk-log mirror served by the
# lvx daemon commits metadata that lists a new, not yet copied image.  Until the log
# "hold" (review s7 B1) the log on disk said "in sync" across that commit for the
# collapsed layout, so an lvconvert that died right after its commit left the new
# image counted in sync and never copied.  The hold wrote the log all out of sync
# before the commit.  Now (docs/mirror-layer.md step 5) lvconvert writes LVM2's resync
# layer (m over m_mimagetmp_2 and m_mimage_2, the layer keeping the log), whose log
# speaks for the old images only, as LVM2's does: no hold is needed.
#   * a failed commit (LVX_TEST_FAIL_WRITE=1): m keeps 2 images, the log in sync;
#   * lvconvert killed after each of its writes in turn (LVX_TEST_CRASH_AFTER_WRITE=N)
#     until the new metadata is on disk: the layer is there, the log still says every
#     region in sync (the old images agree; the new one is the top's, copied whole),
#     also after the deactivation that follows (held: 0 in sync on the hold's binary);
#   * activated again (the layer served), `lvconvert VG/m` waits and collapses it;
#     read from its PV each image holds m's data.
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
test_eq "... its log in sync" "$(log_state)" "MiRr $NREG/$NREG"

# ---- lvconvert killed after write N, N = 1, 2, ... until its metadata is committed
n=0 committed=
while ((++n <= 64)); do
    rc=0
    LVX_TEST_CRASH_AFTER_WRITE=$n "$LVX" lvconvert -y -m +1 "$VG/m" "${DEVS[3]}" \
        >"$SCRATCH/c.out" 2>&1 || rc=$?
    if [[ $(field "$VG/m" devices) == m_mimagetmp_2* ]]; then committed=$n; break; fi
    [[ $rc == 99 ]] || break
done
diag "lvconvert killed after write $n: exit $rc; $(head -c 300 "$SCRATCH/c.out")"
test_ok "a kill after write $n left the new metadata (the layer) on disk" test -n "$committed"
test_eq "... the log on disk still says every region in sync (the layer's: no hold)" \
    "$(log_state)" "MiRr $NREG/$NREG"
uspace_run_ok "m deactivated (the old state's stop writes its log)" lvx lvchange -an "$VG/m"
test_eq "... still every region in sync on disk" "$(log_state)" "MiRr $NREG/$NREG"
uspace_run_ok "m activated again (the layer served)" lvx lvchange -ay "$VG/m"
uspace_run_ok "lvconvert $VG/m: the new image copied, the layer collapsed" lvx lvconvert "$VG/m"
test_eq "m has 3 images, in sync" "$(field "$VG/m" stripes)/$(field "$VG/m" copy_percent)" \
    "3/100.00"
test_eq "m reads its data" "$(lv_sum "$VG/m")" "$(fsum "$SCRATCH/d")"
for img in m_mimage_0 m_mimage_1 m_mimage_2; do
    test_eq "$img holds it (read from its PV)" "$(mir_pv_sum "$VG" $img $((8 * MIB)))" \
        "$(fsum "$SCRATCH/d")"
done
uspace_run_ok "m flushed, deactivated" sh -c "sync && $LVX lvchange -an $VG/m"
test_eq "the log says every region in sync after the copy" "$(log_state)" "MiRr $NREG/$NREG"
done_testing
