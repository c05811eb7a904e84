#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1104-user-mirror-repair-layer: lvconvert -y --repair of a 3-image disk-log mirror
# active in lvx's user backend that lost an image's PV writes LVM2's resync layer
# (docs/mirror-layer.md 1.1: _lvconvert_mirrors_repair goes through
# _lvconvert_mirrors_aux): m over m_mimagetmp_3 (the survivors m_mimage_0, m_mimage_2
# with m_mlog) and the new m_mimage_3, which LVM2 reads while the daemon copies it;
# then LVM2's poll lines and the live collapse (three images over m_mlog).  Before, lvx
# wrote the collapsed layout at once with its log "hold".  The data (written degraded
# too) is on every image, the log in sync; vgreduce --removemissing, LVM2's vgck.
# (t1023 compares the same repair's result with LVM2's on a twin VG.)
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"
source "$LVX_ROOT/tests/tools/mirror_layer.sh"

VG=vgurl$$
uspace_test_loops "$VG" 5 48M
MIB=1048576
devs() { lvm2 lvs --nolocking --noheadings -o devices "$VG/$1" 2>/dev/null | tr -d ' '; }

uspace_run_ok "pvcreate, vgcreate" sh -c "$LVX pvcreate ${DEVS[*]} && $LVX vgcreate $VG ${DEVS[*]}"
uspace_run_ok "mirror m (-m2, 8 MiB, -R 64k, images on D0 D1 D2, log on D3)" \
    lvx lvcreate -Zn --type mirror -m2 -L 8m -R 64k -n m "$VG" "${DEVS[0]}" "${DEVS[1]}" \
    "${DEVS[2]}" "${DEVS[3]}"
head -c $((8 * MIB)) /dev/urandom >"$SCRATCH/d1"
uspace_run_ok "8 MiB written to m" \
    dd if="$SCRATCH/d1" of="$DM_DEV_DIR/$VG/m" bs=1M oflag=direct conv=fsync status=none
uspace_stop_daemon "$VG"

# ---- D1 (m_mimage_1's PV) goes missing
keep=("${DEVS[0]}" "${DEVS[2]}" "${DEVS[3]}" "${DEVS[4]}")
HIDE="--devices=$(IFS=,; echo "${keep[*]}")"
lvm_sandbox "${keep[@]}"
LVX_TEST_DP_FAULT="pv=${DEVS[4]},op=write,kind=delay=30" \
    lvx vgchange -ay --activationmode partial "$HIDE" "$VG" >"$SCRATCH/a.out" 2>&1
_tap_result $? "m activated with D1 missing (--activationmode partial; writes to D4 slowed)"
cp "$SCRATCH/d1" "$SCRATCH/d2"
head -c $((2 * MIB)) /dev/urandom | dd of="$SCRATCH/d2" conv=notrunc status=none
uspace_run_ok "2 MiB written to the degraded m" \
    dd if="$SCRATCH/d2" of="$DM_DEV_DIR/$VG/m" bs=1M count=2 oflag=direct conv=fsync status=none
s0=$(lvm2 vgs --noheadings -o vg_seqno "$VG" 2>/dev/null | tr -d ' ')
lvx lvconvert -y --repair "$HIDE" "$VG/m" >"$SCRATCH/rep.out" 2>&1 &
cpid=$!
seen=$(mir_seen_devs "$VG" m "m_mimagetmp_3(0),m_mimage_3(0)")
test_eq "while the new image is copied, LVM2 reads m over its resync layer" "$seen" \
    "m_mimagetmp_3(0),m_mimage_3(0)"
test_eq "... the layer: the survivors and m_mlog" \
    "$(lvm2 lvs -a --nolocking --noheadings -o devices,mirror_log "$VG/m_mimagetmp_3" 2>/dev/null |
       tr -d ' ')" "m_mimage_0(0),m_mimage_2(0)[m_mlog]"
test_eq "... m_mimage_3 on D4" \
    "$(lvm2 lvs -a --nolocking --noheadings -o devices "$VG/m_mimage_3" 2>/dev/null | tr -d " ")" \
    "${DEVS[4]}(0)"
rc=0
wait $cpid || rc=$?
test_eq "lvconvert -y --repair: LVM2's lines, its poll's end" \
    "$rc $(grep -v -e "NOT backed up" -e "Couldn't find device" -e "is missing PV" "$SCRATCH/rep.out")" \
    "0   Mirror status: 1 of 3 images failed.
  WARNING: Trying to up-convert to 3 images, 1 logs.
  $VG/m: Converted: 100.00%
  Logical volume $VG/m converted."
test_eq "m collapsed: the survivors and m_mimage_3 over m_mlog (LVM2 reads)" \
    "$(devs m)/$(lvm2 lvs --noheadings -o mirror_log "$VG/m" 2>/dev/null | tr -d ' ')" \
    "m_mimage_0(0),m_mimage_2(0),m_mimage_3(0)/[m_mlog]"
test_ok "seqno moved on ($s0 -> $(lvm2 vgs --noheadings -o vg_seqno "$VG" 2>/dev/null | tr -d ' '))" \
    test "$(lvm2 vgs --noheadings -o vg_seqno "$VG" 2>/dev/null | tr -d ' ')" -gt "$s0"
test_eq "m reads the degraded writes" "$(lv_sum "$VG/m")" "$(fsum "$SCRATCH/d2")"
uspace_run_ok "deactivated" lvx vgchange -an "$HIDE" "$VG"
for img in m_mimage_0 m_mimage_2 m_mimage_3; do
    test_eq "$img holds m's data (read from its PV)" "$(mir_pv_sum "$VG" $img $((8 * MIB)))" \
        "$(fsum "$SCRATCH/d2")"
done
read -r magic nreg _ nsync < <(mir_log_synced "$VG" m_mlog)
test_eq "m_mlog says every region in sync" "$magic $nsync" "MiRr $nreg"
uspace_run_ok "vgreduce --removemissing" lvx vgreduce --removemissing "$HIDE" "$VG"
test_ok "LVM2's vgck" lvm2 vgck "$VG"
done_testing
