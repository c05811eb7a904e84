#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tests/tools/pvmove_meta.py IN OUT EXTENTS_MOVED: turn an LVM2 backup file of a VG whose
LVs are all linear on pv0 into the metadata LVM2's `pvmove pv0 pv1` keeps while the move
runs (lib/metadata/mirror.c, tools/pvmove.c): a hidden LV pvmove0 (status READ, WRITE,
PVMOVE, LOCKED; allocation contiguous) with one mirror segment per moved LV segment
(mirror_count 2, extents_moved, region_size, legs "pv0", PE and "pv1", PE), and each moved
LV LOCKED with its segment pointing at "pvmove0", LE.  pv1 must be free at the same PEs.
The result is restored with LVM2's vgcfgrestore by the test, so LVM2 itself checks it."""
import re
import sys

src, dst, moved = sys.argv[1], sys.argv[2], int(sys.argv[3])
text = open(src).read()
lv_re = re.compile(r'(\t\t(\w+) \{\n\t\t\tid = "[^"]+"\n\t\t\tstatus = \[)([^\]]*)(\].*?\n\t\t\})', re.S)
segs = []          # (pvmove LE, count, PE on pv0)
def move(m):
    body = m.group(4)
    def seg(sm):
        pe, count = int(sm.group(3)), int(sm.group(2))
        le = sum(c for _, c, _ in segs)
        segs.append((le, count, pe))
        return sm.group(1) + '"pvmove0", %d' % le + sm.group(4)
    body, n = re.subn(r'(extent_count = (\d+).*?stripes = \[\n\t+)"pv0", (\d+)(\n)', seg, body, flags=re.S)
    status = m.group(3) + (', "LOCKED"' if n else '')
    return m.group(1) + status + body
text = lv_re.sub(move, text)
pv = ['\t\tpvmove0 {\n\t\t\tid = "pvmove-0000-0000-0000-0000-0000-000000"\n'
      '\t\t\tstatus = ["READ", "WRITE", "PVMOVE", "LOCKED"]\n\t\t\tflags = []\n'
      '\t\t\tcreation_time = 1700000000\n\t\t\tcreation_host = "lvx-test"\n'
      '\t\t\tallocation_policy = "contiguous"\n\t\t\tsegment_count = %d\n' % len(segs)]
left = moved
for i, (le, count, pe) in enumerate(segs, 1):
    done = min(left, count)
    left -= done
    pv.append('\n\t\t\tsegment%d {\n\t\t\t\tstart_extent = %d\n\t\t\t\textent_count = %d\n\n'
              '\t\t\t\ttype = "mirror"\n\t\t\t\tmirror_count = 2\n\t\t\t\textents_moved = %d\n'
              '\t\t\t\tregion_size = 4096\n\n\t\t\t\tmirrors = [\n\t\t\t\t\t"pv0", %d,\n'
              '\t\t\t\t\t"pv1", %d\n\t\t\t\t]\n\t\t\t}\n' % (i, le, count, done, pe, pe))
pv.append('\t\t}\n')
text = re.sub(r'(\tlogical_volumes \{\n)(.*?)(\n\t\}\n)', lambda m: m.group(1) + m.group(2) + '\n\n' + ''.join(pv) + m.group(3), text, count=1, flags=re.S)
open(dst, 'w').write(text)
