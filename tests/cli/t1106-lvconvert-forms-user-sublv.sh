#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1106-lvconvert-forms-user-sublv: two small LVM2 differences.
#   - lvconvert's command forms: `lvconvert VG/LV` (the plain form, no option choosing a
#     conversion) is matched by LVM2's parser only when no option but -v is given: -q,
#     -y, -f, --config, --devices, --alloc alone leave no form (exit 3, its parser's
#     line); `--type mirror` without -m of a linear, striped, mirror or raid5 LV (with
#     --mirrorlog too): "Conversions to --type mirror require -m/--mirrors" (exit 5).
#     lvx beside LVM2 on the same VG, exit code and lines equal, nothing written.
#   - lvs -a of RAID and mirror LVs served by lvx's daemon (user backend): their hidden
#     sub-LVs (_rimage_N, _rmeta_N, _mimage_N, _mlog, a _mimagetmp_N layer LVM2 left and
#     the images under it) are reported as LVM2 on dm reports its sub-LV devices: active,
#     open (held by the LV above: lv_attr "iwi-aor---", "lwi-aom---"); inactive again
#     once the LV is deactivated.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/uspace-env.sh
source "$LVX_ROOT/tests/tools/uspace-env.sh"

VG=vgfsl$$
uspace_test_loops "$VG" 4 48M
seqno() { lvm2 vgs --noheadings -o vg_seqno "$VG" 2>/dev/null | tr -d ' '; }
attrs() {   # attrs LV...: "name attr" of each, from lvx's lvs -a, one line
    local lv
    for lv in "$@"; do
        printf '%s ' "$lv" "$(lvx lvs -a --noheadings -o lv_attr "$VG/$lv" 2>/dev/null | tr -d ' ')"
    done
}
column() {  # column FIELD LV...: lvx's FIELD of each LV, blanks as "-", one line
    local lv f
    for lv in "${@:2}"; do
        f=$(lvx lvs -a --noheadings -o "$1" "$VG/$lv" 2>/dev/null | tr -d ' ')
        printf '%s ' "${f:--}"
    done
}

uspace_run_ok "pvcreate, vgcreate" sh -c "$LVX pvcreate -q ${DEVS[*]} && $LVX vgcreate -q $VG ${DEVS[*]}"
uspace_run_ok "inactive LVs: linear lin, striped str, mirror m, raid5 r5" sh -c "
    $LVX lvcreate -q -an -Zn -L 8m -n lin $VG ${DEVS[0]} &&
    $LVX lvcreate -q -an -Zn -i 2 -L 8m -n str $VG &&
    $LVX lvcreate -q -an -Zn --type mirror -m 1 -L 8m -n m $VG ${DEVS[0]} ${DEVS[1]} ${DEVS[2]} &&
    $LVX lvcreate -q -an -Zn --type raid5 -i 2 -L 8m -n r5 $VG"

# ---- lvconvert's command forms (LVM2's parser and its raid-types path)
s0=$(seqno)
same_refusal "lvconvert -q VG/m (the plain form takes no option but -v)" lvconvert -q "$VG/m"
same_refusal "lvconvert --config ... VG/m" lvconvert --config 'global { units = "m" }' "$VG/m"
same_refusal "lvconvert -y VG/m" lvconvert -y "$VG/m"
same_refusal "lvconvert -f VG/lin" lvconvert -f "$VG/lin"
same_refusal "lvconvert --alloc anywhere VG/m" lvconvert --alloc anywhere "$VG/m"
same_refusal "lvconvert --devices ... VG/m" lvconvert --devices "$(IFS=,; echo "${DEVS[*]}")" "$VG/m"
same_refusal "lvconvert -v VG/lin (-v keeps the plain form: linear refused)" lvconvert -v "$VG/lin"
same_refusal "lvconvert --type mirror VG/lin (no -m)" lvconvert --type mirror "$VG/lin"
same_refusal "lvconvert --type mirror --mirrorlog core VG/str" \
    lvconvert --type mirror --mirrorlog core "$VG/str"
same_refusal "lvconvert --type mirror --mirrorlog core VG/m" \
    lvconvert --type mirror --mirrorlog core "$VG/m"
same_refusal "lvconvert --type mirror VG/r5" lvconvert --type mirror "$VG/r5"
test_eq "nothing written by the refused commands (seqno)" "$(seqno)" "$s0"

# ---- lvs -a of LVs the daemon serves: their sub-LVs active, held open
uspace_run_ok "raid1 r, core-log mirror c created active; m activated" sh -c "
    $LVX lvcreate -q -Zn --type raid1 -m 1 -L 8m -n r $VG ${DEVS[2]} ${DEVS[3]} &&
    $LVX lvcreate -q -Zn --type mirror -m 1 --mirrorlog core -L 8m -n c $VG ${DEVS[2]} ${DEVS[3]} &&
    $LVX lvchange -q -ay $VG/m"
for _ in $(seq 100); do
    [[ $(field "$VG/m" copy_percent)$(field "$VG/c" copy_percent) == 100.00100.00 ]] && break
    sleep 0.1
done
test_eq "raid1 r: its images and metadata LVs active and open (lv_attr as LVM2's on dm)" \
    "$(attrs r r_rimage_0 r_rimage_1 r_rmeta_0 r_rmeta_1)" \
    "r rwi-a-r--- r_rimage_0 iwi-aor--- r_rimage_1 iwi-aor--- r_rmeta_0 ewi-aor--- r_rmeta_1 ewi-aor--- "
test_eq "mirror m: its images and log active and open" \
    "$(attrs m m_mimage_0 m_mimage_1 m_mlog)" \
    "m mwi-a-m--- m_mimage_0 iwi-aom--- m_mimage_1 iwi-aom--- m_mlog lwi-aom--- "
test_eq "core-log mirror c: its images" "$(attrs c_mimage_0 c_mimage_1)" \
    "c_mimage_0 iwi-aom--- c_mimage_1 iwi-aom--- "
test_eq "lv_active, lv_device_open of m's and r's sub-LVs" \
    "$(column lv_active m_mimage_0 m_mlog r_rmeta_1)/$(column lv_device_open m_mimage_1 m_mlog r_rimage_0)" \
    "active active active /open open open "
uspace_run_ok "lvchange -an m" lvx lvchange -q -an "$VG/m"
test_eq "... m's sub-LVs inactive again (r's still active)" \
    "$(attrs m_mimage_0 m_mlog r_rimage_0)" "m_mimage_0 Iwi---m--- m_mlog lwi---m--- r_rimage_0 iwi-aor--- "

# ---- a mirror LVM2 left layered (m over m_mimagetmp_2), served with --poll n
test_ok "LVM2 adds an image to the inactive m (D3): its layer m_mimagetmp_2" sh -c "
    LVM_SYSTEM_DIR=$SCRATCH/lvm lvm lvconvert -q -m +1 $VG/m ${DEVS[3]} >/dev/null 2>&1 &&
    [ \"\$(LVM_SYSTEM_DIR=$SCRATCH/lvm lvm lvs --noheadings -o devices $VG/m 2>/dev/null | tr -d ' ')\" = m_mimagetmp_2\(0\),m_mimage_2\(0\) ]"
uspace_run_ok "m activated with --poll n (the layer stays)" lvx lvchange -q -ay --poll n "$VG/m"
for _ in $(seq 100); do [[ $(field "$VG/m" copy_percent) == 100.00 ]] && break; sleep 0.1; done
test_eq "the layer, its images and log, the new image: active and open" \
    "$(attrs m m_mimagetmp_2 m_mimage_0 m_mimage_1 m_mlog m_mimage_2 | sed 's/ Iwi/ iwi/g')" \
    "m cwi-a-m--- m_mimagetmp_2 mwi-aom--- m_mimage_0 iwi-aom--- m_mimage_1 iwi-aom--- m_mlog lwi-aom--- m_mimage_2 iwi-aom--- "
test_eq "... lv_active of the layer and of an image under it" \
    "$(column lv_active m_mimagetmp_2 m_mimage_1)" "active active "
uspace_stop_daemon "$VG"
test_eq "all inactive once the VG is deactivated" \
    "$(lvx lvs -a --noheadings -o lv_active "$VG" 2>/dev/null | tr -d ' \n')" ""
done_testing
