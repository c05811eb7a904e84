#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0699-user-mirror-takeover: lvconvert --type raid1 of a mirror and --type mirror of a
# raid1 LV served by the lvx daemon (user-space activation), three 64 MiB loop devices,
# LVM2 (activation off) as the oracle of the layout (vgck, lvs -a):
#   - a 2-leg mirror written with 16 MiB, in sync, becomes raid1: LVM2's line, the log
#     gone, an rmeta beside each image (LVM2 reads the same sub-LVs and devices), the
#     daemon serves it at once (no rebuild: sync 100%, idle), each image still holds
#     the data on its PV, lv_attr rwi-a-r--- and an empty lv_health_status as LVM2's
#     dm-raid report (images 'i');
#   - deactivated and activated again: the data, in sync;
#   - back to a mirror: the rmeta sub-LVs gone, a new log; the daemon syncs the legs
#     again from the new (zeroed) log; both legs and the LV hold the data.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

VG=vgumt$$
uspace_test_loops "$VG" 3 64M
MIB=1048576
source "$LVX_ROOT/tests/tools/raid-pvread.sh"
M=$DM_DEV_DIR/$VG/m
field() { lvx lvs --noheadings -o "$2" "$VG/$1" 2>/dev/null | tr -d ' '; }
# wait_sync FIELD: until the LV's FIELD (copy_percent, sync_percent) reads 100.00
wait_sync() { for _ in $(seq 100); do [[ $(field m "$1") == 100.00 ]] && return 0; sleep 0.2; done; return 1; }
layout() {  # layout TOOL: sub-LVs and their devices
    "$@" lvs -a --noheadings -o lv_name,segtype,devices "$VG" 2>/dev/null | awk '{$1 = $1; print}'
}
# convert_to TYPE NAMES WHAT: lvconvert -y --type TYPE of m, LVM2's line, LVM2 reads the
# layout lvx reports, the sub-LVs are NAMES (sorted, blank-separated)
convert_to() {
    local out
    out=$(lvx lvconvert -y --type "$1" "$VG/m" 2>&1)
    test_eq "lvconvert -y --type $1: exit 0" "$?" 0
    test_eq "... LVM2's line" "$(grep -v WARNING <<<"$out" | sed 's/^ *//')" \
        "Logical volume $VG/m successfully converted."
    test_eq "... LVM2 reads lvx's layout as lvx reports it" "$(layout lvm2)" "$(layout lvx)"
    test_ok "... LVM2's vgck passes" lvm2 vgck "$VG"
    test_eq "... $3" "$(lvx lvs -a --noheadings -o lv_name "$VG" 2>/dev/null | tr -d ' []' | sort | tr '\n' ' ')" "$2"
}
# data_on KIND: m reads the data, and so does each m_KIND_N read from its PV
data_on() {
    local i
    test_eq "m reads the data" "$(lv_sum "$M" 0 $((16 * MIB)))" "$(fsum "$SCRATCH/d1")"
    for i in 0 1; do
        report "m_$1_$i"
        test_eq "m_$1_$i holds the data on its PV" "$(pv_sum "m_$1_$i" 0 $((16 * MIB)))" \
            "$(fsum "$SCRATCH/d1")"
    done
}

uspace_run_ok "pvcreate, vgcreate" sh -c "$LVX pvcreate -q ${DEVS[*]} && $LVX vgcreate -q $VG ${DEVS[*]}"
uspace_run_ok "mirror m (-m1, 16 MiB, legs on the first two PVs, log on the third)" \
    lvx lvcreate -q -Zn --type mirror -m1 -L 16m -n m "$VG" "${DEVS[0]}" "${DEVS[1]}" "${DEVS[2]}"
head -c $((16 * MIB)) /dev/urandom >"$SCRATCH/d1"
uspace_run_ok "16 MiB written" dd if="$SCRATCH/d1" of="$M" bs=1M oflag=direct conv=fsync status=none
test_ok "m in sync" wait_sync copy_percent

# ---- mirror -> raid1
convert_to raid1 "m m_rimage_0 m_rimage_1 m_rmeta_0 m_rmeta_1 " "an rmeta beside each image, the log gone"
test_eq "... served at once, in sync, idle" "$(field m sync_percent) $(field m raid_sync_action)" \
    "100.00 idle"
test_eq "... lv_attr and health as LVM2's dm-raid report" \
    "$(field m lv_attr) [$(field m lv_health_status)] $(field m_rimage_0 lv_attr)" \
    "rwi-a-r--- [] iwi-aor---"
data_on rimage
uspace_run_ok "deactivated and activated again" sh -c \
    "$LVX lvchange -an $VG/m && $LVX lvchange -ay $VG/m"
test_eq "... in sync at once (no rebuild)" "$(field m sync_percent) $(field m raid_sync_action)" \
    "100.00 idle"
test_eq "... m reads the data" "$(lv_sum "$M" 0 $((16 * MIB)))" "$(fsum "$SCRATCH/d1")"

# ---- raid1 -> mirror
convert_to mirror "m m_mimage_0 m_mimage_1 m_mlog " "images and a log, no rmeta"
test_ok "... the daemon syncs the legs again (copy_percent 100)" wait_sync copy_percent
data_on mimage
uspace_run_ok "deactivate m" lvx lvchange -an "$VG/m"
done_testing
