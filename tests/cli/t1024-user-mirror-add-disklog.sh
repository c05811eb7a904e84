#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1024-user-mirror-add-disklog: lvconvert -m +1 of a 2-image disk-log mirror served by
# the lvx daemon (user-space activation): the new image (m_mimage_2) goes to the PV
# holding none of the mirror, the log stays, the daemon copies every region to the new
# image and none to the old ones (in sync in the log: what LVM2's temporary resync
# layer copies), lvconvert waits for the copy and ends with the lines of LVM2's poll.
# Until this change lvx refused it ("only with a core log in the user backend").
#   Oracle of the metadata: LVM2's lvconvert -m +1 of a twin VG made the same way
#   (inactive: it writes its resync layer; tests/tools/mirror_layer.sh collapses it as
#   its poll does).  Data: the LV and each image read from its PV, before and after
#   writes made once the image was added; LVM2's vgck.  The same for a mirror with a
#   mirrored log (its log mirror kept, written alike on both its images).
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"
source "$LVX_ROOT/tests/tools/mirror_layer.sh"

VG=vguma$$
TW=vgumb$$
uspace_test_loops "$VG" 5 64M
TWD=()
for i in 0 1 2 3 4; do TWD+=("$(make_loop 64M)"); done
lvm_sandbox "${DEVS[@]}" "${TWD[@]}"
MIB=1048576
SEDA="s|${DEVS[4]}\\b|D4|g;s|${DEVS[3]}\\b|D3|g;s|${DEVS[2]}\\b|D2|g;s|${DEVS[1]}\\b|D1|g;s|${DEVS[0]}\\b|D0|g"
SEDB="s|${TWD[4]}\\b|D4|g;s|${TWD[3]}\\b|D3|g;s|${TWD[2]}\\b|D2|g;s|${TWD[1]}\\b|D1|g;s|${TWD[0]}\\b|D0|g"

uspace_run_ok "pvcreate, vgcreate" sh -c "$LVX pvcreate ${DEVS[*]} && $LVX vgcreate $VG ${DEVS[*]}"
uspace_run_ok "mirror m (-m1, 16 MiB, images on D0 D1, log on D2)" \
    lvx lvcreate -Zn --type mirror -m1 -L 16m -n m "$VG" "${DEVS[0]}" "${DEVS[1]}" "${DEVS[2]}"
# the twin: lvx makes it the same way (LVM2 here has no device-mapper to make a mirror)
TWC=(--devices "$(IFS=,; echo "${TWD[*]}")")
LVM_SYSTEM_DIR=$SCRATCH/lvm "$LVX" pvcreate "${TWC[@]}" "${TWD[@]}" >/dev/null 2>&1
LVM_SYSTEM_DIR=$SCRATCH/lvm "$LVX" vgcreate "${TWC[@]}" "$TW" "${TWD[@]}" >/dev/null 2>&1
LVM_SYSTEM_DIR=$SCRATCH/lvm "$LVX" lvcreate "${TWC[@]}" --config global/activation=1 -an -Zn \
    --type mirror -m1 -L 16m -n m "$TW" "${TWD[0]}" "${TWD[1]}" "${TWD[2]}" >/dev/null 2>&1
test_eq "the twin has the same layout" "$(mir_layout "$TW" "$SEDB")" "$(mir_layout "$VG" "$SEDA")"
head -c $((16 * MIB)) /dev/urandom >"$SCRATCH/d1"
uspace_run_ok "16 MiB written to m" \
    dd if="$SCRATCH/d1" of="$DM_DEV_DIR/$VG/m" bs=1M oflag=direct conv=fsync status=none

w0=$(mir_wsect "${DEVS[0]}") w1=$(mir_wsect "${DEVS[1]}") w3=$(mir_wsect "${DEVS[3]}")
rc=0
lvx lvconvert -m +1 "$VG/m" >"$SCRATCH/conv.out" 2>&1 || rc=$?
diag "$(cat "$SCRATCH/conv.out")"
w0=$(($(mir_wsect "${DEVS[0]}") - w0)) w1=$(($(mir_wsect "${DEVS[1]}") - w1))
w3=$(($(mir_wsect "${DEVS[3]}") - w3))
diag "sectors written by the conversion: D0 $w0, D1 $w1, D3 $w3"
rcb=0
lvm2 lvconvert -m +1 "$TW/m" >"$SCRATCH/twin.out" 2>&1 || rcb=$?
diag "LVM2 on the twin: $(cat "$SCRATCH/twin.out")"
diag "LVM2's layout of the twin: $(lvm2 lvs -a -o lv_name,mirror_log,devices "$TW" 2>/dev/null)"
mir_same_as_twin "lvconvert -m +1 of the active m" m "$rc" "$SCRATCH/conv.out" "$rcb" "$SCRATCH/twin.out"
mir_copied "$VG" "$TW" "$SCRATCH/d1" "m_mimage_2 on D3 after the others, the log kept on D2" \
    "m log=m_mlog m_mimage_0,m_mimage_1,m_mimage_2 m_mimage_0 log= D0 m_mimage_1 log= D1 m_mimage_2 log= D3 m_mlog log= D2" \
    m_mimage_0 m_mimage_1 m_mimage_2
test_ok "the new image was copied whole: 16 MiB or more written to D3 ($w3 sectors)" \
    test "$w3" -ge $((16 * MIB / 512))
test_ok "the old images were not copied again: under 1 MiB written to D0, D1 ($w0, $w1 sectors)" \
    test "$w0" -lt 2048 -a "$w1" -lt 2048
read -r magic nreg _ nsync < <(mir_log_synced "$VG" m_mlog)
test_eq "the log (dm-log on D2) says every region in sync" "$magic $nsync" "MiRr $nreg"
test_eq "lvx: copy_percent 100.00, 3 images" \
    "$(field "$VG/m" copy_percent)/$(field "$VG/m" stripes)" "100.00/3"

# ---- writes after the conversion reach the new image too
head -c $((16 * MIB)) /dev/urandom >"$SCRATCH/d2"
uspace_run_ok "16 MiB written to m" \
    dd if="$SCRATCH/d2" of="$DM_DEV_DIR/$VG/m" bs=1M oflag=direct conv=fsync status=none
uspace_run_ok "m deactivated and activated again" \
    sh -c "$LVX vgchange -an $VG && $LVX vgchange -ay $VG"
test_eq "m reads the new data" "$(lv_sum "$VG/m")" "$(fsum "$SCRATCH/d2")"
for img in m_mimage_0 m_mimage_1 m_mimage_2; do
    test_eq "$img holds it (read from its PV)" \
        "$(mir_pv_sum "$VG" $img $((16 * MIB)))" "$(fsum "$SCRATCH/d2")"
done

# ---- a mirrored log (global/support_mirrored_mirror_log): kept the same way
ML=(--config "global/support_mirrored_mirror_log=1")
uspace_run_ok "mirror k (-m1 --mirrorlog mirrored, 8 MiB)" \
    lvx lvcreate "${ML[@]}" -Zn --type mirror -m1 --mirrorlog mirrored -L 8m -n k "$VG"
LVM_SYSTEM_DIR=$SCRATCH/lvm "$LVX" lvcreate "${TWC[@]}" \
    --config "global/activation=1 global/support_mirrored_mirror_log=1" -an -Zn --type mirror -m1 --mirrorlog mirrored -L 8m -n k "$TW" >/dev/null 2>&1
test_eq "the twin's k has the same layout" "$(mir_layout "$TW" "$SEDB" | grep '^k')" \
    "$(mir_layout "$VG" "$SEDA" | grep '^k')"
head -c $((8 * MIB)) /dev/urandom >"$SCRATCH/k1"
uspace_run_ok "8 MiB written to k" \
    dd if="$SCRATCH/k1" of="$DM_DEV_DIR/$VG/k" bs=1M oflag=direct conv=fsync status=none
declare -A before
for d in "${DEVS[@]}"; do before[$d]=$(mir_wsect "$d"); done
rc=0
lvx lvconvert -m +1 "$VG/k" >"$SCRATCH/convk.out" 2>&1 || rc=$?
diag "$(cat "$SCRATCH/convk.out")"
rcb=0
lvm2 lvconvert -m +1 "$TW/k" >"$SCRATCH/twink.out" 2>&1 || rcb=$?
diag "LVM2's layout of the twin: $(lvm2 lvs -a -o lv_name,mirror_log,devices "$TW" 2>/dev/null)"
mir_same_as_twin "lvconvert -m +1 of the active k" k "$rc" "$SCRATCH/convk.out" "$rcb" "$SCRATCH/twink.out"
test_eq "the layout LVM2 reads: LVM2's on the twin once collapsed (the mirrored log kept)" \
    "$(mir_layout "$VG" "$SEDA" | grep '^k')" "$(mir_layout "$TW" "$SEDB" | grep '^k')"
newpv=$(mir_where "$VG" k_mimage_2)
old_w=0
for img in k_mimage_0 k_mimage_1; do
    d=$(mir_where "$VG" $img)
    old_w=$((old_w + $(mir_wsect "$d") - before[$d]))
done
new_w=$(($(mir_wsect "$newpv") - before[$newpv]))
diag "sectors written: the new image's PV $new_w, the old images' PVs $old_w"
test_ok "the new image was copied whole ($new_w sectors), the old ones not again ($old_w)" \
    test "$new_w" -ge $((8 * MIB / 512)) -a "$old_w" -lt 2048
for img in k_mimage_0 k_mimage_1 k_mimage_2; do
    test_eq "$img holds k's data (read from its PV)" \
        "$(mir_pv_sum "$VG" $img $((8 * MIB)))" "$(fsum "$SCRATCH/k1")"
done
for l in k_mlog_mimage_0 k_mlog_mimage_1; do
    read -r magic nreg _ nsync < <(mir_log_synced "$VG" $l)
    test_eq "$l says every region in sync" "$magic $nsync" "MiRr $nreg"
done
test_ok "LVM2's vgck" lvm2 vgck "$VG"
uspace_run_ok "deactivate" lvx vgchange -an "$VG"
LVM_SYSTEM_DIR=$SCRATCH/lvm "$LVX" vgremove -ff "${TWC[@]}" "$TW" >/dev/null 2>&1
done_testing
