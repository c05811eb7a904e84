#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0684-user-mirror-repair: lvconvert --repair of old-style mirrors served by the lvx
# daemon (user-space activation), four 64 MiB loop devices, LVM2 (activation off) as
# the oracle of the resulting metadata (vgck, lvs -a):
#   - a 2-image mirror loses a leg's PV: partial activation (LVM2's mode for mirrors), 16 MiB written, then
#     lvconvert -y --repair: a new image on a PV left and a new log, the daemon
#     reloads onto them (the new image copied from the survivor before the reload
#     returns); the LV reads the degraded writes, the new image holds them (read
#     straight from its PV), LVM2 sees the same layout;
#   - a second mirror, --repair --use-policies (image policy "remove"): it becomes its
#     surviving leg, active and linear, reading its data;
#   - a 3-image mirror with a core log loses a leg: lvconvert -y --repair gives it a
#     third image again (t_mimage_3: one above the highest name in use, as LVM2's
#     generate_lv_name; on the PV left without one), copied from image 0 at the reload;
#   - vgreduce --removemissing then drops the lost PV.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

VG=vgumr$$
uspace_test_loops "$VG" 4 64M
MIB=1048576
where() {  # where SUBLV: the PV LVM2 places it on (first segment)
    lvm2 lvs -a --noheadings -o devices "$VG/$1" 2>/dev/null | tr -d ' ' | sed 's/(.*//'
}
pe_start() {  # pe_start SUBLV: its first PE on that PV
    lvm2 lvs -a --noheadings -o devices "$VG/$1" 2>/dev/null | tr -d ' ' | sed 's/.*(\(.*\))/\1/'
}
pv_read_sum() {  # pv_read_sum SUBLV BYTES: sha256 of the sub-LV read from its PV
    local pv start off
    pv=$(where "$1")
    start=$(pe_start "$1")
    off=$(lvm2 pvs --noheadings --units b --nosuffix -o pe_start "$pv" 2>/dev/null | tr -d ' ')
    dd if="$pv" bs=1M iflag=direct,skip_bytes,count_bytes skip=$((off + start * 4 * MIB)) \
        count="$2" status=none | sha256sum | cut -d' ' -f1
}

uspace_run_ok "pvcreate, vgcreate" sh -c "$LVX pvcreate ${DEVS[*]} && $LVX vgcreate $VG ${DEVS[*]}"
uspace_run_ok "mirror m (-m1, 16 MiB, legs on the first two PVs, log on the third)" \
    lvx lvcreate -Zn --type mirror -m1 -L 16m -n m "$VG" "${DEVS[0]}" "${DEVS[1]}" "${DEVS[2]}"
uspace_run_ok "mirror p (-m1, 8 MiB, same PVs)" \
    lvx lvcreate -Zn --type mirror -m1 -L 8m -n p "$VG" "${DEVS[0]}" "${DEVS[1]}" "${DEVS[2]}"
uspace_run_ok "mirror t (-m2 --corelog, 8 MiB, on the first three PVs)" \
    lvx lvcreate -Zn --type mirror -m2 --corelog -L 8m -n t "$VG" "${DEVS[0]}" "${DEVS[1]}" "${DEVS[2]}"
head -c $((16 * MIB)) /dev/urandom >"$SCRATCH/d1"
head -c $((8 * MIB)) /dev/urandom >"$SCRATCH/p1"
head -c $((8 * MIB)) /dev/urandom >"$SCRATCH/t1"
uspace_run_ok "8 MiB written to t" \
    dd if="$SCRATCH/t1" of="$DM_DEV_DIR/$VG/t" bs=1M oflag=direct conv=fsync status=none
uspace_run_ok "16 MiB written to m, 8 MiB to p" sh -c \
    "dd if=$SCRATCH/d1 of=$DM_DEV_DIR/$VG/m bs=1M oflag=direct conv=fsync status=none &&
     dd if=$SCRATCH/p1 of=$DM_DEV_DIR/$VG/p bs=1M oflag=direct conv=fsync status=none"
test_eq "m_mimage_1 is on ${DEVS[1]}" "$(where m_mimage_1)" "${DEVS[1]}"

# ---- the second leg's PV goes missing
lost=${DEVS[1]}
keep=("${DEVS[0]}" "${DEVS[2]}" "${DEVS[3]}")
HIDE="--devices=$(IFS=,; echo "${keep[*]}")"
uspace_run_ok "deactivate m and p" lvx vgchange -an "$VG"
lvm_sandbox "${keep[@]}"
uspace_run_ok "activate m and p with $lost missing (--activationmode partial)" \
    lvx vgchange -ay --activationmode partial "$HIDE" "$VG"
head -c $((16 * MIB)) /dev/urandom >"$SCRATCH/d2"
uspace_run_ok "16 MiB written to the degraded m" \
    dd if="$SCRATCH/d2" of="$DM_DEV_DIR/$VG/m" bs=1M oflag=direct conv=fsync status=none
rc=0
lvx lvconvert -y --repair "$HIDE" "$VG/m" >"$SCRATCH/rep.out" 2>&1 || rc=$?
diag "$(cat "$SCRATCH/rep.out")"
test_eq "lvconvert -y --repair of the active m: exit 0" "$rc" 0
test_eq "... LVM2's lines (no conversion polled: copied at the reload)" \
    "$(sandbox_noise <"$SCRATCH/rep.out" | grep -v -e "Couldn't find device" -e "is missing PV")" \
    "  Mirror status: 1 of 2 images failed.
  WARNING: Trying to up-convert to 2 images, 1 logs."
new=$(where m_mimage_1)
test_ok "the new image is on a PV left ($new)" test -n "$new" -a "$new" != "$lost"
test_ok "m has a log again" test -n "$(where m_mlog)"
test_eq "m reads the degraded writes" "$(lv_sum "$VG/m")" "$(fsum "$SCRATCH/d2")"
test_eq "the new image holds them (read from its PV)" \
    "$(pv_read_sum m_mimage_1 $((16 * MIB)))" "$(fsum "$SCRATCH/d2")"
test_eq "the survivor too" "$(pv_read_sum m_mimage_0 $((16 * MIB)))" "$(fsum "$SCRATCH/d2")"
test_eq "LVM2: m is a mirror of 2 images with a log" \
    "$(lvm2 lvs --noheadings -o segtype,stripes,mirror_log "$VG/m" 2>/dev/null | tr -s ' ')" \
    " mirror 2 [m_mlog]"

# ---- --use-policies: p becomes its surviving leg
rc=0
lvx lvconvert -y --repair --use-policies "$HIDE" "$VG/p" >"$SCRATCH/rep2.out" 2>&1 || rc=$?
diag "$(cat "$SCRATCH/rep2.out")"
test_eq "lvconvert --repair --use-policies of the active p: exit 0" "$rc" 0
test_eq "LVM2: p is linear, on ${DEVS[0]}" \
    "$(lvm2 lvs --noheadings -o segtype,devices "$VG/p" 2>/dev/null | tr -s ' ' | sed 's/(.*//')" \
    " linear ${DEVS[0]}"
test_eq "p reads its data" "$(lv_sum "$VG/p")" "$(fsum "$SCRATCH/p1")"
test_eq "p is active as lvx reports it" "$(field "$VG/p" lv_active $HIDE)" "active"
# ---- a 3-image mirror keeps its 2 survivors and gets a third image again: t_mimage_3,
# on the one PV holding none of its images, copied from image 0
head -c $((8 * MIB)) /dev/urandom >"$SCRATCH/t2"
uspace_run_ok "8 MiB written to the degraded t" \
    dd if="$SCRATCH/t2" of="$DM_DEV_DIR/$VG/t" bs=1M oflag=direct conv=fsync status=none
rc=0
lvx lvconvert -y --repair "$HIDE" "$VG/t" >"$SCRATCH/rep3.out" 2>&1 || rc=$?
diag "$(cat "$SCRATCH/rep3.out")"
test_eq "lvconvert -y --repair of the active 3-image t: exit 0, LVM2's lines" \
    "$rc $(sandbox_noise <"$SCRATCH/rep3.out" | grep -v -e "Couldn't find device" -e "is missing PV")" \
    "0   Mirror status: 1 of 3 images failed.
  WARNING: Trying to up-convert to 3 images, 0 logs."
test_eq "LVM2: t is a mirror of 3 images, t_mimage_0/2/3" \
    "$(lvm2 lvs -a --noheadings -o lv_name,stripes "$VG" 2>/dev/null | tr -s ' ' | grep -e ' t ' -e 't_mimage' | sort)" \
    " [t_mimage_0] 1
 [t_mimage_2] 1
 [t_mimage_3] 1
 t 3"
test_eq "t_mimage_3 is new, on ${DEVS[3]}" "$(where t_mimage_3)" "${DEVS[3]}"
test_eq "t reads the degraded writes" "$(lv_sum "$VG/t")" "$(fsum "$SCRATCH/t2")"
test_eq "the new image holds them (read from its PV)" \
    "$(pv_read_sum t_mimage_3 $((8 * MIB)))" "$(fsum "$SCRATCH/t2")"
test_eq "the other survivor too" "$(pv_read_sum t_mimage_2 $((8 * MIB)))" "$(fsum "$SCRATCH/t2")"
uspace_run_ok "vgreduce --removemissing (the lost PV out of the VG)" \
    lvx vgreduce --removemissing "$HIDE" "$VG"
test_ok "LVM2's vgck" lvm2 vgck "$VG"
uspace_run_ok "m and p deactivated and activated again" \
    sh -c "$LVX vgchange -an $HIDE $VG && $LVX vgchange -ay $HIDE $VG"
test_eq "m reads the degraded writes" "$(lv_sum "$VG/m")" "$(fsum "$SCRATCH/d2")"
test_eq "p reads its data" "$(lv_sum "$VG/p")" "$(fsum "$SCRATCH/p1")"
test_eq "t reads its data" "$(lv_sum "$VG/t")" "$(fsum "$SCRATCH/t2")"
uspace_run_ok "deactivate" lvx vgchange -an "$HIDE" "$VG"
done_testing
