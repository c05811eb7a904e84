#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0975-raid0-takeover: lvconvert --type striped|raid0|raid0_meta of inactive LVs
# (LVM2 wants them active, lvx converts them: only the metadata changes), three loop
# devices of 64 MiB, LVM2 (activation off) reading every result:
#   - a striped LV of two segments (extended) -> raid0_meta: LVM2 reads lvx's layout
#     as lvx reports it, vgck passes, each rimage holds its stripe's extents (as LVM2
#     reads them before), each rmeta one extent on its rimage's PV, the
#     attributes of the LV and sub-LVs as those of a raid0_meta LV made by lvcreate;
#   - raid0_meta -> raid0 -> raid0_meta -> striped: the rmeta gone / back, and the
#     striped LV's extents are those it had at the start (the data never moves);
#   - striped -> raid0 -> striped, a raid0 LV made by lvcreate -> striped;
#   - raid0_meta with two PVs named: the two rmeta on those PVs, one each;
#   - refusals as LVM2's, nothing written: varying stripe counts, the type the LV has,
#     the question unanswered (no -y), raid1 -> raid0 of the inactive LV (LVM2's "must be
#     active", its interim raid5_n needing the kernel); LVM2 itself refuses the inactive
#     LV ("must be active").
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/side.sh"

VG=vgr0t$$
side_setup 3
# rep LV FIELDS: LVM2's report of LV's segments, "LV FIELD..." a line
rep() { lvm2 lvs -a --segments --noheadings --separator ' ' -o "lv_name,$2" "$VG" 2>/dev/null | sed 's/^ *//; s/[][]//g' | grep "^$1 "; }
FIELDS=lv_name,segtype,stripes,stripe_size,seg_pe_ranges
same_layout() {   # same_layout DESC: LVM2 reads lvx's layout as lvx reports it, vgck passes
    test_eq "$1: LVM2 reads the layout lvx reports" \
        "$(lvm2 lvs -a --segments --noheadings -o lv_name,segtype,stripes,stripe_size,seg_pe_ranges,devices,lv_attr "$VG" 2>/dev/null)" \
        "$(lvx lvs -a --segments --noheadings -o lv_name,segtype,stripes,stripe_size,seg_pe_ranges,devices,lv_attr "$VG" 2>/dev/null)"
    test_ok "$1: LVM2's vgck passes" lvm2 vgck "$VG"
}
convert() {       # convert TYPE LV [PV...]: lvx lvconvert -y --type TYPE, LVM2's lines
    local t=$1 lv=$2 from out rc=0 want=""
    shift 2
    from=$(lvm2 lvs --noheadings -o segtype "$VG/$lv" 2>/dev/null | head -n1 | tr -d ' ')
    out=$(lvx lvconvert -y --type "$t" "$VG/$lv" "$@" 2>&1 | grep -v WARNING; exit "${PIPESTATUS[0]}") || rc=$?
    # as LVM2 2.03.16 prints them (its guest run, t0733): the default stripe size for
    # raid0*, then --stripes and -R named as not allowed though not given
    [[ $t == striped ]] || want="Using default stripesize 64.00 KiB.|"
    want+="--stripes not allowed for LV $VG/$lv when converting from $from to $t.|"
    want+="-R/--regionsize not allowed for LV $VG/$lv when converting from $from to $t.|"
    test_eq "lvconvert -y --type $t $lv ($from): exit 0, LVM2's lines" "$rc $(sed 's/^ *//' <<<"$out" | tr '\n' '|')" \
        "0 ${want}Logical volume $VG/$lv successfully converted.|"
}
# pes: "PV:A-B ..." ranges as single extents "PV:A PV:A+1 ..."
pes() { tr ' ' '\n' | awk -F'[:-]' 'NF == 3 { for (i = $2; i <= $3; i++) printf " %s:%d", $1, i }'; }
# stripe_pes LV N: the extents of each of the N stripes, stripe by stripe, from LVM2's report
stripe_pes() { rep "$1" seg_pe_ranges | cut -d' ' -f2- | tr ' ' '\n' | awk -v n="$2" '{ s[(NR - 1) % n] = s[(NR - 1) % n] " " $1 } END { for (i = 0; i < n; i++) print i ":" s[i] }' |
    while read -r i r; do echo "$i$(pes <<<"$r")"; done; }
# rimage_pes LV N: the same, read from the rimage sub-LVs
rimage_pes() { local i; for ((i = 0; i < $2; i++)); do echo "$i:$(rep "$1_rimage_$i" seg_pe_ranges | cut -d' ' -f2 | tr '\n' ' ' | pes)"; done; }

test_ok "pvcreate, vgcreate" sh -c "$LVX pvcreate -q ${D[*]} && $LVX vgcreate -q $VG ${D[*]}"
test_ok "striped s (-i3 -l6), e (-i2 -l2), s extended by 3 extents (two segments), raid0 r, raid0_meta c" sh -c \
    "$LVX lvcreate -q -an -Zn -i3 -l6 -n s $VG && $LVX lvcreate -q -an -Zn -i2 -l2 -n e $VG &&
     $LVX lvextend -q -l+3 $VG/s && $LVX lvcreate -q -an -Zn --type raid0 -i3 -l3 -n r $VG &&
     $LVX lvcreate -q -an -Zn --type raid0_meta -i3 -l3 -n c $VG"
test_eq "s has two striped segments" "$(rep s segtype | wc -l)" 2
start=$(stripe_pes s 3)
before=$(rep s "$FIELDS")

test_eq "LVM2 itself refuses the inactive LV" "$(lvm2 lvconvert -y --type raid0 "$VG/s" 2>&1 | tail -n1 | sed 's/^ *//')" \
    "$VG/s must be active to perform this operation."

# ---- striped -> raid0_meta
convert raid0_meta s
same_layout "striped -> raid0_meta"
test_eq "... s is one raid0_meta segment over 3 images" "$(rep s segtype,stripes,stripe_size)" "s raid0_meta 3 64.00k"
test_eq "... each rimage holds its stripe's extents" "$(rimage_pes s 3)" "$start"
for i in 0 1 2; do
    img=$(rep "s_rimage_$i" seg_pe_ranges | cut -d' ' -f2 | cut -d: -f1 | sort -u)
    test_eq "... s_rmeta_$i: one extent on its rimage's PV" \
        "$(rep "s_rmeta_$i" seg_pe_ranges | cut -d' ' -f2 | sed -E 's/:([0-9]+)-\1$/:one/')" "$img:one"
done
# attrs: LVM2's reading of the LV and its sub-LVs, the LV's name taken out
attrs() { lvm2 lvs -a --noheadings -o lv_name,lv_attr "$VG" 2>/dev/null | awk -v l="$1" '$1 ~ "^\\[?" l "(_|$)" { sub(l, "X", $1); print $1, $2 }' | tr '\n' ' '; }
test_eq "... the LV and its sub-LVs as LVM2 reads those of a raid0_meta LV made by lvcreate" "$(attrs s)" "$(attrs c)"

# ---- raid0_meta -> raid0 -> raid0_meta -> striped
convert raid0 s
same_layout "raid0_meta -> raid0"
test_eq "... no rmeta left" "$(rep s segtype | tr '\n' ' ')$(lvm2 lvs -a --noheadings -o lv_name "$VG" | grep -c s_rmeta)" "s raid0 0"
convert raid0_meta s
same_layout "raid0 -> raid0_meta"
convert striped s
same_layout "raid0_meta -> striped"
test_eq "... s's segments and extents are those it had at the start" "$(rep s "$FIELDS")" "$before"
test_eq "... no sub-LV of s left" "$(lvm2 lvs -a --noheadings -o lv_name "$VG" | grep -c 's_r')" 0

# ---- striped -> raid0 -> striped; raid0 made by lvcreate -> striped
convert raid0 s
same_layout "striped -> raid0"
test_eq "... raid0 without rmeta, images holding the stripes" "$(rep s segtype,stripes) $(rimage_pes s 3 | tr '\n' ' ')" \
    "s raid0 3 $(tr '\n' ' ' <<<"$start")"
convert striped s
test_eq "... and back: the extents it had" "$(rep s "$FIELDS")" "$before"
rstripes=$(rimage_pes r 3)
convert striped r
same_layout "raid0 (lvcreate) -> striped"
test_eq "... r's stripes are its former images' extents" "$(stripe_pes r 3)" "$rstripes"

# ---- raid0_meta with PVs named
convert raid0_meta e "${D[2]}" "${D[0]}"
same_layout "striped -> raid0_meta on two named PVs"
test_eq "... the two rmeta on the PVs named, one each" \
    "$(for i in 0 1; do rep "e_rmeta_$i" devices | cut -d' ' -f2 | cut -d'(' -f1; done | sort | tr '\n' ' ')" \
    "$(printf '%s\n' "${D[2]}" "${D[0]}" | sort | tr '\n' ' ')"

# ---- refusals: nothing written
test_ok "lvextend -i2 of s (a segment of two stripes)" lvx lvextend -q -i2 -l+2 "$VG/s"
vgsum=$(sha_devs "${D[@]}")
out=$(lvx lvconvert -y --type raid0 "$VG/s" 2>&1); rc=$?
test_eq "varying stripe counts: LVM2's line, exit 5" "$rc $(tail -n1 <<<"$out" | sed 's/^ *//')" \
    "5 Cannot convert striped LV $VG/s with varying stripe count to raid0."
out=$(lvx lvconvert -y --type raid0_meta "$VG/e" 2>&1); rc=$?
test_eq "the type it has: LVM2's lines, exit 5" "$rc $(sed 's/^ *//' <<<"$out" | tr '\n' '|')" \
    "5 Using default stripesize 64.00 KiB.|--stripes not allowed when converting raid0_meta LV $VG/e.|-R/--regionsize not allowed when converting raid0_meta LV $VG/e.|Logical volume $VG/e is already of requested type raid0_meta.|"
out=$(lvx lvconvert --type striped "$VG/e" 2>&1 </dev/null); rc=$?
test_eq "the question unanswered: LVM2's question, lines and list, exit 5" "$rc $(grep -v 'not allowed' <<<"$out" | sed 's/^ *//; s/\[y\/n\]: .*$/[y\/n]:/' | tr '\n' '|')" \
    "5 Are you sure you want to convert raid0_meta LV $VG/e to striped type? [y/n]:|Logical volume $VG/e NOT converted.|Converting $VG/e from raid0_meta is directly possible to the following layouts:|raid0|striped|raid10_near|raid4|raid5_n|raid6_n_6|"
test_ok "a raid1 LV m" lvx lvcreate -q -an -Zn --type raid1 -m1 -l1 -n m "$VG"
vgsum=$(sha_devs "${D[@]}")
out=$(lvx lvconvert -y --type raid0 "$VG/m" 2>&1); rc=$?
lvm2_last=$(lvm2 lvconvert -y --type raid0 "$VG/m" 2>&1 | tail -n1 | sed 's/^ *//')
test_eq "raid1 -> raid0 of the inactive LV (LVM2's interim raid5_n wants it active): LVM2's last line, exit 5" \
    "$rc $(tail -n1 <<<"$out" | sed 's/^ *//')" "5 $lvm2_last"
test_eq "... which says so" "$lvm2_last" "$VG/m must be active to perform this operation."
test_eq "nothing written by the refusals" "$(sha_devs "${D[@]}")" "$vgsum"

lvx vgremove -q -ff "$VG" >/dev/null 2>&1
done_testing
