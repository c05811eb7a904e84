#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1062-user-raid-reshape-refused: the reshapes lvx makes of an active raid4/5/6 LV in
# the kernel (dm backend: tests/kernel/raid-reshape-keep.sh) that the lvx daemon
# (user-space activation) does not start yet (it starts the others: t1109):
# --stripes 2 of a raid5_ls -i3 LV holding 12 MiB (a removal without --force: LVM2's
# refusal; removals are made by the daemon, t1114), and --type
# raid6 of a raid5_n -i2 LV (LVM2 adds a stripe first, an interim step): each exit 5 with lvx's one line after LVM2's first lines (--stripes 3, no
# change, frees reshape space as LVM2 does: here none, LVM2's refusal), the VG's seqno and the LV's report unchanged, the data
# intact, LVM2's vgck passing; an inactive LV gets LVM2's "must be active" line.
# Then the report of an LV whose last pair a shrinking reshape left to remove
# (data_stripes without it, as LVM2's).
# Four 64 MiB loop devices; LVM2 (activation off) reads the metadata.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

VG=vgurr$$
uspace_test_loops "$VG" 4 64M
source "$LVX_ROOT/tests/tools/raid-pvread.sh"
# shellcheck source=tests/tools/reshape-refused.sh
source "$LVX_ROOT/tests/tools/reshape-refused.sh"
rep() { lvm2 lvs -a --noheadings --separator ' ' -o lv_name,segtype,stripes,stripesize,reshape_len_le,lv_size "$VG" 2>/dev/null | sed 's/^ *//'; }
INTERIM="lvx cannot reshape $VG/t in the user-space backend: its daemon does not make the interim reshape of a takeover yet (activate it with the dm backend).|"

uspace_run_ok "pvcreate, vgcreate" sh -c "$LVX pvcreate -q ${DEVS[*]} && $LVX vgcreate -q $VG ${DEVS[*]}"
uspace_run_ok "raid5_ls a (-i3 -L 12m)" lvx lvcreate -q -y -Zn --type raid5_ls -i3 -L 12m -n a "$VG"
fill_a

# --stripesize, --type raid5_n and --stripes 4 are made by the daemon (t1109)
refused "--stripes 2 without --force (LVM2's refusal; removals are t1114's)" "Using default stripesize 64.00 KiB.|THIS MAY DESTROY (PARTS OF) YOUR DATA!|If that leaves the logical volume larger than 4 extents due to stripe rounding,|you may want to grow the content afterwards (filesystem etc.)|Can't remove stripes without --force option.|Reshape request failed on LV $VG/a.|" --stripes 2
# no change frees reshape space, which the user backend does too (t1091): here none,
# LVM2's own refusal
refused "--stripes 3 (no change)" "Using default stripesize 64.00 KiB.|No change in RAID LV $VG/a layout, freeing reshape space.|LV $VG/a does not have reshape space allocated.|Reshape request failed on LV $VG/a.|" --stripes 3
test_ok "LVM2's vgck passes" lvm2 vgck "$VG"

uspace_run_ok "raid5_n t (-i2 -L 8m)" lvx lvcreate -q -y -Zn --type raid5_n -i2 -L 8m -n t "$VG"
test_ok "t in sync" wait_synced t
s0=$(seqno) r0=$(rep)
out=$(lvx lvconvert -y --type raid6 "$VG/t" 2>&1 </dev/null); rc=$?
test_eq "--type raid6 of raid5_n with 3 images: LVM2's lines, lvx's refusal of the stripe it adds first, exit 5" \
    "$rc $(lines <<<"$out")" \
    "5 Using default stripesize 64.00 KiB.|Converting raid5_n LV $VG/t to 4 stripes first.|$INTERIM"
test_eq "... the VG's seqno unchanged" "$(seqno)" "$s0"
test_eq "... LVM2's report of the LVs unchanged" "$(rep)" "$r0"

uspace_run_ok "a deactivated" lvx lvchange -an "$VG/a"
out=$(lvx lvconvert -y --stripesize 256K "$VG/a" 2>&1 </dev/null); rc=$?
test_eq "--stripesize 256K of the inactive LV: LVM2's line, exit 5" "$rc $(lines <<<"$out")" \
    "5 $VG/a must be active to perform this operation.|"
test_eq "... the VG's seqno unchanged" "$(seqno)" "$s0"

# the report of an LV whose last pair a shrinking reshape left to remove (its segment
# types "+REMOVE_AFTER_RESHAPE", as LVM2's first --stripes N --force writes them):
# data_stripes leaves it out, stripes counts it (LVM2's report of the same metadata)
lvx vgcfgbackup -q -f "$SCRATCH/vg" "$VG" >/dev/null 2>&1
"${PYTHON:-python3}" - "$SCRATCH/vg" <<'PY'
import sys
p = sys.argv[1]; s = open(p).read()
i = s.index("a_rimage_3 {"); j = s.index('type = "striped"', i)
s = s[:j] + 'type = "striped+REMOVE_AFTER_RESHAPE"' + s[j + len('type = "striped"'):]
i = s.index("a_rmeta_3 {"); j = s.index('type = "striped"', i)
s = s[:j] + 'type = "striped+REMOVE_AFTER_RESHAPE"' + s[j + len('type = "striped"'):]
open(p, "w").write(s)
PY
test_ok "a's last pair flagged REMOVE_AFTER_RESHAPE (vgcfgrestore)" lvx vgcfgrestore -q -f "$SCRATCH/vg" "$VG"
test_eq "lvx reports data_stripes 2, stripes 4 (LVM2's report of the same metadata)" \
    "$(field "$VG/a" data_stripes) $(field "$VG/a" stripes)" \
    "$(lvm2 lvs --noheadings -o data_stripes "$VG/a" 2>/dev/null | tr -d ' ') $(lvm2 lvs --noheadings -o stripes "$VG/a" 2>/dev/null | tr -d ' ')"
test_eq "... which is 2 4" "$(field "$VG/a" data_stripes) $(field "$VG/a" stripes)" "2 4"
done_testing
