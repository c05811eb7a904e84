#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1099-user-mirror-layer-served: the lvx daemon serves LVM2's mirror CONVERTING layer
# (docs/mirror-layer.md 2.3, step 5) instead of collapsing it at activation and
# zeroing its log (which copied the old images again).  LVM2 writes the layer on an
# inactive disk-log mirror holding data (m over m_mimagetmp_2 and m_mimage_2; the layer
# over m_mimage_0/1 with m_mlog); then in lvx's user backend:
#   - activation keeps the layer (LVM2 reads it), the log is not zeroed, the top's
#     copy_percent is the new image's progress, the data reads back during the copy;
#   - the old images are NOT copied again: bytes planted on m_mimage_1 in a region the
#     log calls in sync stay there (the new image is copied from m_mimage_0);
#   - the daemon SIGKILLed mid-copy: LVM2 still reads the layer (vgck), the log on disk
#     still says every region in sync (the old images agree), the restart serves it;
#   - `lvconvert VG/m` waits for the copy, collapses live (LVM2's final layout, its
#     vgck), the log says every region in sync, images 0 and 2 hold the data;
#   - lvx's own `lvconvert -m +1` of the active m writes the layer too (LVM2 reads it
#     while the copy runs, the log untouched), then collapses it as LVM2's poll does.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"
source "$LVX_ROOT/tests/tools/mirror_layer.sh"

VG=vgmls$$
uspace_test_loops "$VG" 5 64M
MIB=1048576
LOG=$LVX_RUN_DIR/lvxd.log
SED="s|${DEVS[4]}\\b|D4|g;s|${DEVS[3]}\\b|D3|g;s|${DEVS[2]}\\b|D2|g;s|${DEVS[1]}\\b|D1|g;s|${DEVS[0]}\\b|D0|g"
log_state() { local magic nreg x nsync; read -r magic nreg x nsync < <(mir_log_synced "$VG" m_mlog)
              echo "$magic $nsync/$nreg"; }
wait_copied() {  # until copy_percent is 100.00 (120 s at most)
    for _ in $(seq 600); do
        [[ $(field "$VG/m" copy_percent) == 100.00 ]] && return 0
        sleep 0.2
    done
    return 1
}
m_devs() { lvm2 lvs --noheadings -o devices "$VG/m" 2>/dev/null | tr -d ' '; }
# the first 15 MiB of m (the last MiB holds the bytes planted on m_mimage_1)
head15() { dd if="$DM_DEV_DIR/$VG/m" bs=1M count=15 iflag=direct status=none | sha256sum |
           cut -d' ' -f1; }

uspace_run_ok "pvcreate, vgcreate" sh -c "$LVX pvcreate ${DEVS[*]} && $LVX vgcreate $VG ${DEVS[*]}"
uspace_run_ok "mirror m (-m1, 16 MiB, -R 64k, images on D0 D1, log on D2)" \
    lvx lvcreate -Zn --type mirror -m1 -L 16m -R 64k -n m "$VG" "${DEVS[0]}" "${DEVS[1]}" \
    "${DEVS[2]}"
test_ok "m in sync" wait_copied
head -c $((16 * MIB)) /dev/urandom >"$SCRATCH/d"
head -c $((15 * MIB)) "$SCRATCH/d" >"$SCRATCH/d15"
uspace_run_ok "16 MiB written to m" \
    dd if="$SCRATCH/d" of="$DM_DEV_DIR/$VG/m" bs=1M oflag=direct conv=fsync status=none
uspace_stop_daemon "$VG"
NREG=$(log_state | sed 's|.*/||')
test_eq "m stopped: its log says every region in sync" "$(log_state)" "MiRr $NREG/$NREG"

# bytes planted at the end of m_mimage_1 (its last region, in sync in the log)
read -r pv1 at1 < <(_mir_at "$VG" m_mimage_1)
head -c 4096 /dev/urandom >"$SCRATCH/plant"
dd if="$SCRATCH/plant" of="$pv1" bs=4096 oflag=direct,seek_bytes seek=$((at1 + 16 * MIB - 4096)) \
    conv=notrunc status=none
planted() { dd if="$pv1" bs=4096 iflag=direct,skip_bytes skip=$((at1 + 16 * MIB - 4096)) count=1 \
            status=none | sha256sum | cut -d' ' -f1; }

# ---- LVM2 writes its layer (activation off here: "Conversion starts after activation.")
lvm2 lvconvert -m +1 "$VG/m" "${DEVS[3]}" >"$SCRATCH/l.out" 2>&1
diag "LVM2: $(sandbox_noise <"$SCRATCH/l.out")"
test_eq "LVM2 left its layer: m over m_mimagetmp_2 and m_mimage_2" "$(m_devs)" \
    "m_mimagetmp_2(0),m_mimage_2(0)"

# ---- activation in the user backend, the new image's writes slowed (the copy is seen);
# --poll n: no poller (t1103 has the activation's), `lvconvert VG/m` below collapses it
: >"$LOG"
LVX_TEST_DP_FAULT="pv=${DEVS[3]},op=write,kind=delay=40" lvx lvchange -ay --poll n "$VG/m" \
    >"$SCRATCH/a.out" 2>&1
_tap_result $? "lvchange -ay --poll n $VG/m (writes to D3 slowed)"
test_eq "the layer is kept (LVM2 reads m over m_mimagetmp_2 and m_mimage_2)" "$(m_devs)" \
    "m_mimagetmp_2(0),m_mimage_2(0)"
test_eq "the log is not zeroed: every region still in sync on disk" "$(log_state)" \
    "MiRr $NREG/$NREG"
p=$(field "$VG/m" copy_percent)
test_ok "the top's copy_percent is the new image's progress: below 100 ($p)" \
    test -n "$p" -a "$p" != 100.00
diag "lvx lvs -a while the layer is served: $(lvx lvs -a --noheadings -o lv_name,lv_attr,copy_percent,devices "$VG" 2>&1 | sed "$SED")"
test_eq "m reads its data during the copy" "$(head15)" "$(fsum "$SCRATCH/d15")"
test_ok "the daemon copies every region to the new image only (leg 0 the source)" \
    grep -q "$VG/m: $NREG of $NREG mirror regions out of sync: copied from leg 0" "$LOG"

# ---- SIGKILL mid-copy
sleep 1
uspace_kill_daemon
test_ok "the daemon is gone (SIGKILL)" test -z "$(uspace_daemon_pids)"
test_eq "... LVM2 reads the layer" "$(m_devs)" "m_mimagetmp_2(0),m_mimage_2(0)"
test_ok "... LVM2's vgck" lvm2 vgck "$VG"
test_eq "... the log's bits still set (the old images agree)" "$(log_state)" "MiRr $NREG/$NREG"
: >"$LOG"
uspace_run_ok "lvx daemon start (serves m again, no delay)" lvx daemon start
test_ok "... m served again: the new image copied whole again, leg 0 the source" \
    grep -q "$VG/m: $NREG of $NREG mirror regions out of sync: copied from leg 0" "$LOG"
: >"$LOG"

# ---- lvconvert VG/m: waits, collapses live
rc=0
lvx lvconvert "$VG/m" >"$SCRATCH/poll.out" 2>&1 || rc=$?
test_eq "lvconvert $VG/m waits for the copy, collapses the layer" \
    "$rc $(grep -v "NOT backed up" "$SCRATCH/poll.out")" \
    "0   $VG/m: Converted: 100.00%
  Logical volume $VG/m converted."
mir_collapsed3 "$VG" "$SED"
test_eq "lvx: copy_percent 100.00, 3 images" \
    "$(field "$VG/m" copy_percent)/$(field "$VG/m" stripes)" "100.00/3"
test_eq "the reload kept the log's bits: nothing copied again" \
    "$(grep -c "$VG/m: .* mirror regions out of sync" "$LOG")" 0
test_eq "m reads its data" "$(head15)" "$(fsum "$SCRATCH/d15")"
uspace_stop_daemon "$VG"
test_eq "the log (on D2) says every region in sync" "$(log_state)" "MiRr $NREG/$NREG"
for img in m_mimage_0 m_mimage_2; do
    test_eq "$img holds m's data (read from its PV)" \
        "$(mir_pv_sum "$VG" $img $((16 * MIB)))" "$(fsum "$SCRATCH/d")"
done
test_eq "m_mimage_1 was not copied again: the bytes planted on it stay" "$(planted)" \
    "$(fsum "$SCRATCH/plant")"

# ---- lvx's live -m +1 of the active disk-log m: the layer, then the collapse
LVX_TEST_DP_FAULT="pv=${DEVS[4]},op=write,kind=delay=40" lvx lvchange -ay "$VG/m" \
    >"$SCRATCH/a2.out" 2>&1
_tap_result $? "lvchange -ay $VG/m (writes to D4 slowed)"
lvx lvconvert -m +1 "$VG/m" "${DEVS[4]}" >"$SCRATCH/c2.out" 2>&1 &
cpid=$!
seen=$(mir_seen_devs "$VG" m "m_mimagetmp_3(0),m_mimage_3(0)")
test_eq "while lvx's live -m +1 copies, LVM2 reads its layer" "$seen" \
    "m_mimagetmp_3(0),m_mimage_3(0)"
test_eq "... the log untouched: every region in sync (no hold)" "$(log_state)" "MiRr $NREG/$NREG"
rc=0
wait $cpid || rc=$?
test_eq "lvconvert -m +1: LVM2's lines, its poll's end" \
    "$rc $(grep -v "NOT backed up" "$SCRATCH/c2.out")" "0   Logical volume $VG/m being converted.
  $VG/m: Converted: 100.00%
  Logical volume $VG/m converted."
test_eq "m collapsed: 4 images over m_mlog (LVM2 reads)" "$(m_devs)/$(lvm2 lvs --noheadings \
    -o mirror_log "$VG/m" 2>/dev/null | tr -d ' ')" \
    "m_mimage_0(0),m_mimage_1(0),m_mimage_2(0),m_mimage_3(0)/[m_mlog]"
uspace_stop_daemon "$VG"
test_eq "m_mimage_3 holds m's data" "$(mir_pv_sum "$VG" m_mimage_3 $((16 * MIB)))" \
    "$(fsum "$SCRATCH/d")"
test_eq "the log says every region in sync" "$(log_state)" "MiRr $NREG/$NREG"
done_testing
