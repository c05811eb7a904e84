#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1057-thin-pool-on-raid: lvconvert --thinpool of a raid1 LV with a raid1 --poolmetadata
# (LVM2's pvmove-thin-segtypes.sh:59, lvcreate-thin.sh's raid lines), on the host with
# LVM2 as the oracle of the metadata it reads (LVM2 itself cannot convert here: its
# lvconvert --thinpool needs the kernel's thin-pool target):
#   - the conversion is made (lvx refused it: "with type raid1 cannot be used as a thin
#     pool LV"), with LVM2's lines (as LVM2 2.03.16 prints them in the kernel guest);
#   - p_tdata and p_tmeta are the raid1 LVs, their images and metadata sub-LVs renamed
#     under them (p_tdata_rimage_0, p_tmeta_rmeta_1, ...), in LVM2's order, hidden, the
#     spare lvol0_pmspare made; lvs -a (attr, type, devices, layout, role, data/meta)
#     as LVM2 reports the same metadata: p_tmeta's attr 'e', p_tdata's 'r';
#   - vgcfgbackup by LVM2 of the VG lvx wrote equals lvx's;
#   - a mirror as --poolmetadata: LVM2's refusal lines, exit 5, nothing written;
#   - the user-space backend (the daemon) serves no raid sub-LV under a pool: activation
#     refused with one line, exit 5, nothing active;
#   - lvextend of such a pool grows p_tdata's images (t1065 has more); lvremove of the
#     pool takes the raid sub-LVs with it (lvx
#     left them behind, so LVM2's pvmove-thin-segtypes.sh failed at :59 in its second
#     round with "duplicate logical volume name ..._tdata_rimage_0").
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

VG=vgtpr$$
uspace_test_loops "$VG" 3 64M
seqno() { lvx vgs --noheadings -o vg_seqno "$VG" 2>/dev/null | tr -d ' '; }
quiet() { sandbox_noise | grep -v -e 'not zeroed' -e 'without activation'; }
COLS=lv_name,lv_size,segtype,devices,lv_layout,lv_role,data_lv,metadata_lv,pool_lv

uspace_run_ok "pvcreate, vgcreate -s 1m" sh -c "$LVX pvcreate -q ${DEVS[*]} && $LVX vgcreate -q -s 1m $VG ${DEVS[*]}"
uspace_run_ok "raid1 p -l 8, raid1 m -L 2" sh -c \
    "$LVX lvcreate -q -an -Zn --type raid1 -m 1 -l 8 -n p $VG ${DEVS[0]} ${DEVS[1]} &&
     $LVX lvcreate -q -an -Zn --type raid1 -m 1 -L 2 -n m $VG ${DEVS[0]} ${DEVS[1]}"
uspace_run_ok "mirror mm -L 2 (--type mirror --mirrorlog core)" \
    lvx lvcreate -q -an -Zn --type mirror -m 1 --mirrorlog core -L 2 -n mm "$VG" "${DEVS[0]}" "${DEVS[1]}"

s0=$(seqno)
rc=0; out=$(lvx lvconvert --yes --thinpool "$VG/p" --poolmetadata mm 2>&1) || rc=$?
test_eq "--poolmetadata of a mirror: LVM2's lines, exit 5" "$rc $(quiet <<<"$out" | sed 's/^ *//')" \
    "5 Mirror logical volumes cannot be used for pool metadata.
Try \"raid1\" segment type instead."
test_eq "... nothing written" "$(seqno)" "$s0"
lvx lvremove -q -f "$VG/mm" >/dev/null 2>&1

rc=0; out=$(lvx lvconvert --yes --thinpool "$VG/p" --poolmetadata m 2>&1) || rc=$?
test_eq "lvconvert --yes --thinpool VG/p --poolmetadata m: exit 0, LVM2's lines" \
    "$rc $(quiet <<<"$out" | sed "s/^ *//; s/$VG/VG/g")" \
    "0 Thin pool volume with chunk size 64.00 KiB can address at most <15.88 TiB of data.
WARNING: Converting VG/p and VG/m to thin pool's data and metadata volumes with metadata wiping.
THIS WILL DESTROY CONTENT OF LOGICAL VOLUME (filesystem etc.)
Converted VG/p and VG/m to thin pool."
lvx vgcfgbackup -q -f "$SCRATCH/x.vg" "$VG" >/dev/null 2>&1
test_eq "the LVs in LVM2's order (its vgcfgbackup in the guest)" \
    "$(sed -n '/logical_volumes {/,$p' "$SCRATCH/x.vg" | sed -n 's/^\t\t\([a-z_0-9]*\) {$/\1/p' | xargs)" \
    "p p_tdata p_tmeta p_tdata_rimage_0 p_tdata_rmeta_0 p_tdata_rimage_1 p_tdata_rmeta_1 p_tmeta_rimage_0 p_tmeta_rmeta_0 p_tmeta_rimage_1 p_tmeta_rmeta_1 lvol0_pmspare"
test_eq "... p_tdata/p_tmeta: raid1 over the renamed sub-LVs, hidden" \
    "$(sed -n '/^\t\tp_t\(data\|meta\) {/,/^\t\t}/p' "$SCRATCH/x.vg" | grep -E 'status|type|"p_' | xargs)" \
    "status = [READ, WRITE] type = raid1 p_tdata_rmeta_0, p_tdata_rimage_0, p_tdata_rmeta_1, p_tdata_rimage_1 status = [READ, WRITE] type = raid1 p_tmeta_rmeta_0, p_tmeta_rimage_0, p_tmeta_rmeta_1, p_tmeta_rimage_1"
same_as_lvm2 lvs -a -o "$COLS" "$VG"
# the attr's type letters (LVM2 without device-mapper and lvx's daemon differ in the state ones)
attr1() { "$@" lvs -a --noheadings -o lv_name,lv_attr "$VG" 2>/dev/null | awk '{print $1, substr($2, 1, 1)}' | xargs; }
test_eq "... the attr's volume type letters as LVM2's" "$(attr1 lvx)" "$(attr1 lvm2)"
test_eq "... p_tdata 'r', p_tmeta 'e' (pool metadata before raid, as LVM2)" \
    "$(lvx lvs --noheadings -o lv_attr "$VG/p_tdata" "$VG/p_tmeta" | cut -c3 | xargs)" "r e"
lvm2 vgcfgbackup -f "$SCRATCH/l.vg" "$VG" >/dev/null 2>&1
lvx vgcfgbackup -f "$SCRATCH/x.vg" "$VG" >/dev/null 2>&1
test_eq "LVM2's vgcfgbackup of lvx's VG equals lvx's" \
    "$(sed -n '/^'"$VG"' {/,$p' "$SCRATCH/x.vg")" "$(sed -n '/^'"$VG"' {/,$p' "$SCRATCH/l.vg")"

s0=$(seqno)
rc=0; out=$(lvx lvchange -ay "$VG/p" 2>&1) || rc=$?
test_eq "user backend: lvchange -ay of the pool refused, exit 5, one line" \
    "$rc $(quiet <<<"$out" | wc -l)" "5 1"
test_eq "... the reason" "$(quiet <<<"$out" | sed "s/^ *//; s/$VG/VG/g")" \
    "Thin pool VG/p with raid data or metadata cannot be served by the user-space backend."
test_eq "... nothing active, nothing written" \
    "$(lvx lvs -a --noheadings -o lv_active "$VG" | grep -c active) $(seqno)" "0 $s0"
s0=$(seqno)
rc=0; out=$(lvx lvextend -L+4M "$VG/p" 2>&1) || rc=$?
test_eq "lvextend -L+4M of the pool: exit 0, written once (lvx refused it)" "$rc $(seqno)" \
    "0 $((s0 + 1))"
test_eq "... p_tdata's images grown by 4 extents each (LVM2 reading)" \
    "$(lvm2 lvs -a --noheadings -o lv_name,lv_size "$VG" 2>/dev/null | awk '$1 ~ /^.p_tdata/ {print $1 "=" $2}' | sort | xargs)" \
    "[p_tdata]=12.00m [p_tdata_rimage_0]=12.00m [p_tdata_rimage_1]=12.00m [p_tdata_rmeta_0]=1.00m [p_tdata_rmeta_1]=1.00m"
uspace_run_ok "lvremove -ff VG/p" lvx lvremove -q -ff "$VG/p"
test_eq "... the pool's raid sub-LVs and the spare went with it (lvx left p_tdata_rimage_0 etc.)" \
    "$(lvx lvs -a --noheadings -o lv_name "$VG" | xargs)" ""
test_eq "... LVM2 reads the VG: no LV" "$(lvm2 lvs -a --noheadings -o lv_name "$VG" 2>&1 | quiet | xargs)" ""
uspace_run_ok "vgremove -ff" lvx vgremove -q -ff "$VG"
done_testing
