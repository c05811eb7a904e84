#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1094-mirror-converting-layer: a mirror LVM2 left in its CONVERTING state (lvconvert
# -m +1 of a disk-log mirror writes a temporary layer: the old mirror, with its log,
# renamed NAME_mimagetmp_N under a new top mirror of it and the new images; its poll
# collapses it once in sync).  LVM2 here (no device-mapper) writes that layer for an
# inactive mirror and stops there, as an interrupted or moved conversion leaves it.
# lvx must:
#   - report it as LVM2 does (lvs -a: 'c' attr, lv_converting, convert_lv, layout and
#     role of the layer, devices, log) - LVM2 reading the same metadata is the oracle;
#   - refuse another image conversion (LVM2's "is already being converted", exit 5, no
#     write);
#   - `lvconvert VG/m` alone: wait for sync, collapse into LVM2's final layout (m over
#     m_mimage_0,1,2 with m_mlog: LVM2's collapse_mirrored_lv), "Logical volume VG/m
#     converted."; inactive, LVM2's "VG/m: Interrupted: No longer active." and no write;
#   - activate it as it is (user backend: the daemon serves the layer flattened, the
#     new image copied whole; t1099 has the details): only the LV activated; lvremove
#     of one.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"
source "$LVX_ROOT/tests/tools/mirror_layer.sh"

VG=vgcl$$
uspace_test_loops "$VG" 5 64M
MIB=1048576
SED="s|${DEVS[4]}\\b|D4|g;s|${DEVS[3]}\\b|D3|g;s|${DEVS[2]}\\b|D2|g;s|${DEVS[1]}\\b|D1|g;s|${DEVS[0]}\\b|D0|g"
F=lv_name,lv_attr,devices,mirror_log,convert_lv,lv_converting,lv_layout,lv_role,lv_parent,seg_type,stripes
# LVM2 here knows no kernel state ('X' in the attr): lvx's user backend says inactive
rep() {
    "$@" lvs -a --noheadings --separator ' | ' -o "$F" "$VG" 2>/dev/null | sed "$SED" |
        sed 's/\(| [a-zA-Z-]\{4\}\)XX/\1--/'
}

uspace_run_ok "pvcreate, vgcreate" sh -c "$LVX pvcreate ${DEVS[*]} && $LVX vgcreate $VG ${DEVS[*]}"
uspace_run_ok "mirror m (-m1, 16 MiB, images on D0 D1, log on D2)" \
    lvx lvcreate -Zn --type mirror -m1 -L 16m -n m "$VG" "${DEVS[0]}" "${DEVS[1]}" "${DEVS[2]}"
head -c $((16 * MIB)) /dev/urandom >"$SCRATCH/d1"
uspace_run_ok "16 MiB written to m" \
    dd if="$SCRATCH/d1" of="$DM_DEV_DIR/$VG/m" bs=1M oflag=direct conv=fsync status=none
uspace_run_ok "mirror k (-m1, 8 MiB, inactive) beside it" \
    lvx lvcreate -an -Zn --type mirror -m1 -L 8m -n k "$VG" "${DEVS[0]}" "${DEVS[1]}" "${DEVS[2]}"
uspace_run_ok "m deactivated" lvx lvchange -an "$VG/m"

# ---- LVM2 writes its layer (the new image on D3)
lvm2 lvconvert -m +1 "$VG/m" "${DEVS[3]}" >"$SCRATCH/l.out" 2>&1
diag "LVM2: $(sandbox_noise <"$SCRATCH/l.out")"
test_eq "LVM2 left its layer: m over m_mimagetmp_2 and m_mimage_2" \
    "$(lvm2 lvs --noheadings -o devices "$VG/m" 2>/dev/null | tr -d ' ')" \
    "m_mimagetmp_2(0),m_mimage_2(0)"
lvm2 lvconvert -m +1 "$VG/k" "${DEVS[3]}" >/dev/null 2>&1
seq0=$(lvm2 vgs --noheadings -o vg_seqno "$VG" 2>/dev/null | tr -d ' ')

diag "LVM2's report: $(rep lvm2)"
test_eq "lvs -a: lvx reports the layer as LVM2 does" "$(rep lvx)" "$(rep lvm2)"
test_eq "lvs (default columns) as LVM2's" "$(lvx lvs "$VG" 2>/dev/null)" \
    "$(lvm2 lvs "$VG" 2>/dev/null | sed 's/ \(c[a-z-]\{3\}\)XX/ \1--/')"
test_eq "lvs --binary -o lv_converting: 1 for m" \
    "$(lvx lvs --binary --noheadings -o lv_converting "$VG/m" | tr -d ' ')" "1"

# ---- another image conversion: LVM2's refusal, nothing written
same_refusal "lvconvert -m +1 of the converting m" lvconvert -m +1 "$VG/m" "${DEVS[4]}"
test_eq "... the metadata unchanged (seqno $seq0)" \
    "$(lvm2 vgs --noheadings -o vg_seqno "$VG" 2>/dev/null | tr -d ' ')" "$seq0"
# ---- lvconvert VG/m of the inactive m: LVM2's poll ends at once, nothing written
both lvconvert "$VG/m"
test_eq "lvconvert $VG/m (inactive): exit code and lines as LVM2's" \
    "$(cat "$SCRATCH/x.rc") $(cat "$SCRATCH/x.out" "$SCRATCH/x.err")" \
    "$(cat "$SCRATCH/l.rc") $(sandbox_noise <"$SCRATCH/l.out"; grep -v -e 'Activation disabled' \
        -e lvmpolld "$SCRATCH/l.err")"
test_eq "... the metadata unchanged (seqno $seq0)" \
    "$(lvm2 vgs --noheadings -o vg_seqno "$VG" 2>/dev/null | tr -d ' ')" "$seq0"

# ---- activation: the layer served as it is (the daemon's flattened view: the layer's
# images and the new one as one mirror, the new one copied whole, the layer's log kept);
# --poll n: no poller (t1103 has the activation's), `lvconvert VG/m` below collapses it
uspace_run_ok "lvchange -ay --poll n $VG/m" lvx lvchange -ay --poll n "$VG/m"
test_eq "k is left as LVM2 wrote it (only m was activated)" \
    "$(lvm2 lvs --noheadings -o devices "$VG/k" 2>/dev/null | tr -d ' ')" "k_mimagetmp_2(0),k_mimage_2(0)"
uspace_run_ok "lvremove -f of the converting k" lvx lvremove -f "$VG/k"
test_eq "... no k LV left (LVM2 reads)" "$(lvm2 lvs -a --noheadings -o lv_name "$VG" 2>/dev/null | grep -c k)" "0"
test_eq "m reads its data at once" "$(lv_sum "$VG/m")" "$(fsum "$SCRATCH/d1")"
rc=0
lvx lvconvert "$VG/m" >"$SCRATCH/poll.out" 2>&1 || rc=$?
test_eq "lvconvert $VG/m waits for the copy and collapses the layer (LVM2's poll)" \
    "$rc $(grep -v "NOT backed up" "$SCRATCH/poll.out")" "0   $VG/m: Converted: 100.00%
  Logical volume $VG/m converted."
mir_collapsed3 "$VG" "$SED"
test_eq "lvx: copy_percent 100.00, 3 images" \
    "$(field "$VG/m" copy_percent)/$(field "$VG/m" stripes)" "100.00/3"
for img in m_mimage_0 m_mimage_1 m_mimage_2; do
    test_eq "$img holds m's data (read from its PV)" \
        "$(mir_pv_sum "$VG" $img $((16 * MIB)))" "$(fsum "$SCRATCH/d1")"
done
read -r magic nreg _ nsync < <(mir_log_synced "$VG" m_mlog)
test_eq "the log (dm-log on D2) says every region in sync" "$magic $nsync" "MiRr $nreg"
uspace_run_ok "deactivate" lvx vgchange -an "$VG"

done_testing
