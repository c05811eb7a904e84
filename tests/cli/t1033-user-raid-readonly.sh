#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1033-user-raid-readonly: a RAID LV the lvx daemon serves read-only (lv permission r)
# is neither resynced nor rebuilt (the daemon writes nothing through it).  A leg whose
# rebuild was not finished was still read, round robin, so a third of the reads
# returned what the new leg had not got yet (its zeros).  Now:
#   - raid1 r (16 MiB, in sync, random data) gets a third leg with --maxrecoveryrate
#     1m; r is deactivated mid-rebuild (sync_percent between 0 and 100) and activated
#     read-only: every read equals the data (the leg behind is not read), r is not
#     said in sync (sync_percent below 100, raid_sync_action frozen);
#   - lvconvert -m +1 of the read-only r is refused (lvx's line), lvchange --rebuild
#     too (LVM2's: not in sync), one line, exit 5, no metadata commit (seqno) and
#     nothing written to any PV;
#   - read-write again, the rebuild ends: sync_percent 100.00; read-only again, in
#     sync, lvchange --rebuild is refused with lvx's line; the three rimages hold the
#     data.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"
source "$LVX_ROOT/tests/tools/mirror_layer.sh"

VG=vgrro$$
uspace_test_loops "$VG" 4 48M
MIB=1048576
seqno() { "$LVX" vgs --noheadings -o vg_seqno "$VG" 2>/dev/null | tr -d ' '; }
RO_LINE="lvx cannot copy new images of $VG/r while it is active read-only: change it to read-write first."
refused() {  # refused DESC LINE CMD...: exit 5, the one error line LINE, no write
    local desc=$1 line=$2 s0 w0 rc=0
    shift 2
    s0=$(seqno) w0=$(mir_wsect_all "${DEVS[@]}")
    timeout 60 "$LVX" "$@" >"$SCRATCH/ro.out" 2>&1 || rc=$?
    test_eq "$desc: exit 5" "$rc" 5
    test_eq "... one error line: $line" \
        "$(grep -vc '^ *WARNING: ' "$SCRATCH/ro.out") $(grep -cxF "  $line" "$SCRATCH/ro.out")" \
        "1 1" || sed 's/^/# /' "$SCRATCH/ro.out"
    test_eq "... the metadata not committed (seqno $s0)" "$(seqno)" "$s0"
    test_eq "... nothing written to any PV" "$(mir_wsect_all "${DEVS[@]}")" "$w0"
}

uspace_run_ok "pvcreate, vgcreate" sh -c "$LVX pvcreate ${DEVS[*]} && $LVX vgcreate $VG ${DEVS[*]}"
uspace_run_ok "raid1 r: -m1, 16 MiB, 512 KiB regions, --maxrecoveryrate 1m, on D0 D1" \
    lvx lvcreate -Zn --type raid1 -m1 -L 16m -R 512k --maxrecoveryrate 1m -n r "$VG" \
    "${DEVS[0]}" "${DEVS[1]}"
for _ in $(seq 600); do [[ $(field "$VG/r" sync_percent) == 100.00 ]] && break; sleep 0.2; done
test_eq "r in sync" "$(field "$VG/r" sync_percent)" "100.00"
head -c $((16 * MIB)) /dev/urandom >"$SCRATCH/d"
uspace_run_ok "16 MiB of random data written to r" \
    dd if="$SCRATCH/d" of="$DM_DEV_DIR/$VG/r" bs=1M oflag=direct conv=fsync status=none
uspace_run_ok "lvconvert -y -m2 onto D2: a third leg, rebuilt at 1 MiB/s" \
    lvx lvconvert -y -m2 "$VG/r" "${DEVS[2]}"
pct=""
for _ in $(seq 100); do
    pct=$(field "$VG/r" sync_percent)
    [[ $pct != 0.00 && $pct != "" ]] && break; sleep 0.1
done
uspace_run_ok "r deactivated mid-rebuild (sync_percent was $pct)" lvx lvchange -an "$VG/r"
test_ok "... the rebuild had begun and not ended" \
    awk -v p="$pct" 'BEGIN { exit !(p > 0 && p < 100) }'
uspace_run_ok "r made read-only and activated (lvchange -pr, -ay)" sh -c \
    "$LVX lvchange -pr $VG/r && $LVX lvchange -ay $VG/r"
test_eq "lvx serves r read-only (lv_permissions, blockdev --getro)" \
    "$(field "$VG/r" lv_permissions) $(blockdev --getro "$DM_DEV_DIR/$VG/r")" "read-only 1"
sums=""
for i in 1 2 3 4 5 6; do sums+=" $(lv_sum "$VG/r")"; done
want=$(fsum "$SCRATCH/d")
test_eq "six reads of r, each equal to the data (the leg behind not read)" \
    "$sums" " $want $want $want $want $want $want"
ro_pct=$(field "$VG/r" sync_percent)
test_eq "r is not said in sync: sync_percent below 100 (it is $ro_pct), action frozen" \
    "$(awk -v p="$ro_pct" 'BEGIN { print (p < 100) }') $(field "$VG/r" raid_sync_action)" \
    "1 frozen"

refused "lvconvert -y -m +1 of read-only r" "$RO_LINE" lvconvert -y -m +1 "$VG/r" "${DEVS[3]}"
refused "lvchange -y --rebuild D1 of read-only r (LVM2's refusal: not in sync)" \
    "Unable to replace devices in $VG/r while it is not in-sync." \
    lvchange -y --rebuild "${DEVS[1]}" "$VG/r"
test_eq "r still three images" "$(field "$VG/r" stripes)" "3"

uspace_run_ok "r read-write again (lvchange -an, -prw, -ay)" sh -c \
    "$LVX lvchange -an $VG/r && $LVX lvchange -prw $VG/r && $LVX lvchange -ay $VG/r"
for _ in $(seq 600); do [[ $(field "$VG/r" sync_percent) == 100.00 ]] && break; sleep 0.2; done
test_eq "the rebuild ends: sync_percent 100.00, health ok" \
    "$(field "$VG/r" sync_percent) $(field "$VG/r" lv_health_status)" "100.00 "
test_eq "r reads its data" "$(lv_sum "$VG/r")" "$want"
uspace_run_ok "r read-only again, in sync (lvchange -an, -pr, -ay)" sh -c \
    "$LVX lvchange -an $VG/r && $LVX lvchange -pr $VG/r && $LVX lvchange -ay $VG/r"
test_eq "... sync_percent 100.00" "$(field "$VG/r" sync_percent)" "100.00"
refused "lvchange -y --rebuild D1 of read-only r, in sync" "$RO_LINE" \
    lvchange -y --rebuild "${DEVS[1]}" "$VG/r"
uspace_run_ok "deactivate" lvx vgchange -an "$VG"
for i in 0 1 2; do
    test_eq "r_rimage_$i holds the data (read from its PV)" \
        "$(mir_pv_sum "$VG" "r_rimage_$i" $((16 * MIB)))" "$want"
done
done_testing
