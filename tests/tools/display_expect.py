#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tests/tools/display_expect.py - the lines LVM2's display commands print for a fixture,
computed from the JSON reports LVM2 itself printed (manifest.json, sizes in bytes).

  display_expect.py SCENARIO IMGDIR pvdisplay|vgdisplay|lvdisplay|lvdisplay-m|pvdisplay-c|vgdisplay-c

Prints one expected output line per line (exact text, leading spaces and TABs included).
Device names /dev/loopN of the reports are replaced by IMGDIR/diskN.img.  Sizes use the
display format LVM2 prints ("64.00 MiB", "<1.50 GiB": the value is never rounded up, a
'<' marks a value shown lower than it is).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixture  # noqa: E402

UNITS = [(1 << 60, "EiB"), (1 << 50, "PiB"), (1 << 40, "TiB"), (1 << 30, "GiB"),
         (1 << 20, "MiB"), (1 << 10, "KiB")]


def human(nbytes):
    nbytes = int(nbytes)
    if nbytes == 0:
        return "0   "
    for size, name in UNITS:
        if nbytes >= size:
            hundredths, rest = divmod(nbytes * 100, size)
            prefix = "<" if rest * 2 >= size else ""
            return "%s%d.%02d %s" % (prefix, hundredths // 100, hundredths % 100, name)
    return "%d B " % nbytes


def rows(m, report, key):
    return m["reports"][report]["report"][0][key]


def dev_name(m, imgdir, loop):
    pv = m["device_to_pv"].get(loop)
    return os.path.join(imgdir, pv + ".img") if pv else loop


def extent_size(m, vg):
    for v in rows(m, "vgs", "vg"):
        if v["vg_name"] == vg:
            return int(v["vg_extent_size"])
    return 0


def pvdisplay(m, imgdir, colon=False):
    for p in rows(m, "pvs", "pv"):
        if not p["vg_name"]:
            continue
        ext = extent_size(m, p["vg_name"])
        count, alloc = int(p["pv_pe_count"]), int(p["pv_pe_alloc_count"])
        name = dev_name(m, imgdir, p["pv_name"])
        if colon:
            print("  %s:%s:%d:-1:8:8:-1:%d:%d:%d:%d:%s" % (
                name, p["vg_name"], int(p["dev_size"]) // 512, ext // 1024, count,
                count - alloc, alloc, p["pv_uuid"]))
            continue
        print("  PV Name               %s" % name)
        print("  VG Name               %s" % p["vg_name"])
        print("  PV Size               %s / not usable %s" % (
            human(p["dev_size"]), human(int(p["dev_size"]) - count * ext)))
        print("  PE Size               %s" % human(ext))
        print("  Total PE              %d" % count)
        print("  Free PE               %d" % (count - alloc))
        print("  Allocated PE          %d" % alloc)
        print("  PV UUID               %s" % p["pv_uuid"])


def vgdisplay(m, colon=False):
    for v in rows(m, "vgs", "vg"):
        ext = int(v["vg_extent_size"])
        total, free = int(v["vg_extent_count"]), int(v["vg_free_count"])
        if colon:
            print("  %s:r/w:772:-1:%s:%s:0:-1:%s:%s:%s:%d:%d:%d:%d:%d:%s" % (
                v["vg_name"], v["max_lv"], v["lv_count"], v["max_pv"], v["pv_count"],
                v["pv_count"], int(v["vg_size"]) // 1024, ext // 1024, total, total - free,
                free, v["vg_uuid"]))
            continue
        print("  VG Name               %s" % v["vg_name"])
        print("  Metadata Areas        %s" % v["vg_mda_count"])
        print("  Metadata Sequence No  %s" % v["vg_seqno"])
        print("  Cur LV                %s" % v["lv_count"])
        print("  Cur PV                %s" % v["pv_count"])
        print("  VG Size               %s" % human(v["vg_size"]))
        print("  PE Size               %s" % human(ext))
        print("  Total PE              %d" % total)
        print("  Alloc PE / Size       %d / %s" % (total - free, human((total - free) * ext)))
        print("  Free  PE / Size       %d / %s" % (free, human(v["vg_free"])))
        print("  VG UUID               %s" % v["vg_uuid"])


def visible_lvs(m):
    return [lv for lv in rows(m, "lvs", "lv") if not lv["lv_name"].startswith("[")]


def lvdisplay(m):
    for lv in visible_lvs(m):
        ext = extent_size(m, lv["vg_name"])
        kind = lv["lv_attr"][0]
        if kind != "t":   # pools have no device node, hence no path
            print("  LV Path                /dev/%s/%s" % (lv["vg_name"], lv["lv_name"]))
        print("  LV Name                %s" % lv["lv_name"])
        print("  LV UUID                %s" % lv["lv_uuid"])
        if kind != "s":   # a snapshot shows its origin's size
            print("  LV Size                %s" % human(lv["lv_size"]))
            print("  Current LE             %d" % (int(lv["lv_size"]) // ext))
        print("  Segments               %s" % lv["seg_count"])
        print("  Allocation             %s" % lv["lv_allocation_policy"])


def lvdisplay_maps(m):
    visible = {(lv["vg_name"], lv["lv_name"]) for lv in visible_lvs(m)}
    for s in rows(m, "segs", "seg"):
        if (s["vg_name"], s["lv_name"]) not in visible:
            continue
        start, size = int(s["seg_start_pe"]), int(s["seg_size_pe"])
        word = "Virtual" if s["segtype"] == "thin" else "Logical"
        print("  %s extents %d to %d:" % (word, start, start + size - 1))
        print("    Type\t\t%s" % s["segtype"])
        if s["segtype"] == "striped":
            print("    Stripes\t\t%s" % s["stripes"])
            print("    Stripe size\t\t%s" % human(s["stripe_size"]))
        if s["segtype"] in ("linear", "striped"):
            for i, r in enumerate(s["seg_pe_ranges"].split()):
                loop, pes = r.rsplit(":", 1)
                a, b = pes.split("-")
                indent = "    " if s["segtype"] == "linear" else "      "
                if s["segtype"] == "striped":
                    print("    Stripe %d:" % i)
                print("%sPhysical volume\t%s" % (indent, dev_name(m, IMGDIR, loop)))
                print("%sPhysical extents\t%s to %s" % (indent, a, b))


if __name__ == "__main__":
    scenario, IMGDIR, what = sys.argv[1], sys.argv[2], sys.argv[3]
    man = fixture.load_manifest(scenario)
    {
        "pvdisplay": lambda: pvdisplay(man, IMGDIR),
        "pvdisplay-c": lambda: pvdisplay(man, IMGDIR, colon=True),
        "vgdisplay": lambda: vgdisplay(man),
        "vgdisplay-c": lambda: vgdisplay(man, colon=True),
        "lvdisplay": lambda: lvdisplay(man),
        "lvdisplay-m": lambda: lvdisplay_maps(man),
    }[what]()
