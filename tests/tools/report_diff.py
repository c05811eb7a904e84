#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tests/tools/report_diff.py - compare two JSON reports (LVM2's and lvx's) of the same
disks: same rows in the same order with the same values.

  report_diff.py FIELDS_OF REPORT       print the -o field list of REPORT (pvs|vgs), as in
                                        tests/fixtures/lvm2/README.md
  report_diff.py compare WANT.json GOT.json
      exit 0 when equal, else print the differing rows and exit 1.
"""
import json
import sys

FIELDS = {
    "pvs": "pv_name,pv_uuid,vg_name,pv_fmt,dev_size,pv_size,pe_start,pv_pe_count,"
           "pv_pe_alloc_count,pv_mda_count,pv_mda_used_count,pv_mda_size,pv_mda_free,"
           "pv_ba_start,pv_ba_size,pv_ext_vsn,pv_attr,pv_allocatable,pv_tags",
    "vgs": "vg_name,vg_uuid,vg_attr,vg_fmt,vg_extent_size,vg_extent_count,vg_free_count,"
           "vg_size,vg_free,vg_seqno,pv_count,lv_count,vg_mda_count,vg_mda_used_count,"
           "vg_mda_copies,vg_mda_size,vg_mda_free,max_lv,max_pv,vg_allocation_policy,vg_tags",
}


def rows(path):
    with open(path) as f:
        doc = json.load(f)
    out = []
    for part in doc.get("report", []):
        for key, value in part.items():
            out.extend(value)
    return out


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "fields":
        print(FIELDS[sys.argv[2]])
        return 0
    if len(sys.argv) != 4 or sys.argv[1] != "compare":
        print(__doc__, file=sys.stderr)
        return 2
    try:
        want, got = rows(sys.argv[2]), rows(sys.argv[3])
    except (OSError, ValueError) as e:
        print("cannot read report: %s" % e)
        return 1
    if want == got:
        return 0
    if len(want) != len(got):
        print("row count differs: LVM2 %d, lvx %d" % (len(want), len(got)))
    for i, (w, g) in enumerate(zip(want, got)):
        for k in sorted(set(w) | set(g)):
            if w.get(k) != g.get(k):
                print("row %d %s: LVM2 %r, lvx %r" % (i, k, w.get(k), g.get(k)))
    return 1


if __name__ == "__main__":
    sys.exit(main())
