#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""lv_policy_check.py: read LVM2's `lvs -a --segments --reportformat json -o lv_name,
seg_start_pe,seg_pe_ranges,stripes,lv_allocation_policy` on stdin and check the
placement rules every allocation must obey, whatever the exact choice:
  * no two stripes of one segment on the same PV (unless the LV's policy is anywhere);
  * an LV with policy contiguous: each segment continues the previous one on the same
    PVs when both have the same number of stripes.
Prints one line per violation; exit status 1 when there is any."""
import json
import sys


def ranges(seg):
    out = []
    for r in seg["seg_pe_ranges"].split():
        dev, span = r.rsplit(":", 1)
        a, b = span.split("-")
        out.append((dev, int(a), int(b)))
    return out


def main():
    data = json.load(sys.stdin)
    segs = {}
    bad = []
    for row in data["report"][0]["seg"]:
        segs.setdefault(row["lv_name"], []).append(row)
    for name, rows in segs.items():
        rows.sort(key=lambda r: int(r["seg_start_pe"]))
        policy = rows[0].get("lv_allocation_policy", "inherit")
        prev = None
        for row in rows:
            rr = ranges(row)
            devs = [d for d, _, _ in rr]
            if policy != "anywhere" and len(set(devs)) != len(devs):
                bad.append(f"{name}: segment at LE {row['seg_start_pe']} has two stripes on one PV: {row['seg_pe_ranges']}")
            if policy == "contiguous" and prev is not None and len(prev) == len(rr):
                for (pd, _, pb), (d, a, _) in zip(prev, rr):
                    if pd != d or a != pb + 1:
                        bad.append(f"{name}: contiguous LV not contiguous at LE {row['seg_start_pe']}")
                        break
            prev = rr
    for line in bad:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
