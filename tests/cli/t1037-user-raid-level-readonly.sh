#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1037-user-raid-level-readonly: the takeovers that add images -- striped -> raid5_n
# (a parity image, cmd/lvconvert_parity.c) and raid5 -> raid6 (a Q image,
# cmd/lvconvert_level.c) -- of an LV the lvx daemon serves read-only.  The daemon
# writes nothing through such an LV, so the new image would never be built: refused
# as -m +N is (t1031), one line, exit 5, before the first commit (seqno and every
# PV's written-sector count unchanged).  Once the LVs are read-write the same
# conversions go through and the data is kept.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"
source "$LVX_ROOT/tests/tools/mirror_layer.sh"

VG=vgurlro$$
uspace_test_loops "$VG" 5 40M
MIB=1048576
seqno() { "$LVX" vgs --noheadings -o vg_seqno "$VG" 2>/dev/null | tr -d ' '; }
refused() {  # refused DESC LV CMD...: exit 5, the line, no write
    local desc=$1 lv=$2 s0 w0 rc=0
    shift 2
    s0=$(seqno) w0=$(mir_wsect_all "${DEVS[@]}")
    timeout 60 "$LVX" "$@" >"$SCRATCH/ro.out" 2>&1 || rc=$?
    test_eq "$desc: exit 5" "$rc" 5
    test_eq "... the refusal, naming the LV" "$(grep -c \
        "lvx cannot copy new images of $VG/$lv while it is active read-only: change it to read-write first." \
        "$SCRATCH/ro.out")" 1 || sed 's/^/# /' "$SCRATCH/ro.out"
    test_eq "... the metadata not committed (seqno $s0)" "$(seqno)" "$s0"
    test_eq "... nothing written to any PV" "$(mir_wsect_all "${DEVS[@]}")" "$w0"
}

uspace_run_ok "pvcreate, vgcreate" sh -c "$LVX pvcreate ${DEVS[*]} && $LVX vgcreate $VG ${DEVS[*]}"
uspace_run_ok "striped s (-i2, 8 MiB) on D0 D1; raid5 r (-i3, 12 MiB) on D0-D3" sh -c \
    "$LVX lvcreate -y -Zn -i2 -I64k -L 8m -n s $VG ${DEVS[0]} ${DEVS[1]} &&
     $LVX lvcreate -y -Zn --type raid5 -i3 -I64k -L 12m -n r $VG ${DEVS[0]} ${DEVS[1]} ${DEVS[2]} ${DEVS[3]}"
head -c $((8 * MIB)) /dev/urandom >"$SCRATCH/s"
head -c $((12 * MIB)) /dev/urandom >"$SCRATCH/r"
uspace_run_ok "data written to s and r" sh -c \
    "dd if=$SCRATCH/s of=$DM_DEV_DIR/$VG/s bs=1M oflag=direct conv=fsync status=none &&
     dd if=$SCRATCH/r of=$DM_DEV_DIR/$VG/r bs=1M oflag=direct conv=fsync status=none"
for i in $(seq 1 60); do
    [ "$(field "$VG/r" sync_percent)" = 100.00 ] && break
    sleep 0.5
done
test_eq "r in sync" "$(field "$VG/r" sync_percent)" 100.00
uspace_run_ok "s and r made read-only (lvchange -an, -pr, -ay)" sh -c \
    "$LVX lvchange -an $VG/s $VG/r && $LVX lvchange -pr $VG/s $VG/r && $LVX lvchange -ay $VG/s $VG/r"
test_eq "lvx serves both read-only" \
    "$(field "$VG/s" lv_permissions) $(field "$VG/r" lv_permissions)" "read-only read-only"

refused "lvconvert -y --type raid5_n of read-only striped s" s \
    lvconvert -y --type raid5_n "$VG/s" "${DEVS[2]}"
refused "lvconvert -y --type raid6 of read-only raid5 r" r \
    lvconvert -y --type raid6 "$VG/r" "${DEVS[4]}"
test_eq "s still striped, r still raid5 with 4 images" \
    "$(field "$VG/s" segtype) $(field "$VG/r" segtype)/$(field "$VG/r" stripes)" "striped raid5/4"
test_eq "s and r read their data" "$(lv_sum "$VG/s") $(lv_sum "$VG/r")" \
    "$(fsum "$SCRATCH/s") $(fsum "$SCRATCH/r")"

uspace_run_ok "s and r read-write again" sh -c \
    "$LVX lvchange -an $VG/s $VG/r && $LVX lvchange -prw $VG/s $VG/r && $LVX lvchange -ay $VG/s $VG/r"
uspace_run_ok "lvconvert -y --type raid5_n of read-write s" \
    lvx lvconvert -y --type raid5_n "$VG/s" "${DEVS[2]}"
uspace_run_ok "lvconvert -y --type raid6 of read-write r" \
    lvx lvconvert -y --type raid6 "$VG/r" "${DEVS[4]}"
for i in $(seq 1 120); do
    [ "$(field "$VG/s" sync_percent)$(field "$VG/r" sync_percent)" = 100.00100.00 ] && break
    sleep 0.5
done
test_eq "s raid5_n, r raid6_ls_6, both in sync" \
    "$(field "$VG/s" segtype)/$(field "$VG/s" sync_percent) $(field "$VG/r" segtype)/$(field "$VG/r" sync_percent)" \
    "raid5_n/100.00 raid6_ls_6/100.00"
test_eq "s and r read their data" "$(lv_sum "$VG/s") $(lv_sum "$VG/r")" \
    "$(fsum "$SCRATCH/s") $(fsum "$SCRATCH/r")"
uspace_run_ok "deactivate" lvx vgchange -an "$VG"
done_testing
