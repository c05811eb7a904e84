#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1071-user-raid-reshape-combined: lvconvert changing stripes, stripe size and region
# size of a RAID LV in one command (LVM2's lvconvert-raid-reshape-striped_to_linear
# :68, `--type raid5_n --stripes 1 -I 64k -R 1024k -f`; lvx makes it in the kernel:
# tests/kernel/raid-reshape-combined.sh).  For an LV the lvx daemon serves (user
# backend), whose daemon changes no region size in a reshape: LVM2's refusal of a
# region size under the new stripe size comes first ("Region size may not be smaller
# than stripe size on LV VG/LV.", removing, adding or keeping stripes), else lvx's one
# line (a removal without -f: LVM2's "Can't remove stripes without --force option."
# lines; removals are t1114's); each exit 5, the
# VG's seqno and LVM2's report of the LVs unchanged, the data intact.  An inactive LV
# gets LVM2's own answer (compared with LVM2 on the same devices): "Ignoring stripesize
# argument with single stripe." for -I with --stripes 1, no "Using default stripesize"
# line with --stripes 1.
# Five 64 MiB loop devices; LVM2 (activation off) reads the metadata.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"
# shellcheck source=tests/tools/side.sh
source "$LVX_ROOT/tests/tools/side.sh"

VG=vgurc$$
uspace_test_loops "$VG" 5 64M
source "$LVX_ROOT/tests/tools/raid-pvread.sh"
# shellcheck source=tests/tools/reshape-refused.sh
source "$LVX_ROOT/tests/tools/reshape-refused.sh"
rep() { lvm2 lvs -a --noheadings --separator ' ' -o lv_name,segtype,stripes,stripesize,regionsize,reshape_len_le,lv_size "$VG" 2>/dev/null | sed 's/^ *//'; }
RREGION="lvx cannot reshape $VG/a in the user-space backend: its daemon does not change the region size in a reshape yet (activate it with the dm backend).|"
NOFORCE="THIS MAY DESTROY (PARTS OF) YOUR DATA!|If that leaves the logical volume larger than 128 extents due to stripe rounding,|you may want to grow the content afterwards (filesystem etc.)|Can't remove stripes without --force option.|Reshape request failed on LV $VG/a.|"
REFUSE10="lvx cannot reshape $VG/t in the user-space backend: its daemon does not change the region size in a reshape yet (activate it with the dm backend).|"
REGION="Region size may not be smaller than stripe size on LV $VG/a.|Invalid conversion request on $VG/a.|"
IGN="Ignoring stripesize argument with single stripe.|"

uspace_run_ok "pvcreate, vgcreate -s 512K" sh -c "$LVX pvcreate -q ${DEVS[*]} && $LVX vgcreate -q -s 512K $VG ${DEVS[*]}"
uspace_run_ok "raid5_n a (-i4 -I32k -R128k -L 16m)" lvx lvcreate -q -y -Zn --type raid5_n -i4 -I32k -R128k -L 16m -n a "$VG"
fill_a

refused "--type raid5_n --stripes 1 -I 64k -R 1024k -f (LVM2's :68)" "$IGN$RREGION" \
    -f --type raid5_n --stripes 1 -I 64k -R 1024k
refused "--stripes 1 -I 64k -R 16k -f (removing stripes; -I ignored)" "$IGN$REGION" -f --type raid5_n --stripes 1 -I 64k -R 16k
refused "--stripes 2 -I 256k -R 128k -f (removing stripes)" "$REGION" -f --stripes 2 -I 256k -R 128k
refused "--stripes 5 -I 256k -R 128k (adding stripes)" "$REGION" --stripes 5 -I 256k -R 128k
refused "--stripesize 256k -R 128k (keeping stripes)" "$REGION" --stripesize 256k -R 128k
refused "--stripesize 256k (above the region size 128k)" "$REGION" --stripesize 256k
refused "--stripes 1 without -f (no default stripe size printed with 1 stripe; LVM2's refusal)" "$NOFORCE" --stripes 1
test_ok "LVM2's vgck passes" lvm2 vgck "$VG"

# raid10 (LVM2: --stripes N is 2N images) only grows; adding stripes with another region
# size is lvx's refusal here (stripes alone: t1115)
uspace_run_ok "raid10 t (-i2 -L 8m)" lvx lvcreate -q -y -Zn --type raid10 -i2 -L 8m -n t "$VG"
test_ok "t in sync" wait_synced t
s0=$(seqno)
out=$(lvx lvconvert -y --stripes 1 "$VG/t" 2>&1 </dev/null); rc=$?
test_eq "raid10 --stripes 1: LVM2's two lines, exit 5" "$rc $(lines <<<"$out")" \
    "5 Can't remove stripes from raid10.|Invalid conversion request on $VG/t.|"
out=$(lvx lvconvert -y --stripes 3 -R 4m "$VG/t" 2>&1 </dev/null); rc=$?
test_eq "raid10 --stripes 3 -R 4m: lvx's line, exit 5" "$rc $(lines <<<"$out")" \
    "5 Using default stripesize 64.00 KiB.|$REFUSE10"
test_eq "... the VG's seqno unchanged" "$(seqno)" "$s0"
uspace_run_ok "t removed" lvx lvremove -q -y "$VG/t"
s0=$(seqno)

uspace_run_ok "a deactivated" lvx lvchange -an "$VG/a"
same "inactive a, --stripes 1 -I 64k -R 32k -f: as LVM2" lvconvert -y -f --type raid5_n --stripes 1 -I 64k -R 32k "$VG/a"
test_eq "... exit 5, LVM2's line" "$(cat "$SCRATCH/x.rc") $(sed 's/^ *//' "$SCRATCH/x.err")" \
    "5 $VG/a must be active to perform this operation."
test_eq "... the VG's seqno unchanged" "$(seqno)" "$s0"
same "inactive a, --stripes 1 -f: as LVM2" lvconvert -y -f --stripes 1 "$VG/a"
same "inactive a, --stripes 2 -f: as LVM2" lvconvert -y -f --stripes 2 "$VG/a"
test_eq "... the VG's seqno unchanged" "$(seqno)" "$s0"
done_testing
