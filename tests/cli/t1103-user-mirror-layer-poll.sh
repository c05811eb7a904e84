#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1103-user-mirror-layer-poll: LVM2's mirror CONVERTING layer in lvx's user backend,
# docs/mirror-layer.md step 6 (user part) and the rest of step 5:
#   - vgchange -ay of a VG holding two mirrors LVM2 left layered (m over m_mimagetmp_2,
#     n over n_mimagetmp_2) starts one detached poller per LV, as LVM2's activation
#     spawns its polls, every activation/polling_interval seconds (--config's value,
#     15 when unset); both collapse once the daemon has copied the new images; LVM2
#     then reads each as its poll leaves it (three images, the log kept), vgck, and
#     every image holds the data; lvchange -ay of one layered LV: one poller;
#   - lvconvert of an ACTIVE layered LV (lvx refused it before): -m -1 (the new image
#     goes, the layer with it), --mirrorlog core and then disk on the layer, -m 0;
#     each committed, the daemon reloaded live, the data read back, LVM2's vgck;
#   - lvconvert -m +1 --mirrorlog disk of an active core-log mirror c writes LVM2's layer
#     (the new log c_mlog under it, zeroed first), LVM2 reads it during the copy, then
#     the poll's collapse: three images over c_mlog, the data on each, the log in sync;
#   - LVM2's rules for a layered LV: `lvconvert -b VG/LV`, `-i N VG/LV` (exit 3: no
#     command form), `-R N` alone (a RAID LV's command), `--type mirror -R N` (wants -m),
#     `--mirrorlog core -R N` / `-i N` (exit 3) refused as LVM2 refuses them, its first
#     line and exit code, nothing written.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"
source "$LVX_ROOT/tests/tools/mirror_layer.sh"

VG=vgmlp$$
uspace_test_loops "$VG" 4 48M
MIB=1048576
SED="s|${DEVS[3]}\\b|D3|g;s|${DEVS[2]}\\b|D2|g;s|${DEVS[1]}\\b|D1|g;s|${DEVS[0]}\\b|D0|g"
devs() { lvm2 lvs --noheadings -o devices "$VG/$1" 2>/dev/null | tr -d ' '; }
mlog() { lvm2 lvs --noheadings -o mirror_log "$VG/$1" 2>/dev/null | tr -d ' '; }
seqno() { lvm2 vgs --noheadings -o vg_seqno "$VG" 2>/dev/null | tr -d ' '; }
pollers() { ps -eo args | grep -c "^lvx lvpoll --polloperation convert .*$1 $VG/[mn]\$"; }
# waits until LVM2 reads LV ($1) with no layer (60 s at most)
wait_collapsed() {
    for _ in $(seq 300); do
        [[ $(devs "$1") != *mimagetmp* ]] && return 0
        sleep 0.2
    done
    return 1
}
# LVM2 leaves a layered LV: lvx's mirror LV ($1, images on D0 D1, log on D2) written
# to, deactivated, and given a third image on D3 (or the PV $2) by LVM2 (activation off)
layered() {
    lvm2 lvconvert -m +1 "$VG/$1" "${2:-${DEVS[3]}}" >"$SCRATCH/l.out" 2>&1
    [[ $(devs "$1") == "$1_mimagetmp_2(0),$1_mimage_2(0)" ]]
}

uspace_run_ok "pvcreate, vgcreate" sh -c "$LVX pvcreate ${DEVS[*]} && $LVX vgcreate $VG ${DEVS[*]}"
for lv in m n; do
    lvx lvcreate -Zn --type mirror -m1 -L 8m -R 64k -n $lv "$VG" "${DEVS[0]}" "${DEVS[1]}" \
        "${DEVS[2]}" >/dev/null 2>&1
done
head -c $((8 * MIB)) /dev/urandom >"$SCRATCH/dm"
head -c $((8 * MIB)) /dev/urandom >"$SCRATCH/dn"
for _ in $(seq 300); do
    [[ $(field "$VG/m" copy_percent)$(field "$VG/n" copy_percent) == 100.00100.00 ]] && break
    sleep 0.2
done
uspace_run_ok "mirrors m and n (8 MiB each, -R 64k) written, in sync" sh -c "
    dd if=$SCRATCH/dm of=$DM_DEV_DIR/$VG/m bs=1M oflag=direct conv=fsync status=none &&
    dd if=$SCRATCH/dn of=$DM_DEV_DIR/$VG/n bs=1M oflag=direct conv=fsync status=none"
uspace_stop_daemon "$VG"
both_layered() { layered m && layered n; }
test_ok "LVM2 adds an image to m and to n: both left layered" both_layered

# ---- vgchange -ay: one poller per layered LV, polling_interval from --config
LVX_TEST_DP_FAULT="pv=${DEVS[3]},op=write,kind=delay=30" lvx vgchange -ay \
    --config 'activation { polling_interval = 1 }' "$VG" >"$SCRATCH/a.out" 2>&1
_tap_result $? "vgchange -ay $VG (writes to D3 slowed)"
np=$(pollers "-i 1")
diag "pollers: $(ps -eo args | grep "lvpoll" | grep -v grep)"
for _ in $(seq 20); do [[ $np == 2 ]] && break; sleep 0.1; np=$(pollers "-i 1"); done
test_eq "two detached pollers, every 1 s (activation/polling_interval from --config)" "$np" 2
test_ok "... m collapses once the daemon has copied its new image" wait_collapsed m
test_ok "... n collapses too" wait_collapsed n
for lv in m n; do
    test_eq "LVM2 reads $lv as its poll leaves it: three images, ${lv}_mlog kept" \
        "$(devs $lv)/$(mlog $lv)" "${lv}_mimage_0(0),${lv}_mimage_1(0),${lv}_mimage_2(0)/[${lv}_mlog]"
done
test_eq "no layer left in the VG (LVM2's lvs -a)" \
    "$(lvm2 lvs -a --noheadings -o lv_name "$VG" 2>/dev/null | grep -c mimagetmp)" 0
test_ok "LVM2's vgck" lvm2 vgck "$VG"
for _ in $(seq 50); do [[ $(pollers "") == 0 ]] && break; sleep 0.2; done
test_eq "the pollers ended" "$(pollers "")" 0
test_eq "m reads its data" "$(lv_sum "$VG/m")" "$(fsum "$SCRATCH/dm")"
uspace_stop_daemon "$VG"
for img in m_mimage_0 m_mimage_1 m_mimage_2; do
    test_eq "$img holds m's data (read from its PV)" "$(mir_pv_sum "$VG" $img $((8 * MIB)))" \
        "$(fsum "$SCRATCH/dm")"
done
test_eq "n_mimage_2 holds n's data" "$(mir_pv_sum "$VG" n_mimage_2 $((8 * MIB)))" \
    "$(fsum "$SCRATCH/dn")"

# ---- lvchange -ay of one layered LV: one poller, the configured interval (15 default)
uspace_run_ok "n back to two images (lvx -m -1 D3)" lvx lvconvert -y -m -1 "$VG/n" "${DEVS[3]}"
test_ok "... LVM2 layers n again" layered n
diag "LVM2: $(cat "$SCRATCH/l.out")"
LVX_TEST_DP_FAULT="pv=${DEVS[3]},op=write,kind=delay=30" lvx lvchange -ay "$VG/n" \
    >"$SCRATCH/b.out" 2>&1
_tap_result $? "lvchange -ay $VG/n"
np=$(pollers "-i 15")
for _ in $(seq 20); do [[ $np == 1 ]] && break; sleep 0.1; np=$(pollers "-i 15"); done
test_eq "one poller, every 15 s (activation/polling_interval unset)" "$np" 1
test_ok "... n collapses" wait_collapsed n
test_eq "... n_mimage_3's data (LVM2's third image of n)" \
    "$(devs n | tr ',' '\n' | grep -c mimage)" 3

# ---- conversions of an active layered LV, the daemon reloaded live
uspace_stop_daemon "$VG"
uspace_run_ok "m back to two images, LVM2 layers it" sh -c "$LVX lvconvert -y -m -1 $VG/m ${DEVS[3]}"
test_ok "... m layered" layered m
uspace_run_ok "m activated with --poll n (no poller: the layer stays)" \
    lvx lvchange -ay --poll n "$VG/m"
test_eq "no poller" "$(pollers "")" 0
s0=$(seqno)
rc=0
lvx lvconvert -y --mirrorlog core "$VG/m" >"$SCRATCH/c.out" 2>&1 || rc=$?
test_eq "--mirrorlog core of the active layered m: converted" "$rc $(grep -v "NOT backed" "$SCRATCH/c.out")" \
    "0   Logical volume $VG/m converted."
test_eq "... LVM2 reads the layer without a log, still layered" \
    "$(devs m)/$(lvm2 lvs -a --noheadings -o mirror_log "$VG/m_mimagetmp_2" 2>/dev/null | tr -d ' ')" \
    "m_mimagetmp_2(0),m_mimage_2(0)/"
test_eq "... m reads its data (served by the reloaded daemon)" "$(lv_sum "$VG/m")" "$(fsum "$SCRATCH/dm")"
rc=0
lvx lvconvert -y --mirrorlog disk "$VG/m" >"$SCRATCH/c.out" 2>&1 || rc=$?
test_eq "--mirrorlog disk: converted, the layer's log is m_mlog" \
    "$rc $(lvm2 lvs -a --noheadings -o mirror_log "$VG/m_mimagetmp_2" 2>/dev/null | tr -d ' ')" \
    "0 [m_mlog]"
test_eq "... m reads its data" "$(lv_sum "$VG/m")" "$(fsum "$SCRATCH/dm")"
rc=0
lvx lvconvert -y -m -1 "$VG/m" >"$SCRATCH/c.out" 2>&1 || rc=$?
test_eq "-m -1 of the active layered m: the new image goes and the layer with it" \
    "$rc $(devs m)/$(mlog m)" "0 m_mimage_0(0),m_mimage_1(0)/[m_mlog]"
test_ok "... LVM2's vgck" lvm2 vgck "$VG"
test_ok "... seqno moved on (3 commits: $s0 -> $(seqno))" test "$(seqno)" -gt "$s0"
test_eq "... m reads its data" "$(lv_sum "$VG/m")" "$(fsum "$SCRATCH/dm")"
uspace_stop_daemon "$VG"
test_ok "LVM2 layers m again (the new image on D2: m_mlog went to D3)" layered m "${DEVS[2]}"
uspace_run_ok "m activated with --poll n" lvx lvchange -ay --poll n "$VG/m"
rc=0
lvx lvconvert -y -m 0 "$VG/m" >"$SCRATCH/c.out" 2>&1 || rc=$?
test_eq "-m 0 of the active layered m: linear on D0" "$rc $(devs m | sed "$SED")" "0 D0(0)"
test_eq "... m reads its data" "$(lv_sum "$VG/m")" "$(fsum "$SCRATCH/dm")"
test_eq "... no sub-LV of m left (LVM2's lvs -a)" \
    "$(lvm2 lvs -a --noheadings -o lv_name "$VG" 2>/dev/null | grep -c 'm_m')" 0

# ---- LVM2's command-line rules (no command form takes them) and -R on a layered LV
uspace_stop_daemon "$VG"
uspace_run_ok "n back to two images (lvx -m -1 D3)" lvx lvconvert -y -m -1 "$VG/n" "${DEVS[3]}"
test_ok "... LVM2 layers n again" layered n
s0=$(seqno)
for args in "-b" "-i 3" "-b -i 3" "-R 128k" "--type mirror -R 128k" "--mirrorlog core -R 128k" \
            "--mirrorlog core -i 3"; do
    # shellcheck disable=SC2086
    both lvconvert $args "$VG/n"
    test_eq "lvconvert $args $VG/n: exit code and first line as LVM2's" \
        "$(cat "$SCRATCH/x.rc") $(head -1 "$SCRATCH/x.err")" \
        "$(cat "$SCRATCH/l.rc") $(grep -v 'WARNING: Activation' "$SCRATCH/l.err" | head -1)"
done
test_eq "nothing written" "$(seqno)" "$s0"

# ---- -m +1 --mirrorlog disk of an active core-log mirror: the log first, then the
# layer over the old images and that log (LVM2's _lvconvert_mirrors_aux), collapsed live
uspace_run_ok "core-log mirror c (8 MiB, -R 64k, images on D0 D1)" \
    lvx lvcreate -Zn --type mirror -m1 --mirrorlog core -L 8m -R 64k -n c "$VG" "${DEVS[0]}" \
    "${DEVS[1]}"
head -c $((8 * MIB)) /dev/urandom >"$SCRATCH/dc"
uspace_run_ok "c written" dd if="$SCRATCH/dc" of="$DM_DEV_DIR/$VG/c" bs=1M oflag=direct \
    conv=fsync status=none
uspace_stop_daemon "$VG"
LVX_TEST_DP_FAULT="pv=${DEVS[2]},op=write,kind=delay=30" lvx lvchange -ay "$VG/c" \
    >"$SCRATCH/a3.out" 2>&1
_tap_result $? "lvchange -ay $VG/c (writes to D2, the new image's PV, slowed)"
s0=$(seqno)
lvx lvconvert -m +1 --mirrorlog disk "$VG/c" "${DEVS[2]}" "${DEVS[3]}" >"$SCRATCH/c3.out" 2>&1 &
cpid=$!
seen=$(mir_seen_devs "$VG" c "c_mimagetmp_2(0),c_mimage_2(0)")
test_eq "while the new image is copied, LVM2 reads c over its layer" "$seen" \
    "c_mimagetmp_2(0),c_mimage_2(0)"
test_eq "... the layer holds the old images and the new log c_mlog" \
    "$(lvm2 lvs -a --nolocking --noheadings -o devices,mirror_log "$VG/c_mimagetmp_2" 2>/dev/null |
       tr -d ' ')" \
    "c_mimage_0(0),c_mimage_1(0)[c_mlog]"
rc=0
wait $cpid || rc=$?
test_eq "lvconvert -m +1 --mirrorlog disk: LVM2's lines, its poll's end" \
    "$rc $(grep -v "NOT backed up" "$SCRATCH/c3.out")" "0   Logical volume $VG/c being converted.
  $VG/c: Converted: 100.00%
  Logical volume $VG/c converted."
test_eq "c collapsed: three images over c_mlog (LVM2 reads)" "$(devs c)/$(mlog c)" \
    "c_mimage_0(0),c_mimage_1(0),c_mimage_2(0)/[c_mlog]"
test_ok "... LVM2's vgck" lvm2 vgck "$VG"
test_eq "c reads its data" "$(lv_sum "$VG/c")" "$(fsum "$SCRATCH/dc")"
uspace_stop_daemon "$VG"
read -r magic nreg _ nsync < <(mir_log_synced "$VG" c_mlog)
test_eq "c_mlog says every region in sync after the stop" "$magic $nsync" "MiRr $nreg"
for img in c_mimage_0 c_mimage_1 c_mimage_2; do
    test_eq "$img holds c's data (read from its PV)" "$(mir_pv_sum "$VG" $img $((8 * MIB)))" \
        "$(fsum "$SCRATCH/dc")"
done
done_testing
