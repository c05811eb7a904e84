#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1040-thin-crop-minor: a thin pool's metadata size against lvm.conf's
# allocation/thin_pool_crop_metadata (LVM2's thin-16g.sh), and thin LVs with --minor
# (lvcreate-thin.sh:235), checked against LVM2 on the same devices (LVM2 reads what lvx
# wrote; on this host it cannot make pools itself, but prints its sizes first):
#   - lvcreate -T --poolmetadatasize 16g: _tmeta "<15.88g" with the setting 0, the pool
#     written "thin-pool+CROP_METADATA" with "crop_metadata = 0"; with the setting 1 the
#     _tmeta is "15.81g" (lvx: "<15.88g") and no crop_metadata (it needs none);
#   - lvconvert --thinpool --poolmetadata of a 16G / 20G LV: kept whole, LVM2's "Size ...
#     is bigger then maximum usable size" line (lvx: "Reducing ..."), crop_metadata 0 /
#     1, the spare 16.00g; a metadata LV under 2 MiB refused, LVM2's line, exit 5;
#   - lvresize of _tmeta beyond the maximum: "Reached maximum pool metadata size", held
#     there, the pool's crop_metadata changed by the setting (thin-16g.sh:61-87);
#   - lvx's dm table of a cropped _tmeta (lvx lvtable): 33161216 sectors, else all;
#   - lvcreate --minor 2345 -T -V: the thin LV's metadata carries FIXED_MINOR, major and
#     minor as for a linear LV (lvx dropped them), LVM2 reports lv_minor 2345; lvchange
#     --persistent y --minor of a thin LV the same; lvcreate --thinpool -m1 refused as
#     LVM2 refuses it (no command line takes both).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

[[ -e /dev/fuse ]] || skip_all "no /dev/fuse"
lvm2_pair_begin 40G
VG=vgtcm$$
CROP=(--config 'allocation/thin_pool_crop_metadata=1')
f() { lvm2 lvs -a --noheadings -o "$1" "$VG/$2" 2>/dev/null | xargs; }
lines() { grep -h "$@" "$SCRATCH/x.out" "$SCRATCH/x.err" "$SCRATCH/l.out" "$SCRATCH/l.err" | sed 's/^ *//'; }
# the pool's segment as lvx last wrote it: the newest metadata text on D1
pool_seg() {
    python3 - "$D1" "$1" <<'EOF'
import re, sys
data = open(sys.argv[1], 'rb').read(1 << 20)
best = (-1, '')
for chunk in data.split(b'\0'):
    t = chunk.decode('latin-1')
    m = re.search(r'\bseqno = (\d+)', t)
    if m and int(m.group(1)) > best[0]:
        best = (int(m.group(1)), t)
t = best[1]
m = re.search(r'(?m)^\s*%s \{' % re.escape(sys.argv[2]), t)
seg, depth = '', 0
for c in t[m.start():] if m else '':
    seg += c
    depth += (c == '{') - (c == '}')
    if c == '}' and depth == 0:
        break
print(' '.join(l.strip() for l in seg.splitlines()
               if re.match(r'\s*(type|crop_metadata|minor|major) =', l) or 'FIXED_MINOR' in l))
EOF
}
table() { lvx lvtable "$VG/$1" 2>/dev/null | awk '{ print $2 }' | xargs; }
test_ok "LVM2: $VG on D1, D2 (512 KiB extents, as LVM2's suite)" lvm2 vgcreate -q -s 512k "$VG" "$D1" "$D2"

# --- lvcreate --poolmetadatasize 16g -------------------------------------------------
lvm2_then_lvx() {  # LVM2 first (it cannot make the pool here and writes nothing), then lvx
    local rc=0
    lvm2 "$@" >"$SCRATCH/l.out" 2>"$SCRATCH/l.err" || rc=$?
    echo "$rc" >"$SCRATCH/l.rc"
    rc=0
    lvx "$@" >"$SCRATCH/x.out" 2>"$SCRATCH/x.err" || rc=$?
    echo "$rc" >"$SCRATCH/x.rc"
}
lvm2_then_lvx lvcreate -an -T -L10 --poolmetadatasize 16g "$VG/pool"
test_eq "lvcreate -T --poolmetadatasize 16g: lvx's size lines are LVM2's" \
    "$(lines -e 'Reducing pool' -e 'can address' | sort | uniq -c | awk '{ print $1 }' | xargs)" "2 2"
test_eq "... lvx exit 0, _tmeta <15.88g (LVM2 reads it)" "$(cat "$SCRATCH/x.rc") $(f lv_size pool_tmeta)" "0 <15.88g"
test_eq "... written: thin-pool+CROP_METADATA, crop_metadata = 0 (LVM2's thin_manip)" "$(pool_seg pool)" \
    'type = "thin-pool+CROP_METADATA" crop_metadata = 0'
test_eq "... lvx's table of pool_tmeta: all of it (33293312 sectors)" "$(table pool_tmeta)" 33293312
lvx lvremove -q -f "$VG" >/dev/null 2>&1
lvm2_then_lvx lvcreate -an -T -L10 --poolmetadatasize 16g "${CROP[@]}" "$VG/pool"
test_eq "the same with thin_pool_crop_metadata=1: lvx's size lines are LVM2's" \
    "$(lines -e 'Reducing pool' -e 'can address' | sort | uniq -c | awk '{ print $1 }' | xargs)" "2 2"
test_eq "... LVM2's lines say 15.81" "$(lines 'Reducing pool' | grep -c '15.81 GiB\.$')" 2
test_eq "... lvx exit 0, _tmeta 15.81g (thin-16g.sh:30), no crop_metadata" \
    "$(cat "$SCRATCH/x.rc") $(f lv_size pool_tmeta) $(pool_seg pool)" '0 15.81g type = "thin-pool"'
lvx lvremove -q -f "$VG" >/dev/null 2>&1

# --- lvconvert --thinpool --poolmetadata ---------------------------------------------
convert() {  # convert SIZE [ARGS]: lvconvert of a 10M pool LV and a SIZE meta LV (lvx)
    local size=$1
    shift
    lvx lvcreate -q -an -Zn -L"$size" -n meta "$VG" >/dev/null 2>&1
    lvx lvcreate -q -an -Zn -L10 -n pool "$VG" >/dev/null 2>&1
    rc=0
    out=$(lvx lvconvert --yes --thinpool "$VG/pool" --poolmetadata meta "$@" 2>&1) || rc=$?
}
# (LVM2 refuses the conversion here before its size lines: no thin-pool target)
convert 16G
test_eq "lvconvert --thinpool with a 16G metadata LV: LVM2's line (lvx: Reducing ...)" \
    "$(grep -c "Size 16.00 GiB of pool metadata volume $VG/meta is bigger then maximum usable size <15.88 GiB." <<<"$out")" 1 ||
    diag "$out"
test_eq "... lvx exit 0, _tmeta kept 16.00g, spare 16.00g, crop_metadata = 0" \
    "$rc $(f lv_size pool_tmeta) $(f lv_size lvol0_pmspare) $(pool_seg pool)" \
    '0 16.00g 16.00g type = "thin-pool+CROP_METADATA" crop_metadata = 0'
test_eq "... its table: all 33554432 sectors (thin-16g.sh:37)" "$(table pool_tmeta)" 33554432
lvx lvremove -q -f "$VG" >/dev/null 2>&1
convert 20G "${CROP[@]}"
test_eq "the same with 20G and thin_pool_crop_metadata=1: LVM2's line" \
    "$(grep -c "Size 20.00 GiB of pool metadata volume $VG/meta is bigger then maximum usable size 15.81 GiB." <<<"$out")" 1 ||
    diag "$out"
test_eq "... lvx exit 0, _tmeta 20.00g, spare 16.00g (thin-16g.sh:45), crop_metadata = 1" \
    "$rc $(f lv_size pool_tmeta) $(f lv_size lvol0_pmspare) $(pool_seg pool)" \
    '0 20.00g 16.00g type = "thin-pool" crop_metadata = 1'
test_eq "... its table cut to 33161216 sectors (thin-16g.sh:47)" "$(table pool_tmeta)" 33161216
lvx lvchange -q --addtag t "$VG/pool" >/dev/null 2>&1
test_eq "... written again: LVM2 reads it, lvx writes what LVM2 re-writes (+CROP_METADATA)" \
    "$(f segtype pool) $(pool_seg pool)" 'thin-pool type = "thin-pool+CROP_METADATA" crop_metadata = 1'
test_eq "... the table still cut (thin-16g.sh:54)" "$(table pool_tmeta)" 33161216

# the 20G, crop 1 pool: lvresize -l+1 of _tmeta keeps it; without the setting all of it
rc=0
lvx lvresize -q -l+1 "$VG/pool_tmeta" "${CROP[@]}" >/dev/null 2>&1 || rc=$?
test_eq "lvresize -l+1 pool_tmeta, crop 1: exit 0, no size change, still cut" \
    "$rc $(f lv_size pool_tmeta) $(table pool_tmeta)" "0 20.00g 33161216"
rc=0
out=$(lvx lvresize -l+1 "$VG/pool_tmeta" 2>&1) || rc=$?
test_eq "... then without the setting: exit 0, LVM2's line, the table all 20G, crop_metadata = 0" \
    "$rc $(grep -c 'Thin pool will use metadata without cropping.' <<<"$out") $(table pool_tmeta) $(pool_seg pool)" \
    '0 1 41943040 type = "thin-pool+CROP_METADATA" crop_metadata = 0' || diag "$out"
lvx lvremove -q -f "$VG" >/dev/null 2>&1

lvx lvcreate -q -an -Zn -L1M -n meta "$VG" >/dev/null 2>&1
lvx lvcreate -q -an -Zn -L10 -n pool "$VG" >/dev/null 2>&1
s0=$(lvm2 vgs --noheadings -o vg_seqno "$VG" 2>/dev/null | xargs)
rc=0
out=$(lvx lvconvert --yes --thinpool "$VG/pool" --poolmetadata meta 2>&1) || rc=$?
test_eq "a 1M metadata LV: refused, exit 5, LVM2's line (thin-16g.sh:59), nothing written" \
    "$rc $(grep -c "Can't use volume $VG/meta with size 1.00 MiB as pool metadata. Minimal required size is 2.00 MiB." <<<"$out") $(lvm2 vgs --noheadings -o vg_seqno "$VG" 2>/dev/null | xargs)" \
    "5 1 $s0" || diag "$out"
lvx lvremove -q -f "$VG" >/dev/null 2>&1

# --- lvresize of _tmeta past the maximum (thin-16g.sh:62-72) -------------------------
lvx lvcreate -q -an -L1 --poolmetadatasize 10G -T "$VG/pool" >/dev/null 2>&1
rc=0
out=$(lvx lvresize -L+10G "$VG/pool_tmeta" "${CROP[@]}" 2>&1) || rc=$?
test_eq "lvresize -L+10G pool_tmeta, crop 1: exit 0, held at 15.81g (spare too), LVM2's line, no crop key" \
    "$rc $(f lv_size pool_tmeta) $(f lv_size lvol0_pmspare) $(grep -c 'Reached maximum pool metadata size 15.81 GiB (32384 extents).' <<<"$out") $(pool_seg pool)" \
    '0 15.81g 15.81g 1 type = "thin-pool"' || diag "$out"
rc=0
out=$(lvx lvresize -L+10G "$VG/pool_tmeta" 2>&1) || rc=$?
test_eq "... again without the setting: <15.88g (spare too), crop_metadata = 0" \
    "$rc $(f lv_size pool_tmeta) $(f lv_size lvol0_pmspare) $(grep -c 'Thin pool will use metadata without cropping.' <<<"$out") $(pool_seg pool)" \
    '0 <15.88g <15.88g 1 type = "thin-pool+CROP_METADATA" crop_metadata = 0' || diag "$out"
lvx lvremove -q -f "$VG" >/dev/null 2>&1

# --- thin LVs with --minor (user backend: the pool takes messages) ---------------------
mkdir -p "$SCRATCH/dev"
U() { DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user lvx "$@" --config 'global { activation = 1 }'; }
test_ok "LVM2: linear lin --minor 2344" lvm2 lvcreate -q -an -Zn -L1m --minor 2344 -n lin "$VG"
LIN=$(pool_seg lin)
test_ok "thin pool (user backend)" U lvcreate -q -L10M -T "$VG/pool"
test_ok "lvcreate --minor 2345 -T -V20M -n thin_minor $VG/pool (lvcreate-thin.sh:235)" \
    U lvcreate -q --minor 2345 -T -V20M -n thin_minor "$VG/pool"
test_eq "... LVM2 reads lv_minor 2345 (lvx wrote none)" "$(f lv_minor thin_minor)" 2345
test_eq "... written as LVM2 writes a linear LV's: FIXED_MINOR, major, minor" \
    "$(pool_seg thin_minor | sed -e 's/2345/N/' -e 's/ type = .*//')" \
    "$(sed -e 's/2344/N/' -e 's/ type = .*//' <<<"$LIN")"
U lvchange -q -an "$VG/thin_minor" >/dev/null 2>&1
U lvcreate -q -T -V20M -n thin2 "$VG/pool" >/dev/null 2>&1
U lvchange -q -an "$VG/thin2" >/dev/null 2>&1
rc=0
U lvchange -q --yes --persistent y --minor 2346 "$VG/thin2" >/dev/null 2>&1 || rc=$?
test_eq "lvchange --persistent y --minor 2346 of an inactive thin LV: exit 0, LVM2 reads 2346" \
    "$rc $(f lv_minor thin2)" "0 2346"
rc=0
out=$(U lvcreate -q --minor 2347 -Mn -T -V20M -n bad "$VG/pool" 2>&1) || rc=$?
test_eq "lvcreate --minor with -Mn of a thin LV: refused (LVM2's line)" \
    "$(grep -c 'Options --major and --minor are incompatible with -Mn.' <<<"$out") $(f lv_name bad)" "1 " || diag "$out"
both lvcreate -an --thinpool mirpool -L4M --alloc anywhere -m1 "$VG"
test_eq "lvcreate --thinpool -m1: LVM2's refusal and exit 3 (lvcreate-thin.sh:249; lvx made it)" \
    "$(cat "$SCRATCH/x.rc") $(cat "$SCRATCH/x.err")" "$(cat "$SCRATCH/l.rc") $(grep -v 'Activation disabled' "$SCRATCH/l.err")"
test_eq "... nothing made" "$(f lv_name mirpool)" ""
U vgchange -q -an "$VG" >/dev/null 2>&1
lvm2 vgremove -q -ff "$VG" >/dev/null 2>&1
done_testing
