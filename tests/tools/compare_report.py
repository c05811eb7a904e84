#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tests/tools/compare_report.py - compare an lvx JSON report with LVM2's (fixture manifest).

  compare_report.py args REPORT
      print the lvx command line (one argument per line) for REPORT, one of
      pvs vgs lvs segs pvsegs: the command and `-o` field list LVM2 used for the manifest
  compare_report.py compare SCENARIO REPORT ACTUAL_JSON IMAGE_DIR
      compare the rows of ACTUAL_JSON (lvx output) with manifest.json's reports[REPORT]:
      same rows in the same order, same keys, same values, except that
        * LVM2's device names (/dev/loopN) are replaced by IMAGE_DIR/<diskN>.img
          (device_to_pv of the manifest) before comparing;
        * lv_attr's 5th (state) and 6th (open) letters are not compared (LVM2 had no
          device-mapper, lvx does not activate).
      Exit 0 when equal; else print a readable difference and exit 1.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixture  # noqa: E402

# REPORT -> (command words, JSON key of the rows, fields) as in tests/fixtures/lvm2/README.md
REPORTS = {
    "pvs": (["pvs"], "pv",
            "pv_name,pv_uuid,vg_name,pv_fmt,dev_size,pv_size,pe_start,pv_pe_count,"
            "pv_pe_alloc_count,pv_mda_count,pv_mda_used_count,pv_mda_size,pv_mda_free,"
            "pv_ba_start,pv_ba_size,pv_ext_vsn,pv_attr,pv_allocatable,pv_tags"),
    "vgs": (["vgs"], "vg",
            "vg_name,vg_uuid,vg_attr,vg_fmt,vg_extent_size,vg_extent_count,vg_free_count,"
            "vg_size,vg_free,vg_seqno,pv_count,lv_count,vg_mda_count,vg_mda_used_count,"
            "vg_mda_copies,vg_mda_size,vg_mda_free,max_lv,max_pv,vg_allocation_policy,vg_tags"),
    "lvs": (["lvs", "-a"], "lv",
            "vg_name,lv_name,lv_uuid,lv_attr,lv_size,seg_count,segtype,lv_tags,origin,pool_lv,"
            "data_lv,metadata_lv,mirror_log,lv_read_ahead,lv_major,lv_minor,lv_allocation_policy"),
    "segs": (["lvs", "-a", "--segments"], "seg",
             "vg_name,lv_name,segtype,seg_start,seg_start_pe,seg_size,seg_size_pe,stripes,"
             "stripe_size,region_size,chunk_size,seg_pe_ranges,seg_le_ranges,devices,"
             "metadata_devices,seg_tags"),
    "pvsegs": (["pvs", "--segments"], "pvseg",
               "pv_name,pv_uuid,vg_name,pvseg_start,pvseg_size,lv_name,seg_start_pe,segtype"),
}


def lvx_args(report):
    words, _, fields = REPORTS[report]
    return words + ["--reportformat", "json", "--units", "b", "--nosuffix", "-o", fields]


def rows_of(doc, key):
    """All rows of a report document {"report": [{key: [rows]}, ...]}."""
    if not isinstance(doc, dict) or not isinstance(doc.get("report"), list):
        raise ValueError('no top-level "report" list')
    rows = []
    for part in doc["report"]:
        if not isinstance(part, dict) or key not in part:
            found = ",".join(part) if isinstance(part, dict) else type(part).__name__
            raise ValueError('report entry has "%s" instead of "%s" rows' % (found, key))
        rows.extend(part[key])
    return rows


def device_map(manifest, image_dir):
    return {dev: os.path.abspath(os.path.join(image_dir, disk + ".img"))
            for dev, disk in manifest["device_to_pv"].items()}


def rename_devices(value, devmap):
    # /dev/loop1 must not match the start of /dev/loop10
    return re.sub(r"/dev/loop\d+(?!\d)", lambda m: devmap.get(m.group(0), m.group(0)), value)


def mask_attr(key, value):
    if key == "lv_attr" and len(value) >= 6:
        return value[:4] + "??" + value[6:]
    return value


def normalise(row, devmap=None):
    out = {}
    for k, v in row.items():
        if isinstance(v, str):
            if devmap is not None:
                v = rename_devices(v, devmap)
            v = mask_attr(k, v)
        out[k] = v
    return out


def row_label(row):
    for k in ("lv_name", "pv_name", "vg_name"):
        if k in row:
            return "%s=%s" % (k, row[k])
    return ""


def compare(scenario, report, actual_path, image_dir):
    manifest = fixture.load_manifest(scenario)
    _, key, fields = REPORTS[report]
    devmap = device_map(manifest, image_dir)
    want = [normalise(r, devmap) for r in rows_of(manifest["reports"][report], key)]
    text = open(actual_path, encoding="utf-8", errors="replace").read()
    try:
        got = [normalise(r) for r in rows_of(json.loads(text), key)]
    except ValueError as e:
        print("lvx output is not the expected JSON report (%s); first lines:" % e)
        for line in text.splitlines()[:15]:
            print("  | " + line)
        return 1
    problems = []
    if len(got) != len(want):
        problems.append("row count: lvx %d, LVM2 %d" % (len(got), len(want)))
    for i in range(max(len(got), len(want))):
        if i >= len(got):
            problems.append("row %d missing in lvx output: %s" % (i, row_label(want[i])))
            continue
        if i >= len(want):
            problems.append("extra row %d in lvx output: %s" % (i, row_label(got[i])))
            continue
        g, w = got[i], want[i]
        if list(g.keys()) != list(w.keys()):
            problems.append("row %d keys: lvx %s, LVM2 %s" % (i, ",".join(g), ",".join(w)))
        for k in fields.split(","):
            if g.get(k) != w.get(k):
                problems.append("row %d (%s) %s: lvx %r, LVM2 %r"
                                % (i, row_label(w), k, g.get(k, "<missing>"), w.get(k, "<missing>")))
    if problems:
        shown = problems[:40]
        print("\n".join(shown))
        if len(problems) > len(shown):
            print("... and %d more differences" % (len(problems) - len(shown)))
        return 1
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "args" and argv[2] in REPORTS:
        print("\n".join(lvx_args(argv[2])))
        return 0
    if len(argv) == 6 and argv[1] == "compare" and argv[3] in REPORTS:
        return compare(argv[2], argv[3], argv[4], argv[5])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
