#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1065-thin-pool-raid-resize: thin pools whose data and/or metadata LVs are RAID
# (lvconvert --thinpool of raid LVs), resized and converted as LVM2 2.03.16 does (its
# lvextend-thin-raid.sh and lvconvert-thin-raid.sh; lvx refused any resize of such a
# pool: "lvx does not resize thin pool ... with raid data or metadata yet", and every
# conversion of _tdata/_tmeta: "it is a sub-LV (tdata)").  On the host, inactive, with
# LVM2 reading what lvx wrote (LVM2 itself refuses to resize a pool without
# device-mapper: "Cannot resize ... without using device-mapper kernel driver"):
#   - lvextend -l+3 of a pool over a raid1 _tdata: every image grows by 3 extents after
#     its last one, the rmeta sub-LVs stay (lvextend-thin-raid.sh:31-34), LVM2's lines;
#     LVM2's vgcfgbackup of the result equals lvx's; lvreduce still refused as LVM2;
#   - raid10 -i3 -m1 _tdata and _tmeta, lvextend --poolmetadatasize +1 --size +1: both
#     rounded to the 3 data stripes, 6.00m -> 7.50m and 3.00m -> 4.50m, every image by
#     its share, the spare grown to 4.50m (lvextend-thin-raid.sh:47-50);
#   - a linear pool with a raid1 _tmeta grown to 3G: its metadata follows LVM2's estimate
#     (3.00m, both images), the spare too (lvextend-thin-raid.sh:61, bz1722666);
#   - --splitmirrors, -m and --merge of an inactive pool's raid1 _tdata/_tmeta: LVM2's
#     refusals (it needs the LVs active; the user-space backend never activates such a
#     pool), exit 5, nothing written.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"

need_loop
need_cmd lvm
need_lvx
plan_later
mapfile -t D < <(make_loops 6 600M)
[[ ${#D[@]} == 6 ]] || { _tap_result 1 "6 loop devices"; done_testing; }
lvm_sandbox "${D[@]}"
VG=vgtrz$$
seqno() { lvm2 vgs --noheadings -o vg_seqno "$VG" 2>/dev/null | tr -d ' '; }
run() {  # run ARGS...: lvx with output in $SCRATCH/o, exit code in rc
    rc=0
    lvx "$@" >"$SCRATCH/o" 2>&1 </dev/null || rc=$?
}
out() { grep -v -e "NOT backed up" "$SCRATCH/o" | sed "s/^ *//; s/$VG/VG/g" | paste -sd'|'; }
# LVM2's reading of the VG: NAME=SIZE=SEG_PE=DEVICES for the LVs matching $1, device names as D<i>
layout() {
    local s="" i
    for ((i = ${#D[@]} - 1; i >= 0; i--)); do s+="s|${D[$i]}\\b|D$i|g;"; done
    lvm2 lvs -a --noheadings -o lv_name,lv_size,seg_size_pe,devices "$VG" 2>/dev/null |
        sed "$s" | awk -v re="$1" '$1 ~ re { print $1 "=" $2 "=" $3 "=" $4 }' | paste -sd' '
}
fresh_vg() {
    lvx vgremove -q -ff "$VG" >/dev/null 2>&1
    lvx vgcreate -q -s 512k "$VG" "${D[@]}" >/dev/null 2>&1
}

test_ok "pvcreate, vgcreate -s 512k on 6 PVs" sh -c \
    "$LVX pvcreate -q ${D[*]} >/dev/null 2>&1 && $LVX vgcreate -q -s 512k $VG ${D[*]} >/dev/null 2>&1"

# ---- a raid1 _tdata (lvextend-thin-raid.sh:25-34)
test_ok "raid1 pool -l2, lvconvert --thinpool VG/pool D2" sh -c \
    "$LVX lvcreate -q -an -Zn --type raid1 -l2 --nosync -n pool $VG >/dev/null 2>&1 &&
     $LVX lvconvert -q --yes --thinpool $VG/pool ${D[2]} >/dev/null 2>&1"
s0=$(seqno)
run lvextend -l+3 "$VG/pool"
test_eq "lvextend -l+3 VG/pool: exit 0, LVM2's lines" "$rc $(out)" \
    "0 Extending 2 mirror images.|Size of logical volume VG/pool_tdata changed from 1.00 MiB (2 extents) to 2.50 MiB (5 extents).|Logical volume VG/pool successfully resized."
test_eq "... written once" "$(seqno)" "$((s0 + 1))"
test_eq "... LVM2 reads pool and pool_tdata of 5 extents (lvextend-thin-raid.sh:33-34)" \
    "$(layout '^(pool|\[pool_tdata\])$')" \
    "pool=2.50m=5=pool_tdata(0) [pool_tdata]=2.50m=5=pool_tdata_rimage_0(0),pool_tdata_rimage_1(0)"
test_eq "... each image grown after its last extent, the rmeta sub-LVs as they were" \
    "$(layout '_r(image|meta)_')" \
    "[pool_tdata_rimage_0]=2.50m=5=D0(1) [pool_tdata_rimage_1]=2.50m=5=D1(1) [pool_tdata_rmeta_0]=512.00k=1=D0(0) [pool_tdata_rmeta_1]=512.00k=1=D1(0)"
lvm2 vgcfgbackup -f "$SCRATCH/l.vg" "$VG" >/dev/null 2>&1
lvx vgcfgbackup -f "$SCRATCH/x.vg" "$VG" >/dev/null 2>&1
test_eq "... LVM2's vgcfgbackup of lvx's VG equals lvx's" \
    "$(sed -n '/^'"$VG"' {/,$p' "$SCRATCH/x.vg")" "$(sed -n '/^'"$VG"' {/,$p' "$SCRATCH/l.vg")"
s0=$(seqno)
same_refusal "lvreduce -f -l-1 VG/pool" lvreduce -f -l-1 "$VG/pool"
test_eq "... nothing written" "$(seqno)" "$s0"

# ---- raid10 -i3 -m1 _tdata and _tmeta (lvextend-thin-raid.sh:40-50)
fresh_vg
test_ok "raid10 -m1 -i3 pool -L5 and meta -L3, lvconvert --thinpool --poolmetadata" sh -c \
    "$LVX lvcreate -q -an -Zn --type raid10 -m1 -L5 -i3 --nosync -n pool $VG >/dev/null 2>&1 &&
     $LVX lvcreate -q -an -Zn --type raid10 -m1 -L3 -i3 --nosync -n meta $VG >/dev/null 2>&1 &&
     $LVX lvconvert -q --yes --thinpool $VG/pool --poolmetadata $VG/meta >/dev/null 2>&1"
test_eq "pool_tdata 6.00m, pool_tmeta 3.00m (lvextend-thin-raid.sh:44-45)" \
    "$(layout '^\[pool_t(data|meta)\]$' | sed 's/=pool_t[^ ]*//g')" \
    "[pool_tdata]=6.00m=12 [pool_tmeta]=3.00m=6"
run lvextend --poolmetadatasize +1 --size +1 "$VG/pool"
test_eq "lvextend --poolmetadatasize +1 --size +1 VG/pool: exit 0" "$rc" 0 || diag "$(out)"
test_eq "... both rounded to the 3 data stripes: 7.50m, 4.50m (lvextend-thin-raid.sh:49-50)" \
    "$(layout '^\[pool_t(data|meta)\]$' | sed 's/=pool_t[^ ]*//g')" \
    "[pool_tdata]=7.50m=15 [pool_tmeta]=4.50m=9"
test_eq "... every image by its share: 6 x 2.50m, 6 x 1.50m; the rmeta sub-LVs as they were" \
    "$(lvm2 lvs -a --noheadings -o lv_name,lv_size "$VG" 2>/dev/null | awk '$1 ~ /_r(image|meta)_/ { sub(/_[0-9]\]$/, "]", $1); print $1 "=" $2 }' | sort | uniq -c | xargs)" \
    "6 [pool_tdata_rimage]=2.50m 6 [pool_tdata_rmeta]=512.00k 6 [pool_tmeta_rimage]=1.50m 6 [pool_tmeta_rmeta]=512.00k"
test_eq "... the spare grown to the metadata's size" \
    "$(lvm2 lvs -a --noheadings -o lv_size "$VG/lvol0_pmspare" 2>/dev/null | xargs)" "4.50m"

# ---- a linear pool with a raid1 _tmeta (lvextend-thin-raid.sh:56-61, bz1722666)
fresh_vg
test_ok "linear pool -L4, raid1 meta -L2, lvconvert --thinpool --poolmetadata" sh -c \
    "$LVX lvcreate -q -an -Zn -L4 -n pool $VG >/dev/null 2>&1 &&
     $LVX lvcreate -q -an -Zn --type raid1 -m1 -L2 --nosync -n meta $VG >/dev/null 2>&1 &&
     $LVX lvconvert -q --yes --thinpool $VG/pool --poolmetadata $VG/meta >/dev/null 2>&1"
run lvextend -L3G "$VG/pool"
test_eq "lvextend -L3G VG/pool: exit 0, the metadata first (LVM2's estimate), both images" \
    "$rc $(out)" \
    "0 Extending 2 mirror images.|Size of logical volume VG/pool_tmeta changed from 2.00 MiB (4 extents) to 3.00 MiB (6 extents).|Size of logical volume VG/pool_tdata changed from 4.00 MiB (8 extents) to 3.00 GiB (6144 extents).|Logical volume VG/pool successfully resized."
test_eq "... LVM2 reads pool 3.00g, pool_tmeta and its images 3.00m, the spare 3.00m" \
    "$(lvm2 lvs -a --noheadings -o lv_name,lv_size "$VG" 2>/dev/null | grep -v -e rmeta -e '^ *\[pool_tdata\]' | sort | awk '{print $1 "=" $2}' | xargs)" \
    "[lvol0_pmspare]=3.00m [pool_tmeta]=3.00m [pool_tmeta_rimage_0]=3.00m [pool_tmeta_rimage_1]=3.00m pool=3.00g"

# ---- conversions of an inactive pool's raid1 sub-LVs: LVM2's refusals, nothing written
fresh_vg
test_ok "raid1 -m1 d -l4 and m -l4, lvconvert --thinpool VG/d --poolmetadata m" sh -c \
    "$LVX lvcreate -q -an -Zn --type raid1 -m1 -l4 --nosync -n d $VG >/dev/null 2>&1 &&
     $LVX lvcreate -q -an -Zn --type raid1 -m1 -l4 --nosync -n m $VG >/dev/null 2>&1 &&
     $LVX lvconvert -q --yes --thinpool $VG/d --poolmetadata $VG/m >/dev/null 2>&1"
s0=$(seqno)
same_refusal "lvconvert -y -m +1 VG/d_tdata (inactive)" lvconvert -y -m +1 "$VG/d_tdata" "${D[2]}"
same_refusal "lvconvert -y -m -1 VG/d_tmeta (inactive)" lvconvert -y -m -1 "$VG/d_tmeta"
same_refusal "lvconvert --merge VG/d_tdata_rimage_1 (not tracked)" lvconvert --merge "$VG/d_tdata_rimage_1"
run lvconvert --splitmirrors 1 --name d2 "$VG/d_tdata"
test_eq "lvconvert --splitmirrors 1 --name d2 VG/d_tdata (inactive): one line, exit 5" \
    "$rc $(out)" "5 VG/d_tdata must be active to perform this operation."
run lvconvert -y --splitmirrors 1 --trackchanges "$VG/d_tmeta"
test_eq "lvconvert --splitmirrors 1 --trackchanges VG/d_tmeta (inactive): one line, exit 5" \
    "$rc $(out)" "5 VG/d_tmeta must be active to perform this operation."
test_eq "... nothing written" "$(seqno)" "$s0"
test_ok "vgremove -ff" lvx vgremove -q -ff "$VG"
done_testing
