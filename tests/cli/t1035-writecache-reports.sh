#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1035-writecache-reports: a writecache LV as LVM2 2.03.16 writes it (LV worig:
# segment type "writecache", origin "worig_wcorig", writecache "wvol_cvol" with flag
# CACHE_VOL, writecache_block_size 4096), restored by LVM2's vgcfgrestore (the host has
# no device-mapper to make one), then:
#   - lvx reports it as LVM2 does: lvs -a -o all, -o all,seg_all, --segments -o all, JSON,
#     lvdisplay -a -m, vgdisplay -v, pvs --segments -o all (an lv_attr's XX, the state
#     neither reads without device-mapper, read as -- on both sides).
#     Before: worig "-wi-------" layout "unknown", no origin/pool, block size -1, the
#     _wcorig "-wi" role "private", the cachevol "cache,cachevol", no lv_modules, no
#     stripes/devices for the segment, an extra blank line in lvdisplay -m;
#   - lvremove and lvrename of the writecache's hidden origin and cachevol are refused
#     (exit 5, the seqno and the metadata unchanged; LVM2's vgck still passes).  Before,
#     lvremove of worig_wcorig succeeded and left metadata LVM2 could not read ("Unknown
#     LV specified for writecache origin"): the VG was lost to LVM2;
#   - lvchange -ay of the hidden origin alone asks LVM2's question ("activate component
#     LV in read-only mode?"); no answer is LVM2's refusal (before: activated read-write,
#     writes going around the cache);
#   - lvx's vgcfgbackup writes the writecache segment back as LVM2 wrote it.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_cmd python3
lvm2_pair_begin 64M
VG=vgwc$$
test_ok "lvx: $VG on two PVs, LVs worig (16 MiB on D1) and wvol (8 MiB on D2)" sh -c \
    "$LVX pvcreate -q $D1 $D2 && $LVX vgcreate -q $VG $D1 $D2 &&
     $LVX lvcreate -q -an -Zn -L 16m -n worig $VG $D1 && $LVX lvcreate -q -an -Zn -L 8m -n wvol $VG $D2 &&
     $LVX vgcfgbackup -q -f $SCRATCH/plain.vg $VG"
# the same extents as LVM2's lvconvert --type writecache --cachevol wvol worig leaves them
python3 - "$SCRATCH/plain.vg" "$SCRATCH/wc.vg" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
def lv(name):
    m = re.search(r'\n(\t\t' + name + r' \{\n.*?\n\t\t\}\n)', s, re.S)
    return m.group(1)
worig, wvol = lv('worig'), lv('wvol')
uuid = re.search(r'id = "([^"]+)"', worig).group(1)
orig = worig.replace('worig {', 'worig_wcorig {', 1).replace('"READ", "WRITE", "VISIBLE"', '"READ", "WRITE"')
orig = orig.replace(uuid, uuid[:-6] + 'wcorig', 1)
cvol = wvol.replace('wvol {', 'wvol_cvol {', 1).replace('"READ", "WRITE", "VISIBLE"', '"READ", "WRITE"')
cvol = cvol.replace('flags = []', 'flags = ["CACHE_VOL"]')
top = re.sub(r'(\t\t\tsegment1 \{\n).*?(\n\t\t\t\})',
             lambda m: m.group(1) + '\t\t\t\tstart_extent = 0\n\t\t\t\textent_count = 4\n\n'
             '\t\t\t\ttype = "writecache"\n\t\t\t\twritecache = "wvol_cvol"\n'
             '\t\t\t\torigin = "worig_wcorig"\n\t\t\t\twritecache_block_size = 4096' + m.group(2),
             worig, flags=re.S)
s = s.replace(worig, top + '\n' + orig).replace(wvol, cvol)
open(sys.argv[2], 'w').write(s)
PY
test_ok "LVM2: vgcfgrestore of the writecache layout" lvm2 vgcfgrestore -q -f "$SCRATCH/wc.vg" "$VG"
test_eq "LVM2 sees the writecache LV" \
    "$(lvm2 lvs --noheadings -o segtype,origin,pool_lv "$VG/worig" 2>/dev/null | xargs)" \
    "writecache [worig_wcorig] [wvol_cvol]"

# XX (the state not readable without device-mapper) in a 10-letter lv_attr read as --
unknown_state() { sed -E "s/(^|[ '\"])([-a-zA-Z]{4})XX([-a-zA-Z]{4})([ '\"]|\$)/\1\2--\3\4/g"; }
SAME_FILTER=unknown_state
same_as_lvm2 lvs -a --noheadings -o lv_name,lv_attr,lv_layout,lv_role,origin,pool_lv,segtype,writecache_block_size,lv_modules,devices "$VG"
same_as_lvm2 lvs -a --noheadings --nameprefixes -o all "$VG"
same_as_lvm2 lvs -a --noheadings --nameprefixes -o all,seg_all "$VG"
same_as_lvm2 lvs -a --segments --noheadings --nameprefixes -o all "$VG"
same_as_lvm2 lvs -a --reportformat json -o all "$VG"
same_as_lvm2 lvdisplay -a -m "$VG"
same_as_lvm2 vgdisplay -v "$VG"
same_as_lvm2 pvs --segments --noheadings --nameprefixes -o all "$D1" "$D2"

seqno() { lvx vgs --noheadings -o vg_seqno "$VG" 2>/dev/null | tr -d ' '; }
s0=$(seqno)
for c in "lvremove -y $VG/worig_wcorig" "lvremove -y $VG/wvol_cvol" "lvremove -y $VG/worig" \
         "lvrename $VG/worig_wcorig w2" "lvrename $VG/worig w3" "lvextend -L+4m $VG/worig_wcorig"; do
    rc=0
    out=$(lvx $c 2>&1) || rc=$?
    test_eq "lvx $c: refused, exit 5, one line" "$rc $(grep -c . <<<"$out")" "5 1" || diag "$out"
done
rc=0
out=$(lvx lvchange -ay "$VG/worig_wcorig" </dev/null 2>&1) || rc=$?
test_eq "lvx lvchange -ay of the component worig_wcorig, no answer: LVM2's question and refusal, exit 5" \
    "$rc $(grep -c 'Do you want to activate component LV in read-only mode? \[y/n\]:' <<<"$out") $(grep -c "Operation not permitted on hidden LV $VG/worig_wcorig." <<<"$out")" \
    "5 1 1" || diag "$out"
test_eq "... the metadata not committed (seqno $s0)" "$(seqno)" "$s0"
test_ok "LVM2's vgck of $VG passes" lvm2 vgck "$VG"
test_ok "lvx vgcfgbackup" lvx vgcfgbackup -q -f "$SCRATCH/back.vg" "$VG"
sect() {  # the writecache segment's lines of a metadata file
    sed -n '/^\t\tworig {/,/^\t\t}/p' "$1" | grep -v 'creation_time\|extent_count'
}
test_eq "lvx writes the writecache segment back as LVM2 wrote it" \
    "$(sect "$SCRATCH/back.vg")" "$(lvm2 vgcfgbackup -q -f "$SCRATCH/lvm.vg" "$VG" >/dev/null 2>&1; sect "$SCRATCH/lvm.vg")"
test_ok "vgremove" lvx vgremove -q -ff "$VG"
done_testing
