#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tests/tools/mda_slots.py - what every metadata area of some devices holds, read
straight from the disk (lvm2-format.md §2-§6), for the crash-safety and interop tests.

  mda_slots.py show DEV...     one line per device / area:
      DEV label=none
      DEV label=SECTOR ext=VSN flags=HEX mdas=N
      DEV mdaI start=S state=STATE [vg=NAME seqno=N] slot1=empty|set
    STATE is bad (header checksum/magic/start), ignored, empty, crcbad (text checksum),
    or text (a readable committed copy).
  mda_slots.py check [--no-vg] DEV...    exit 0 when the areas are consistent: no bad
      header, no text with a bad checksum, every non-ignored non-empty area at the same VG
      name and seqno, and slot 1 (precommit) empty in every area holding text; else print
      why and exit 1.  (An empty or ignored area may keep the slot 1 of an interrupted
      commit: readers ignore slot 1 and the next commit to the area overwrites it.)
      Prints "seqno N" (or "seqno none" when no area holds text).  With --no-vg no area
      may hold text.
"""
import re
import struct
import sys
import zlib

SECTOR = 512
MDA_MAGIC = b" LVM2 x[5A%r0N*>"


def lvm_crc(data, crc=0xF597A6CF):
    """LVM2's CRC-32 (lvm2-format.md §5): zlib's CRC-32 without its pre/post inversion."""
    return zlib.crc32(data, crc ^ 0xFFFFFFFF) ^ 0xFFFFFFFF


def read_at(f, offset, length):
    f.seek(offset)
    return f.read(length)


def find_label(f):
    head = read_at(f, 0, 4 * SECTOR)
    for s in range(4):
        sec = head[s * SECTOR:(s + 1) * SECTOR]
        if sec[0:8] == b"LABELONE" and struct.unpack_from("<Q", sec, 8)[0] == s:
            return s, sec
    return None, None


def parse_pv_header(sec):
    """(ext_version, ext_flags, [(mda_offset, mda_size)...])"""
    off = struct.unpack_from("<I", sec, 20)[0]
    p = off + 32 + 8            # pv uuid, device size
    areas = []
    for _ in range(2):          # data areas, then metadata areas
        lst = []
        while p + 16 <= SECTOR:
            o, sz = struct.unpack_from("<QQ", sec, p)
            p += 16
            if o == 0 and sz == 0:
                break
            lst.append((o, sz))
        areas.append(lst)
    ext_vsn = ext_flags = 0
    if p + 8 <= SECTOR:
        ext_vsn, ext_flags = struct.unpack_from("<II", sec, p)
    return ext_vsn, ext_flags, areas[1]


def read_text(f, start, size, off, length):
    if off + length <= size:
        return read_at(f, start + off, length)
    first = size - off
    return read_at(f, start + off, first) + read_at(f, start + SECTOR, length - first)


def inspect(dev):
    """list of dicts, one per area; plus the label line."""
    out = []
    with open(dev, "rb") as f:
        sector, sec = find_label(f)
        if sec is None:
            return "%s label=none" % dev, out
        ext_vsn, ext_flags, mdas = parse_pv_header(sec)
        label = "%s label=%d ext=%d flags=0x%x mdas=%d" % (dev, sector, ext_vsn, ext_flags,
                                                            len(mdas))
        for i, (start, size) in enumerate(mdas):
            a = {"dev": dev, "index": i, "start": start}
            hdr = read_at(f, start, SECTOR)
            if (len(hdr) < SECTOR or hdr[4:20] != MDA_MAGIC
                    or struct.unpack_from("<I", hdr, 0)[0] != lvm_crc(hdr[4:])
                    or struct.unpack_from("<Q", hdr, 24)[0] != start):
                a["state"] = "bad"
                out.append(a)
                continue
            s0 = struct.unpack_from("<QQII", hdr, 40)
            s1 = struct.unpack_from("<QQII", hdr, 64)
            a["slot1"] = "set" if (s1[0] or s1[1]) else "empty"
            if s0[3] & 1:
                a["state"] = "ignored"
            elif s0[0] == 0:
                a["state"] = "empty"
            else:
                text = read_text(f, start, size, s0[0], s0[1])
                if lvm_crc(text) != s0[2]:
                    a["state"] = "crcbad"
                else:
                    a["state"] = "text"
                    m = re.match(rb"\s*([A-Za-z0-9+_.-]+)\s*\{", text)
                    a["vg"] = m.group(1).decode() if m else "?"
                    m = re.search(rb"\n\s*seqno\s*=\s*(\d+)", text)
                    a["seqno"] = int(m.group(1)) if m else -1
            out.append(a)
    return label, out


def fmt(a):
    s = "%s mda%d start=%d state=%s" % (a["dev"], a["index"], a["start"], a["state"])
    if a["state"] == "text":
        s += " vg=%s seqno=%d" % (a["vg"], a["seqno"])
    if "slot1" in a:
        s += " slot1=%s" % a["slot1"]
    return s


def main(argv):
    if len(argv) < 3 or argv[1] not in ("show", "check"):
        sys.stderr.write(__doc__)
        return 2
    problems = []
    versions = set()
    no_vg = len(argv) > 2 and argv[2] == "--no-vg"
    if no_vg:
        argv = argv[:2] + argv[3:]
    for dev in argv[2:]:
        label, areas = inspect(dev)
        if argv[1] == "show":
            print(label)
        for a in areas:
            if argv[1] == "show":
                print(fmt(a))
            if a["state"] in ("bad", "crcbad"):
                problems.append(fmt(a))
            if a.get("slot1") == "set" and a["state"] == "text":
                problems.append(fmt(a) + " (precommit slot left set)")
            if a["state"] == "text":
                versions.add((a["vg"], a["seqno"]))
    if no_vg and versions:
        problems.append("areas hold metadata: " + ", ".join("%s seqno %d" % v
                                                           for v in sorted(versions)))
    if len(versions) > 1:
        problems.append("areas disagree: " + ", ".join("%s seqno %d" % v for v in sorted(versions)))
    if argv[1] == "check":
        for p in problems:
            print(p)
        print("seqno %s" % (sorted(versions)[0][1] if len(versions) == 1 else "none"
                            if not versions else "mixed"))
        return 1 if problems else 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
