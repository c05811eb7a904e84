#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1031-user-mirror-readonly: new images of a mirror the lvx daemon serves read-only
# (lv permission r) would never be copied -- the daemon writes nothing through such an
# LV -- so lvconvert -m +N, a linear LV's -m1 and a repair that adds an image waited
# for ever (review s7 R7); a linear LV's -m1 to raid1 (the default type) said in sync
# at once and its reads returned the new image's zeros.  They are refused now, one
# line (WARNINGs and LVM2's "Mirror status" aside), exit 5, before any write:
# the metadata's seqno and every PV's written-sector count unchanged.  The same
# -m +1 once the LV is read-write again is copied and the data kept.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"
source "$LVX_ROOT/tests/tools/mirror_layer.sh"

VG=vgumro$$
uspace_test_loops "$VG" 5 32M
MIB=1048576
seqno() { "$LVX" vgs --noheadings -o vg_seqno "$@" "$VG" 2>/dev/null | tr -d ' '; }
refused() {  # refused DESC LV CMD...: exit 5, the line, no write
    local desc=$1 lv=$2 s0 w0 rc=0
    shift 2
    s0=$(seqno "${HIDE[@]}") w0=$(mir_wsect_all "${DEVS[@]}")
    timeout 60 "$LVX" "$@" >"$SCRATCH/ro.out" 2>&1 || rc=$?
    test_eq "$desc: exit 5 (124 is the old wait that never ends)" "$rc" 5
    test_eq "... one error line, naming the LV (other lines only WARNINGs)" \
        "$(grep -vc '^ *WARNING: \|^ *Mirror status: ' "$SCRATCH/ro.out") $(grep -c \
        "lvx cannot copy new images of $VG/$lv while it is active read-only: change it to read-write first." \
        "$SCRATCH/ro.out")" "1 1" || sed 's/^/# /' "$SCRATCH/ro.out"
    test_eq "... the metadata not committed (seqno $s0)" "$(seqno "${HIDE[@]}")" "$s0"
    test_eq "... nothing written to any PV" "$(mir_wsect_all "${DEVS[@]}")" "$w0"
}
HIDE=()

uspace_run_ok "pvcreate, vgcreate" sh -c "$LVX pvcreate ${DEVS[*]} && $LVX vgcreate $VG ${DEVS[*]}"
uspace_run_ok "mirror m (-m1, 8 MiB, images on D0 D1, log on D2), linear l on D4" sh -c \
    "$LVX lvcreate -Zn --type mirror -m1 -L 8m -n m $VG ${DEVS[0]} ${DEVS[1]} ${DEVS[2]} &&
     $LVX lvcreate -Zn -L 4m -n l $VG ${DEVS[4]}"
head -c $((8 * MIB)) /dev/urandom >"$SCRATCH/d"
uspace_run_ok "8 MiB written to m" \
    dd if="$SCRATCH/d" of="$DM_DEV_DIR/$VG/m" bs=1M oflag=direct conv=fsync status=none
uspace_run_ok "m and l made read-only (lvchange -an, -pr, -ay)" sh -c \
    "$LVX lvchange -an $VG/m $VG/l && $LVX lvchange -pr $VG/m $VG/l && $LVX lvchange -ay $VG/m $VG/l"
test_eq "lvx serves both read-only (lv_permissions)" \
    "$(field "$VG/m" lv_permissions) $(field "$VG/l" lv_permissions)" "read-only read-only"
test_eq "... their devices are read-only (blockdev --getro)" \
    "$(blockdev --getro "$DM_DEV_DIR/$VG/m") $(blockdev --getro "$DM_DEV_DIR/$VG/l")" "1 1"

refused "lvconvert -y -m +1 of read-only m" m lvconvert -y -m +1 "$VG/m" "${DEVS[3]}"
refused "lvconvert -y --type mirror -m1 of read-only linear l" l \
    lvconvert -y --type mirror -m1 "$VG/l" "${DEVS[3]}" "${DEVS[2]}"
refused "lvconvert -y -m1 of read-only linear l (raid1, the default type)" l \
    lvconvert -y -m1 "$VG/l" "${DEVS[3]}"
test_eq "m still two images, l linear" "$(field "$VG/m" stripes) $(field "$VG/l" segtype)" "2 linear"
test_eq "m reads its data" "$(lv_sum "$VG/m")" "$(fsum "$SCRATCH/d")"

uspace_run_ok "m read-write again (lvchange -an, -prw, -ay)" sh -c \
    "$LVX lvchange -an $VG/m && $LVX lvchange -prw $VG/m && $LVX lvchange -ay $VG/m"
rc=0
timeout 120 "$LVX" lvconvert -y -m +1 "$VG/m" "${DEVS[3]}" >"$SCRATCH/add.out" 2>&1 || rc=$?
test_eq "lvconvert -y -m +1 of read-write m: exit 0, the LV converted" \
    "$rc $(grep -c "^ *Logical volume $VG/m converted.$" "$SCRATCH/add.out")" "0 1"
test_eq "m: 3 images, copy_percent 100.00" \
    "$(field "$VG/m" stripes)/$(field "$VG/m" copy_percent)" "3/100.00"
test_eq "the new image holds m's data (read from D3)" \
    "$(mir_pv_sum "$VG" m_mimage_2 $((8 * MIB)))" "$(fsum "$SCRATCH/d")"

# a repair that adds an image: D1 missing, m read-only again, D4's l gone for room
uspace_run_ok "l removed, m deactivated and made read-only" sh -c \
    "$LVX lvremove -y $VG/l && $LVX lvchange -an $VG/m && $LVX lvchange -pr $VG/m"
keep=("${DEVS[0]}" "${DEVS[2]}" "${DEVS[3]}" "${DEVS[4]}")
HIDE=("--devices=$(IFS=,; echo "${keep[*]}")")
lvm_sandbox "${keep[@]}"
uspace_run_ok "m activated read-only with D1 missing (--activationmode partial)" \
    lvx vgchange -ay --activationmode partial "${HIDE[@]}" "$VG"
refused "lvconvert -y --repair of read-only m" m lvconvert -y --repair "${HIDE[@]}" "$VG/m"
test_eq "m reads its data, degraded" "$(lv_sum "$VG/m")" "$(fsum "$SCRATCH/d")"
uspace_run_ok "deactivate" lvx vgchange -an "${HIDE[@]}" "$VG"
lvm_sandbox "${DEVS[@]}"
done_testing
