#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1017-cache-pool-reports: unused cache pools made by LVM2 (lvcreate --type cache-pool,
# activation off: the host has no device-mapper) reported by lvx as LVM2 reports them:
# lvs -a -o all (every field), lvdisplay -a and -m (a cache pool's LV Path, its
# segment's type and chunk size), vgdisplay -v, fullreport, JSON.  Before: lv_attr's
# target letter 'C' on the pools' _cdata/_cmeta (LVM2: '-'), lv_modules "cache-pool"
# (LVM2: "cache"), no lv_path and no "LV Path" for a cache pool, no chunk size in the
# segment's display.
# Cache policy settings (lvcreate --cachepolicy smq --cachesettings '...' of pool cp3;
# a cached LV c over it, the layout restored by LVM2's vgcfgrestore): cache_settings
# of the pool and of the cache LV (its pool's) and lvdisplay -m's "Setting" lines as
# LVM2 prints them; lvx's commit writes the policy_settings items as LVM2 does
# ("key=value").  Before: cache_settings blank, no Setting lines, "key = value".
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

lvm2_pair_begin 200M
test_ok "LVM2: vgc with cache pools cp (default chunk) and cp2 (256k), a linear LV" sh -c \
    "LVM_SYSTEM_DIR=$SCRATCH/lvm lvm vgcreate -q vgc $D1 && 
     LVM_SYSTEM_DIR=$SCRATCH/lvm lvm lvcreate -q --type cache-pool -L 16m -n cp vgc &&
     LVM_SYSTEM_DIR=$SCRATCH/lvm lvm lvcreate -q --type cache-pool --chunksize 256k -L 16m -n cp2 vgc &&
     LVM_SYSTEM_DIR=$SCRATCH/lvm lvm lvcreate -q -an -Zn -L 32m -n orig vgc" 
both lvs -a --noheadings -o lv_name,lv_attr,lv_modules,lv_path vgc
diag "$(cat "$SCRATCH/l.out")"
same_as_lvm2 lvs -a --noheadings -o lv_name,lv_attr,lv_modules,lv_path,chunk_size vgc
same_as_lvm2 lvs -a --noheadings --nameprefixes -o all vgc
same_as_lvm2 lvdisplay -a vgc
same_as_lvm2 lvdisplay -m -a vgc
same_as_lvm2 lvdisplay -m -a --units s vgc
same_as_lvm2 vgdisplay -v vgc
same_as_lvm2 fullreport vgc
same_as_lvm2 lvs -a --reportformat json -o all vgc

need_cmd python3
test_ok "LVM2: cache pool cp3 with policy smq, two settings, writeback; LV c (16 MiB)" sh -c \
    "LVM_SYSTEM_DIR=$SCRATCH/lvm lvm lvcreate -q --type cache-pool --cachepolicy smq --cachemode writeback \
         --cachesettings 'migration_threshold=2048 random_threshold=4' -L 16m -n cp3 vgc &&
     LVM_SYSTEM_DIR=$SCRATCH/lvm lvm lvcreate -q -an -Zn -L 16m -n c vgc &&
     LVM_SYSTEM_DIR=$SCRATCH/lvm lvm vgcfgbackup -q -f $SCRATCH/plain.vg vgc"
# c cached by cp3, as lvconvert --type cache leaves it (the host can't run it: it wipes
# the pool through device-mapper)
python3 - "$SCRATCH/plain.vg" "$SCRATCH/cached.vg" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
def lv(name):
    return re.search(r'\n(\t\t' + name + r' \{\n.*?\n\t\t\}\n)', s, re.S).group(1)
c, cp3 = lv('c'), lv('cp3')
uuid = re.search(r'id = "([^"]+)"', c).group(1)
orig = c.replace('c {', 'c_corig {', 1).replace('"READ", "WRITE", "VISIBLE"', '"READ", "WRITE"')
orig = orig.replace(uuid, uuid[:-5] + 'corig', 1)
top = re.sub(r'(\t\t\tsegment1 \{\n).*?(\n\t\t\t\})',
             lambda m: m.group(1) + '\t\t\t\tstart_extent = 0\n\t\t\t\textent_count = 4\n\n'
             '\t\t\t\ttype = "cache"\n\t\t\t\tcache_pool = "cp3"\n'
             '\t\t\t\torigin = "c_corig"' + m.group(2), c, flags=re.S)
hidden = cp3.replace('"READ", "WRITE", "VISIBLE"', '"READ", "WRITE"')
s = s.replace(c, top + '\n' + orig).replace(cp3, hidden)
open(sys.argv[2], 'w').write(s)
PY
test_ok "LVM2: vgcfgrestore of c cached by cp3" lvm2 vgcfgrestore -q -f "$SCRATCH/cached.vg" vgc
test_eq "LVM2 reports the settings of cp3 and of c (its pool's)" \
    "$(lvm2 lvs -a --noheadings -o lv_name,cache_settings vgc/c vgc/cp3 2>/dev/null | xargs)" \
    "c random_threshold=4,migration_threshold=2048 [cp3] random_threshold=4,migration_threshold=2048"
same_as_lvm2 lvs -a --noheadings -o lv_name,segtype,cache_policy,cache_mode,cache_settings vgc
same_as_lvm2 lvs -a --noheadings --nameprefixes -o all,seg_all vgc
same_as_lvm2 lvdisplay -m -a vgc
same_as_lvm2 lvs -a --reportformat json -o lv_name,cache_settings vgc
policy_text() { sed -n '/policy_settings {/,/}/p' "$1"; }
test_ok "lvx: a commit (lvcreate x), then vgcfgbackup" sh -c \
    "$LVX lvcreate -q -an -Zn -L 4m -n x vgc && $LVX vgcfgbackup -q -f $SCRATCH/lvx.vg vgc"
test_eq "... cp3's policy_settings written as LVM2 wrote them (key=value)" \
    "$(policy_text "$SCRATCH/lvx.vg")" "$(policy_text "$SCRATCH/cached.vg")"
test_eq "... LVM2 reads back the same settings" \
    "$(lvm2 lvs --noheadings -o cache_settings vgc/c 2>/dev/null | xargs)" \
    "random_threshold=4,migration_threshold=2048"
lvm2 vgremove -q -ff vgc >/dev/null 2>&1
done_testing
