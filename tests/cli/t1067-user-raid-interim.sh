#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1067-user-raid-interim: the conversions LVM2 2.03.16 makes in several commands, one
# interim step each (its _set_convenient_raid145610_segtype_to), with the lvx daemon
# (user-space activation); six 64 MiB loop devices, LVM2 (activation off) reading the
# metadata:
#   - steps that are reshapes in LVM2 are refused (exit 5) after LVM2's lines (the type
#     replaced, "Converting ... to N stripes first."), with lvx's one line, the VG's
#     seqno unchanged: raid5_ls --type raid10 / striped (raid5_n first), raid4 --type
#     raid5 -R 128k (raid5_n), raid5_n --type raid4, raid5_n of 2 images --type striped
#     --stripes 4 (stripes first);
#   - the takeovers among them work: raid5_n --type raid10 (raid0_meta first, LVM2's
#     lines), then raid0_meta --type raid10 -R 256K (6 images, region 256 KiB), the data
#     intact; raid1 (2 images) --type striped --stripes 4 -I 64K -R 512K (raid5_n, stripe
#     size 64 KiB, region 512 KiB), the data intact;
#   - of an inactive LV lvx answers as LVM2 (stdout, stderr, exit status).
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"
source "$LVX_ROOT/tests/tools/side.sh"

VG=vguri$$
uspace_test_loops "$VG" 6 64M
source "$LVX_ROOT/tests/tools/raid-pvread.sh"
MIB=1048576
lines() { sed 's/^ *//' | grep -v -e 'NOT backed up' -e '^WARNING' | tr '\n' '|'; }
seqno() { lvm2 vgs --noheadings -o vg_seqno "$VG" 2>/dev/null | tr -d ' '; }
l2() { lvm2 lvs --noheadings --separator ' ' -o "$2" "$VG/$1" 2>/dev/null | sed 's/^ *//'; }
refuse() { echo "lvx cannot reshape $VG/$1 in the user-space backend: its daemon does not make the interim reshape of a takeover yet (activate it with the dm backend).|"; }
DEF="Using default stripesize 64.00 KiB.|"
repl() { echo "Replaced LV type $1 with possible type $2.|Repeat this command to convert to ${1%% *} after an interim conversion has finished.|"; }
refused() {      # refused LV DESC LINES ARGS...: lvx lvconvert -y ARGS VG/LV: exit 5, LINES, seqno kept
    local lv=$1 d=$2 want=$3 out rc=0 s
    shift 3
    s=$(seqno)
    out=$(lvx lvconvert -y "$@" "$VG/$lv" 2>&1 </dev/null) || rc=$?
    test_eq "$d: exit 5, LVM2's lines, then lvx's one line" "$rc $(lines <<<"$out")" "5 $want"
    test_eq "... the VG's seqno unchanged" "$(seqno)" "$s"
}
converted() {    # converted LV DESC LINES ARGS...: exit 0, LINES and LVM2's success line
    local lv=$1 d=$2 want=$3 out rc=0
    shift 3
    out=$(lvx lvconvert -y "$@" "$VG/$lv" 2>&1 </dev/null) || rc=$?
    test_eq "$d: exit 0, LVM2's lines" "$rc $(lines <<<"$out")" \
        "0 ${want}Logical volume $VG/$lv successfully converted.|"
}
data_is() { test_eq "$3" "$(lv_sum "$DM_DEV_DIR/$VG/$1" 0 "$(stat -c %s "$2")")" "$(fsum "$2")"; }
P=("${DEVS[@]}")

uspace_run_ok "pvcreate, vgcreate" sh -c "$LVX pvcreate -q ${DEVS[*]} && $LVX vgcreate -q $VG ${DEVS[*]}"
uspace_run_ok "raid5_ls a, raid4 f, raid5_n n (-i3 -L 12m), raid1 t (-m1 -L 4m), raid1 m (-m1 -L 8m)" sh -c "
    $LVX lvcreate -q -y -Zn --type raid5_ls -i3 -L 12m -n a $VG ${P[0]} ${P[1]} ${P[2]} ${P[3]} &&
    $LVX lvcreate -q -y -Zn --type raid4 -i3 -L 12m -n f $VG ${P[0]} ${P[1]} ${P[2]} ${P[3]} &&
    $LVX lvcreate -q -y -Zn --type raid5_n -i3 -L 12m -n n $VG ${P[0]} ${P[1]} ${P[2]} ${P[3]} &&
    $LVX lvcreate -q -y -Zn --type raid1 -m1 -L 4m -n t $VG ${P[0]} ${P[1]} &&
    $LVX lvcreate -q -y -Zn --type raid1 -m1 -L 8m -n m $VG ${P[4]} ${P[5]}"
for lv in a f n t m; do test_ok "$lv in sync" wait_synced "$lv"; done
uspace_run_ok "t made raid5_n (2 images)" lvx lvconvert -q -y --type raid5_n "$VG/t"
test_ok "t in sync" wait_synced t
head -c $((12 * MIB)) /dev/urandom >"$SCRATCH/dn"
head -c $((8 * MIB)) /dev/urandom >"$SCRATCH/dm"
uspace_run_ok "12 MiB written to n, 8 MiB to m" sh -c \
    "dd if=$SCRATCH/dn of=$DM_DEV_DIR/$VG/n bs=1M oflag=direct conv=fsync status=none &&
     dd if=$SCRATCH/dm of=$DM_DEV_DIR/$VG/m bs=1M oflag=direct conv=fsync status=none"

# ---- LVM2's interim reshapes: refused by the daemon, after LVM2's lines
refused a "raid5_ls --type raid10" "$DEF$(repl "raid10 (same as raid10_near)" raid5_n)$(refuse a)" --type raid10
refused a "raid5_ls --type striped" "$(repl striped raid5_n)$(refuse a)" --type striped
refused f "raid4 --type raid5 -R 128k" "$DEF$(repl "raid5 (same as raid5_ls)" raid5_n)$(refuse f)" --type raid5 -R 128k
refused n "raid5_n --type raid4" "$DEF$(refuse n)" --type raid4
refused t "raid5_n of 2 images --type striped --stripes 4" \
    "Converting raid5_n LV $VG/t to 5 stripes first.|$(repl striped raid5_n)$(refuse t)" --type striped --stripes 4
test_eq "LVM2 reads a raid5_ls, f raid4 (region 2 MiB), n raid5_n" \
    "$(l2 a segtype) $(l2 f segtype,region_size) $(l2 n segtype)" "raid5_ls raid4 2.00m raid5_n"

# ---- raid5_n -> raid0_meta -> raid10 (LVM2's second and third steps)
converted n "raid5_n --type raid10" "$DEF$(repl "raid10 (same as raid10_near)" raid0_meta)" --type raid10
test_eq "... LVM2 reads raid0_meta over 3 stripes" "$(l2 n segtype,stripes,data_stripes)" "raid0_meta 3 3"
data_is n "$SCRATCH/dn" "... the data"
test_ok "... LVM2's vgck passes" lvm2 vgck "$VG"
converted n "raid0_meta --type raid10 -R 256K" "$DEF" --type raid10 -R 256K
test_eq "... LVM2 reads raid10 over 6 images, 3 data stripes, region 256 KiB" \
    "$(l2 n segtype,stripes,data_stripes,region_size)" "raid10 6 3 256.00k"
test_ok "... in sync" wait_synced n
data_is n "$SCRATCH/dn" "... the data"

# ---- raid1 -> raid5_n through --type striped (LVM2's second step of linear -> striped)
converted m "raid1 --type striped --stripes 4 -I 64K -R 512K" \
    "$(repl striped raid5_n)--stripes not allowed for LV $VG/m when converting from raid1 to raid5_n.|" \
    --type striped --stripes 4 -I 64K -R 512K
test_eq "... LVM2 reads raid5_n, 2 images, stripe size 64 KiB, region 512 KiB" \
    "$(l2 m segtype,stripes,stripe_size,region_size)" "raid5_n 2 64.00k 512.00k"
test_ok "... in sync" wait_synced m
data_is m "$SCRATCH/dm" "... the data"
test_ok "LVM2's vgck passes" lvm2 vgck "$VG"

# ---- inactive: as LVM2
uspace_run_ok "a deactivated" lvx lvchange -an "$VG/a"
same "inactive raid5_ls --type raid10: as LVM2" lvconvert -y --type raid10 "$VG/a"
test_eq "... exit 5, LVM2's line" "$(cat "$SCRATCH/x.rc") $(sed 's/^ *//' "$SCRATCH/x.err")" \
    "5 $VG/a must be active to perform this operation."
same "inactive raid5_ls --type striped: as LVM2" lvconvert -y --type striped "$VG/a"
same "inactive raid5_ls --type raid0_meta: as LVM2" lvconvert -y --type raid0_meta "$VG/a"
uspace_run_ok "deactivate the VG" lvx vgchange -an "$VG"
done_testing
