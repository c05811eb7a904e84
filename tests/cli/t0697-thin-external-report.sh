#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0697-thin-external-report: the report fields of a thin LV with an external origin
# and of that origin, next to LVM2 on the same VG.  lvx cannot make external origins
# yet (lvconvert --thin) and LVM2 cannot without device-mapper, so the VG is written
# by lvx (a thin pool, an LV "ext"), its metadata text given a thin LV "thin1" with
# external_origin = "ext" (and "thin2", a thin snapshot of thin1, which keeps the
# external origin as LVM2's create_snap does), and restored by LVM2 (vgcfgrestore
# --force: LVM2's own checks of the metadata).  Checks: lvs -a of the fields that
# depend on external origins (lv_attr's origin 'o', origin, origin_size, lv_role,
# lv_layout, pool_lv, ancestors/descendants) equal LVM2's, also as JSON and in
# lvdisplay's "LV ... origin" lines; the VG text lvx writes back keeps external_origin.
# The kernel's side (LVM2 makes the external origin) is t0727.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

lvm2_pair_begin 64M
X() { lvx "$@" --devices "$D1,$D2"; }

test_ok "lvx: vg1, thin pool pool, LV ext (read-only)" sh -c \
    "'$LVX' pvcreate -q $D1 $D2 --devices $D1,$D2 && '$LVX' vgcreate -q vg1 $D1 $D2 --devices $D1,$D2 &&
     '$LVX' lvcreate -q -an -T -L 16m vg1/pool --devices $D1,$D2 &&
     '$LVX' lvcreate -q -an -L 8m -n ext -pr vg1 --devices $D1,$D2 && '$LVX' vgcfgbackup -q -f '$SCRATCH/vg1.vg' vg1 --devices $D1,$D2"
# thin1 (device 1, external origin ext) and thin2 (device 2, snapshot of thin1)
"$PYTHON" - "$SCRATCH/vg1.vg" <<'PY'
import re, sys
p = sys.argv[1]
s = open(p).read()
s = s.replace("transaction_id = 0", "transaction_id = 2", 1)
def thin(name, uid, dev, tid, extra):
    return f'''
		{name} {{
			id = "{uid}"
			status = ["READ", "WRITE", "VISIBLE"]
			flags = []
			creation_time = 1700000000
			creation_host = "host"
			segment_count = 1

			segment1 {{
				start_extent = 0
				extent_count = 2

				type = "thin"
				thin_pool = "pool"
				transaction_id = {tid}
				device_id = {dev}
{extra}			}}
		}}
'''
lvs = thin("thin1", "aaaaaa-aaaa-aaaa-aaaa-aaaa-aaaa-aaaaa1", 1, 0, '\t\t\t\texternal_origin = "ext"\n')
lvs += thin("thin2", "aaaaaa-aaaa-aaaa-aaaa-aaaa-aaaa-aaaaa2", 2, 1,
            '\t\t\t\torigin = "thin1"\n\t\t\t\texternal_origin = "ext"\n')
i = s.index("\tlogical_volumes {") + len("\tlogical_volumes {\n")
s = s[:i] + lvs + s[i:]
open(p, "w").write(s)
PY
out=$(lvm2 vgcfgrestore --force -f "$SCRATCH/vg1.vg" vg1 2>&1)
test_eq "LVM2 restores the VG with thin1 (external origin ext) and thin2" "$?" 0
diag "$out"
test_ok "... LVM2's vgck accepts it" lvm2 vgck vg1

F=lv_name,lv_attr,origin,origin_uuid,origin_size,lv_role,lv_layout,pool_lv,lv_ancestors,lv_full_ancestors,lv_descendants,lv_full_descendants,lv_merging
test_eq "lvs -a: the external origin fields as LVM2's" \
    "$(X lvs -a --noheadings --separator '|' -o $F vg1 2>&1)" \
    "$(lvm2 lvs -a --noheadings --separator '|' -o $F vg1 2>&1 | grep -v 'WARNING: Activation disabled')"
test_eq "lvs --reportformat json: the same" \
    "$(X lvs --reportformat json -o lv_name,origin,origin_size,lv_role vg1 2>&1)" \
    "$(lvm2 lvs --reportformat json -o lv_name,origin,origin_size,lv_role vg1 2>&1 | grep -v 'WARNING: Activation disabled')"
test_eq "lvs shows ext's attr 'o' and thin1's origin ext (not left blank)" \
    "$(X lvs --noheadings -o lv_attr vg1/ext 2>/dev/null | tr -d ' ' | cut -c1) $(X lvs --noheadings -o origin vg1/thin1 2>/dev/null | tr -d ' ')" "o ext"
test_ok "lvx writes the VG back (vgchange --addtag) keeping external_origin" sh -c \
    "'$LVX' vgchange -q --addtag t1 vg1 --devices $D1,$D2 && '$LVX' vgcfgbackup -q -f '$SCRATCH/back.vg' vg1 --devices $D1,$D2 &&
     test \"\$(grep -c 'external_origin = \"ext\"' '$SCRATCH/back.vg')\" = 2"
test_ok "... LVM2's vgck accepts it" lvm2 vgck vg1

done_testing
