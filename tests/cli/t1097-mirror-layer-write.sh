#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1097-mirror-layer-write: lvx writes LVM2's CONVERTING resync layer
# (docs/mirror-layer.md step 2).  `lvconvert -m +N` of an inactive mirror that has a
# log once --mirrorlog changed it puts the old mirror, with its log, under a layer
# NAME_mimagetmp_N (N the next NAME_mimage_N) and adds the new images NAME_mimage_N...
# beside it under a core-log top, as LVM2 2.03.16 does.  Two VGs made alike by lvx on
# two sets of 5 PVs: lvx converts VG, LVM2 (no device-mapper here) the twin TW; each
# step compares the exit code and lines, then the metadata text (ids, times, hosts,
# seqno and devices aside).  Cases: a disk-log mirror (-m +1 with a PV named; a second
# -m +1 refused, seqno unchanged), -m +2, a mirrored log, --mirrorlog disk of a core-log
# mirror, a mirror under a snapshot (refused).  LVM2 reads lvx's layer (lvs -a with convert_lv, mirror_log, copy_percent
# as its own twin's; vgck); the user backend activates lvx's layered LV (collapsed
# first) and LVM2's: the data written before reads back from every image.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"
source "$LVX_ROOT/tests/tools/mirror_layer.sh"

VG=vglwa$$
TW=vglwb$$
uspace_test_loops "$VG" 10 64M
A=("${DEVS[@]:0:5}")
B=("${DEVS[@]:5:5}")
MIB=1048576
SEDA="s|${A[4]}\\b|D4|g;s|${A[3]}\\b|D3|g;s|${A[2]}\\b|D2|g;s|${A[1]}\\b|D1|g;s|${A[0]}\\b|D0|g"
SEDB="s|${B[4]}\\b|D4|g;s|${B[3]}\\b|D3|g;s|${B[2]}\\b|D2|g;s|${B[1]}\\b|D1|g;s|${B[0]}\\b|D0|g"
ML=(--config "global/support_mirrored_mirror_log=1")

# meta V: V's metadata text as LVM2 backs it up, ids/times/hosts/seqno/devices aside
meta() {
    lvm2 vgcfgbackup -f "$SCRATCH/meta_$1.vg" "$1" >/dev/null 2>&1
    sed -n "/^$1 {/,\$p" "$SCRATCH/meta_$1.vg" | sed "s/^$1 {/VG {/" |
        sed -E '/^\t*(id|creation_time|creation_host|seqno|device|dev_size) = /d'
}
# the report of the brief (LVM2 knows no kernel state here: 'X' in its attrs)
F=lv_name,lv_attr,devices,convert_lv,mirror_log,copy_percent,lv_layout,lv_role
rep() {  # rep CMD V SED
    "$1" lvs -a --noheadings --separator ' | ' -o "$F" "$2" 2>/dev/null | sed "$3" |
        sed 's/\(| [a-zA-Z-]\{4\}\)XX/\1--/'
}
seqno() { lvm2 vgs --noheadings -o vg_seqno "$1" 2>/dev/null | tr -d ' '; }
# step DESC ARGS...: "lvx lvconvert ARGS VG/<lv> <A PVs>" beside LVM2's on TW; the last
# args after "--" are PV indexes
step() {
    local desc=$1 lv=$2 rca=0 i pa=() pb=()
    rcb=0
    shift 2
    local args=()
    while (($#)) && [[ $1 != -- ]]; do args+=("$1"); shift; done
    (($#)) && shift
    for i in "$@"; do pa+=("${A[$i]}"); pb+=("${B[$i]}"); done
    lvx lvconvert "${args[@]}" "$VG/$lv" "${pa[@]}" >"$SCRATCH/a.out" 2>&1 || rca=$?
    lvm2 lvconvert "${args[@]}" "$TW/$lv" "${pb[@]}" >"$SCRATCH/b.out" 2>&1 || rcb=$?
    test_eq "$desc: exit code and lines as LVM2's" \
        "$rca $(sandbox_noise <"$SCRATCH/a.out" | sed "$SEDA")" \
        "$rcb $(sandbox_noise <"$SCRATCH/b.out" | sed "$SEDB;s/$TW/$VG/g")"
    test_eq "$desc: metadata text as LVM2's" "$(meta "$VG")" "$(meta "$TW")"
}

uspace_run_ok "pvcreate, vgcreate $VG and its twin $TW" \
    sh -c "$LVX pvcreate ${DEVS[*]} && $LVX vgcreate $VG ${A[*]} && $LVX vgcreate $TW ${B[*]}"
for v in "$VG" "$TW"; do
    if [[ $v == "$VG" ]]; then P=("${A[@]}"); else P=("${B[@]}"); fi
    lvx lvcreate -Zn --type mirror -m1 -L 16m -n m "$v" "${P[0]}" "${P[1]}" "${P[2]}" >/dev/null 2>&1
    lvx lvcreate -an -Zn --type mirror -m1 -L 8m -n k2 "$v" "${P[0]}" "${P[1]}" "${P[2]}" >/dev/null 2>&1
    lvx lvcreate "${ML[@]}" -an -Zn --type mirror -m1 --mirrorlog mirrored -L 8m -n ml "$v" \
        >/dev/null 2>&1
    lvx lvcreate -an -Zn --type mirror -m1 --mirrorlog core -L 8m -n mc "$v" "${P[0]}" "${P[1]}" \
        >/dev/null 2>&1
done
head -c $((16 * MIB)) /dev/urandom >"$SCRATCH/d1"
head -c $((16 * MIB)) /dev/urandom >"$SCRATCH/d2"
uspace_run_ok "16 MiB written to $VG/m, other 16 MiB to $TW/m, both deactivated" sh -c "
    $LVX lvchange -ay $TW/m &&
    dd if=$SCRATCH/d1 of=$DM_DEV_DIR/$VG/m bs=1M oflag=direct conv=fsync status=none &&
    dd if=$SCRATCH/d2 of=$DM_DEV_DIR/$TW/m bs=1M oflag=direct conv=fsync status=none &&
    $LVX vgchange -an $VG && $LVX vgchange -an $TW"
test_eq "the twins have the same metadata" "$(meta "$VG")" "$(meta "$TW")"

# ---- a disk-log mirror, the new image on the PV named
step "-m +1 of a disk-log mirror (D3 named)" m -m +1 -- 3
test_eq "LVM2 reads lvx's layer as its own (lvs -a: devices, convert_lv, mirror_log, copy_percent)" \
    "$(rep lvm2 "$VG" "$SEDA")" "$(rep lvm2 "$TW" "$SEDB")"
diag "$(rep lvm2 "$VG" "$SEDA")"
test_eq "lvx reports it as LVM2 does" "$(rep lvx "$VG" "$SEDA")" "$(rep lvm2 "$VG" "$SEDA")"
test_eq "the layer m_mimagetmp_2 and the new image m_mimage_2 on D3" \
    "$(lvm2 lvs --noheadings -o devices "$VG/m" 2>/dev/null | tr -d ' ')/$(mir_where "$VG" m_mimage_2 | sed "$SEDA")" \
    "m_mimagetmp_2(0),m_mimage_2(0)/D3"
test_ok "LVM2's vgck of lvx's layer" lvm2 vgck "$VG"
seq0=$(seqno "$VG")
step "a second -m +1: refused (already being converted)" m -m +1 -- 4
test_eq "... seqno unchanged ($seq0)" "$(seqno "$VG")" "$seq0"

# ---- -m +2, a mirrored log, --mirrorlog disk of a core-log mirror
step "-m +2 of a disk-log mirror (D3 D4 named)" k2 -m +2 -- 3 4
step "-m +1 of a mirrored-log mirror" ml "${ML[@]}" -m +1
step "-m +1 --mirrorlog disk of a core-log mirror" mc -m +1 --mirrorlog disk
# ---- a mirror under a snapshot: LVM2's refusal, nothing written
for v in "$VG" "$TW"; do
    lvx lvcreate -an -Zn --type mirror -m1 -L 4m -n mo "$v" >/dev/null 2>&1
    lvx lvcreate -an -Zn -s -L 4m -n mo_snap "$v/mo" >/dev/null 2>&1
done
seq0=$(seqno "$VG")
step "-m +1 of a mirror under a snapshot: refused" mo -m +1
test_eq "... LVM2's line and exit code 5" "$(grep -c 'which is under snapshots' "$SCRATCH/b.out")/$rcb" "1/5"
test_eq "... seqno unchanged ($seq0)" "$(seqno "$VG")" "$seq0"
test_ok "LVM2's vgck" lvm2 vgck "$VG"
test_eq "lvs -a of every LV: LVM2 reads lvx's VG as its own twin" \
    "$(rep lvm2 "$VG" "$SEDA")" "$(rep lvm2 "$TW" "$SEDB")"

# ---- the user backend activates each (the layer collapsed first) and finishes it
for v in "$VG" "$TW"; do
    if [[ $v == "$VG" ]]; then d=d1 who=lvx s=$SEDA; else d=d2 who=LVM2 s=$SEDB; fi
    rc=0
    { lvx lvchange -ay "$v/m" && lvx lvconvert "$v/m"; } >"$SCRATCH/fin.out" 2>&1 || rc=$?
    test_eq "$who's layer: lvx activates m and finishes it (collapsed: 3 images, log on D2)" \
        "$rc $(mir_layout "$v" "$s" | grep -E '^m( |_)' | paste -sd' ')" \
        "0 m log=m_mlog m_mimage_0,m_mimage_1,m_mimage_2 m_mimage_0 log= D0 m_mimage_1 log= D1 m_mimage_2 log= D3 m_mlog log= D2"
    [[ $rc == 0 ]] || diag "$(cat "$SCRATCH/fin.out")"
    for img in m_mimage_0 m_mimage_1 m_mimage_2; do
        test_eq "... $img holds the data written before (read from its PV)" \
            "$(mir_pv_sum "$v" $img $((16 * MIB)))" "$(fsum "$SCRATCH/$d")"
    done
    lvx vgchange -an "$v" >/dev/null 2>&1
done
test_ok "LVM2's vgck of $VG after the collapse" lvm2 vgck "$VG"
test_ok "LVM2's vgck of $TW after the collapse" lvm2 vgck "$TW"
lvx vgremove -ff "$TW" >/dev/null 2>&1
done_testing
