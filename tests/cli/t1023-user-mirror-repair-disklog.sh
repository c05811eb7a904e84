#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1023-user-mirror-repair-disklog: lvconvert -y --repair of a 3-image disk-log mirror
# served by the lvx daemon (user-space activation) that lost an image's PV: the two
# survivors keep their log, a new image (m_mimage_3, as LVM2 names it) goes to the free PV and
# is copied whole from image 0 while the survivors are not copied again (their
# regions stay in sync in the log: LVM2's temporary resync layer, whose poll lvx's
# lines end as).  Until this change lvx refused it ("only when it is inactive or has a
# core log"; the repair ended with 2 images).
#   Oracle of the metadata: LVM2 repairing a twin VG made the same way (inactive: it
#   writes its resync layer; tests/tools/mirror_layer.sh collapses it as its poll
#   does): the same images, names, PVs and log.  Data: the LV, and every image read
#   from its PV, hold the degraded writes; LVM2's vgck after vgreduce --removemissing.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"
source "$LVX_ROOT/tests/tools/mirror_layer.sh"

VG=vgumd$$
TW=vgumt$$
uspace_test_loops "$VG" 5 64M
TWD=()
for i in 0 1 2 3 4; do TWD+=("$(make_loop 64M)"); done
lvm_sandbox "${DEVS[@]}" "${TWD[@]}"
MIB=1048576
SEDA="s|${DEVS[4]}\\b|D4|g;s|${DEVS[3]}\\b|D3|g;s|${DEVS[2]}\\b|D2|g;s|${DEVS[1]}\\b|D1|g;s|${DEVS[0]}\\b|D0|g"
SEDB="s|${TWD[4]}\\b|D4|g;s|${TWD[3]}\\b|D3|g;s|${TWD[2]}\\b|D2|g;s|${TWD[1]}\\b|D1|g;s|${TWD[0]}\\b|D0|g"

uspace_run_ok "pvcreate, vgcreate" sh -c "$LVX pvcreate ${DEVS[*]} && $LVX vgcreate $VG ${DEVS[*]}"
uspace_run_ok "mirror m (-m2, 16 MiB, images on D0 D1 D2, log on D3)" \
    lvx lvcreate -Zn --type mirror -m2 -L 16m -n m "$VG" "${DEVS[0]}" "${DEVS[1]}" "${DEVS[2]}" "${DEVS[3]}"
# the twin: lvx makes it the same way (LVM2 here has no device-mapper to make a mirror)
TWC=(--devices "$(IFS=,; echo "${TWD[*]}")")
LVM_SYSTEM_DIR=$SCRATCH/lvm "$LVX" pvcreate "${TWC[@]}" "${TWD[@]}" >/dev/null 2>&1
LVM_SYSTEM_DIR=$SCRATCH/lvm "$LVX" vgcreate "${TWC[@]}" "$TW" "${TWD[@]}" >/dev/null 2>&1
LVM_SYSTEM_DIR=$SCRATCH/lvm "$LVX" lvcreate "${TWC[@]}" --config global/activation=1 -an -Zn \
    --type mirror -m2 -L 16m -n m "$TW" "${TWD[0]}" "${TWD[1]}" "${TWD[2]}" "${TWD[3]}" >/dev/null 2>&1
test_eq "the twin has the same layout" "$(mir_layout "$TW" "$SEDB")" "$(mir_layout "$VG" "$SEDA")"
test_eq "m's images on D0 D1 D2, its log on D3" "$(mir_layout "$VG" "$SEDA" | paste -sd' ')" \
    "m log=m_mlog m_mimage_0,m_mimage_1,m_mimage_2 m_mimage_0 log= D0 m_mimage_1 log= D1 m_mimage_2 log= D2 m_mlog log= D3"
head -c $((16 * MIB)) /dev/urandom >"$SCRATCH/d1"
uspace_run_ok "16 MiB written to m" \
    dd if="$SCRATCH/d1" of="$DM_DEV_DIR/$VG/m" bs=1M oflag=direct conv=fsync status=none

# ---- D1 (m_mimage_1's PV) goes missing, on both VGs
keep=("${DEVS[0]}" "${DEVS[2]}" "${DEVS[3]}" "${DEVS[4]}")
tkeep=("${TWD[0]}" "${TWD[2]}" "${TWD[3]}" "${TWD[4]}")
HIDE="--devices=$(IFS=,; echo "${keep[*]}")"
uspace_run_ok "deactivate m" lvx vgchange -an "$VG"
lvm_sandbox "${keep[@]}" "${tkeep[@]}"
uspace_run_ok "activate m with D1 missing (--activationmode partial)" \
    lvx vgchange -ay --activationmode partial "$HIDE" "$VG"
# its first 4 MiB written while degraded: only those regions are out of sync in the log
cp "$SCRATCH/d1" "$SCRATCH/d2"
head -c $((4 * MIB)) /dev/urandom | dd of="$SCRATCH/d2" conv=notrunc status=none
uspace_run_ok "4 MiB written to the degraded m" \
    dd if="$SCRATCH/d2" of="$DM_DEV_DIR/$VG/m" bs=1M count=4 oflag=direct conv=fsync status=none
w0=$(mir_wsect "${DEVS[0]}") w2=$(mir_wsect "${DEVS[2]}") w4=$(mir_wsect "${DEVS[4]}")
rc=0
lvx lvconvert -y --repair "$HIDE" "$VG/m" >"$SCRATCH/rep.out" 2>&1 || rc=$?
diag "$(cat "$SCRATCH/rep.out")"
w0=$(($(mir_wsect "${DEVS[0]}") - w0)) w2=$(($(mir_wsect "${DEVS[2]}") - w2))
w4=$(($(mir_wsect "${DEVS[4]}") - w4))
diag "sectors written by the repair: D0 $w0, D2 $w2, D4 $w4"
rcb=0
lvm2 lvconvert -y --repair "$TW/m" >"$SCRATCH/twin.out" 2>&1 || rcb=$?
diag "LVM2 on the twin: $(cat "$SCRATCH/twin.out")"
diag "LVM2's layout of the twin: $(lvm2 lvs -a -o lv_name,mirror_log,devices "$TW" 2>/dev/null)"
mir_same_as_twin "lvconvert -y --repair of the active m" m "$rc" "$SCRATCH/rep.out" "$rcb" \
    "$SCRATCH/twin.out" "Couldn't find device" "is missing PV"
mir_copied "$VG" "$TW" "$SCRATCH/d2" "a new m_mimage_3 on D4 after the survivors, the log kept on D3" \
    "m log=m_mlog m_mimage_0,m_mimage_2,m_mimage_3 m_mimage_0 log= D0 m_mimage_2 log= D2 m_mimage_3 log= D4 m_mlog log= D3" \
    m_mimage_0 m_mimage_2 m_mimage_3
test_ok "the new image was copied whole: 16 MiB or more written to D4 ($w4 sectors)" \
    test "$w4" -ge $((16 * MIB / 512))
test_ok "the survivors were copied only where written degraded: D0 (the source) under 1 MiB, D2 under 5 MiB ($w0, $w2 sectors)" \
    test "$w0" -lt 2048 -a "$w2" -lt $((5 * MIB / 512))
read -r magic nreg _ nsync < <(mir_log_synced "$VG" m_mlog)
test_eq "the log (dm-log on D3) says every region in sync" "$magic $nsync" "MiRr $nreg"
test_eq "lvx: copy_percent 100.00, 3 images" \
    "$(field "$VG/m" copy_percent)/$(field "$VG/m" stripes)" "100.00/3"
uspace_run_ok "vgreduce --removemissing (the lost PV out of the VG)" \
    lvx vgreduce --removemissing "$HIDE" "$VG"
test_ok "LVM2's vgck" lvm2 vgck "$VG"
uspace_run_ok "m deactivated and activated again" \
    sh -c "$LVX vgchange -an $HIDE $VG && $LVX vgchange -ay $HIDE $VG"
test_eq "m reads the degraded writes" "$(lv_sum "$VG/m")" "$(fsum "$SCRATCH/d2")"
uspace_run_ok "deactivate" lvx vgchange -an "$HIDE" "$VG"
LVM_SYSTEM_DIR=$SCRATCH/lvm "$LVX" vgremove -ff --devices "$(IFS=,; echo "${tkeep[*]}")" "$TW" \
    >/dev/null 2>&1
done_testing
