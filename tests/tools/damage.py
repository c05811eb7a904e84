#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tests/tools/damage.py - damaged LVM2 disk sets for tests/cli/t0120-corrupt.sh.

  damage.py list                 one line per recipe: NAME SCENARIO VG EXPECT DESCRIPTION
  damage.py make RECIPE OUTDIR   rebuild the recipe's fixture images into OUTDIR, damage
                                 them, print the --devices list (comma-separated)
  damage.py text IMAGE [N]       print the committed text of metadata area N (debugging)

EXPECT says what a correct reader must do with the damaged set (tests/cli/t0120-corrupt.sh
checks it; every recipe is also checked for "no crash, no sanitizer report"):
  reads       the VG is still read: some copy of the metadata is intact
  reads-warn  the VG is read, with a warning on stderr (a PV is missing, ...)
  refuses     naming the VG fails with exit status 1..127 and a clear message
  warns       whatever the outcome, stderr explains the problem
  nocrash     only "no crash" (and a message if the command fails)
The expectations agree with what LVM2 2.03.16 does with the same set (see
tests/tools/damage-oracle.sh), except where LVM2 itself misbehaves: it segfaults on
label-offset-huge, and accepts extent_size 0 and a negative seqno (there lvx only has to
survive).

Every recipe edits on-disk structures the way the format (shared/docs/lvm2-format.md)
lays them out and, unless the recipe is about a checksum, fixes the CRCs afterwards so the
reader gets past the checksum and meets the damage itself.  The CRC is LVM2's variant:
reflected polynomial 0xEDB88320, initial value 0xF597A6CF, no final XOR.
"""
import os
import re
import shutil
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixture  # noqa: E402

SECTOR = 512
MDA_MAGIC = b" LVM2 x[5A%r0N*>"

# ------------------------------------------------------------------ CRC


def _crc_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0xEDB88320 if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE = _crc_table()


def lvm_crc(data, crc=0xF597A6CF):
    for b in data:
        crc = (crc >> 8) ^ _TABLE[(crc ^ b) & 0xFF]
    return crc


assert lvm_crc(b"123456789") == 0x4991CF02   # lvm2-format.md §5.3 test vector 2

# ------------------------------------------------------------------ one PV image


class Image:
    """A PV image file with helpers to find and rewrite its LVM2 structures."""

    def __init__(self, path):
        self.path = path

    def read(self, off, n):
        with open(self.path, "rb") as f:
            f.seek(off)
            return f.read(n)

    def write(self, off, data):
        with open(self.path, "r+b") as f:
            f.seek(off)
            f.write(data)

    def u32(self, off):
        return struct.unpack("<I", self.read(off, 4))[0]

    def u64(self, off):
        return struct.unpack("<Q", self.read(off, 8))[0]

    def put32(self, off, v):
        self.write(off, struct.pack("<I", v & 0xFFFFFFFF))

    def put64(self, off, v):
        self.write(off, struct.pack("<Q", v & 0xFFFFFFFFFFFFFFFF))

    def truncate(self, size):
        with open(self.path, "r+b") as f:
            f.truncate(size)

    # label (§2) ----------------------------------------------------
    def label_offset(self):
        for s in range(4):
            if self.read(s * SECTOR, 8) == b"LABELONE":
                return s * SECTOR
        raise SystemExit("damage.py: %s: no label" % self.path)

    def fix_label_crc(self, lab=None):
        lab = self.label_offset() if lab is None else lab
        self.put32(lab + 16, lvm_crc(self.read(lab + 20, SECTOR - 20)))

    def pv_header(self):
        return self.label_offset() + self.u32(self.label_offset() + 20)

    def area_lists(self):
        """(data areas, metadata areas) as lists of (file offset of the entry, offset, size)."""
        pos = self.pv_header() + 40
        lists = []
        for _ in range(2):
            entries = []
            while True:
                off, size = self.u64(pos), self.u64(pos + 8)
                if off == 0:
                    pos += 16
                    break
                entries.append((pos, off, size))
                pos += 16
            lists.append(entries)
        return lists[0], lists[1]

    def mdas(self):
        """Absolute offsets of the metadata areas (mda_header positions)."""
        return [off for _, off, _ in self.area_lists()[1]]

    # mda_header (§4) -----------------------------------------------
    def fix_mda_crc(self, mda):
        self.put32(mda, lvm_crc(self.read(mda + 4, SECTOR - 4)))

    def slot0(self, mda):
        off, size, crc, flags = struct.unpack("<QQII", self.read(mda + 40, 24))
        return off, size, crc, flags

    def set_slot0(self, mda, off=None, size=None, crc=None, flags=None, fix=True):
        o, s, c, f = self.slot0(mda)
        self.write(mda + 40, struct.pack("<QQII", o if off is None else off,
                                         s if size is None else size,
                                         c if crc is None else crc,
                                         f if flags is None else flags))
        if fix:
            self.fix_mda_crc(mda)

    def area_size(self, mda):
        return self.u64(mda + 32)

    def text_pieces(self, mda, size=None):
        """[(absolute offset, length)] of the committed text (two pieces when it wraps)."""
        o, s, _, _ = self.slot0(mda)
        s = s if size is None else size
        area = self.area_size(mda)
        if o + s <= area:
            return [(mda + o, s)]
        return [(mda + o, area - o), (mda + SECTOR, o + s - area)]

    def text(self, mda):
        return b"".join(self.read(a, n) for a, n in self.text_pieces(mda))

    def put_text(self, mda, data, fix_crc=True):
        """Write new text (NUL included) at slot 0's offset, wrapping like LVM2, and
        update slot 0's size and checksum (unless fix_crc is False) and the header CRC."""
        o, _, crc, _ = self.slot0(mda)
        self.set_slot0(mda, size=len(data), fix=False)
        pos = 0
        for a, n in self.text_pieces(mda):
            self.write(a, data[pos:pos + n])
            pos += n
        self.set_slot0(mda, crc=lvm_crc(data) if fix_crc else crc)

    def edit_text(self, mda, fn, fix_crc=True):
        old = self.text(mda)
        new = fn(old)
        if new == old:
            raise SystemExit("damage.py: %s: text edit changed nothing" % self.path)
        self.put_text(mda, new, fix_crc)


# ------------------------------------------------------------------ text edits


def sub1(pattern, repl):
    """A text edit: replace the first match of a regex (bytes)."""
    def fn(text):
        return re.sub(pattern.encode(), repl.encode(), text, count=1)
    return fn


def every_mda(images, fn):
    for img in images:
        for mda in img.mdas():
            fn(img, mda)


def edit_all_texts(images, edit, fix_crc=True):
    every_mda(images, lambda img, mda: img.edit_text(mda, edit, fix_crc))


def flip(img, off):
    img.write(off, bytes([img.read(off, 1)[0] ^ 0xFF]))


def move_label(img, to_sector, sector_field=None):
    lab = img.label_offset()
    data = bytearray(img.read(lab, SECTOR))
    img.write(lab, bytes(SECTOR))
    struct.pack_into("<Q", data, 8, to_sector if sector_field is None else sector_field)
    struct.pack_into("<I", data, 16, lvm_crc(bytes(data[20:])))
    img.write(to_sector * SECTOR, bytes(data))

# ------------------------------------------------------------------ recipes
# Each recipe function gets the list of Image objects (manifest order) and returns the
# list of paths to pass with --devices (usually all of them).


def paths(images):
    return [i.path for i in images]


def r_label_crc(images):
    flip(images[0], images[0].label_offset() + 16)
    return paths(images)


def r_label_type(images):
    lab = images[0].label_offset()
    images[0].write(lab + 24, b"LVM9 001")
    images[0].fix_label_crc()
    return paths(images)


def r_label_magic(images):
    images[0].write(images[0].label_offset(), b"LABELTWO")
    return paths(images)


def r_label_sector_field(images):
    lab = images[0].label_offset()
    images[0].put64(lab + 8, 2)
    images[0].fix_label_crc()
    return paths(images)


def r_label_sector4(images):
    move_label(images[0], 4)
    return paths(images)


def r_label_sector2(images):
    move_label(images[0], 2)
    return paths(images)


def r_label_offset(value):
    def fn(images):
        lab = images[0].label_offset()
        images[0].put32(lab + 20, value)
        images[0].fix_label_crc()
        return paths(images)
    return fn


def r_pvheader_no_terminator(images):
    img = images[0]
    lab = img.label_offset()
    start = img.pv_header() + 40
    end = lab + SECTOR
    entry = struct.pack("<QQ", 4096, 4096)
    img.write(start, entry * ((end - start) // 16))
    img.fix_label_crc()
    return paths(images)


def r_mda_hdr_crc(images):
    flip(images[0], images[0].mdas()[0])
    return paths(images)


def r_mda_magic(images):
    mda = images[0].mdas()[0]
    images[0].write(mda + 4, b"X" + MDA_MAGIC[1:])
    images[0].fix_mda_crc(mda)
    return paths(images)


def r_mda_version(images):
    mda = images[0].mdas()[0]
    images[0].put32(mda + 20, 2)
    images[0].fix_mda_crc(mda)
    return paths(images)


def r_mda_start(images):
    mda = images[0].mdas()[0]
    images[0].put64(mda + 24, mda + 4096)
    images[0].fix_mda_crc(mda)
    return paths(images)


def r_mda_past_device(images):
    img = images[0]
    pos = img.area_lists()[1][0][0]
    img.put64(pos, 1 << 50)
    img.fix_label_crc()
    return paths(images)


def r_mda_ignored_all(images):
    every_mda(images, lambda img, mda: img.set_slot0(mda, flags=1))
    return paths(images)


def r_text_crc(images):
    # change one character of the text (same size) without fixing its checksum
    mda = images[0].mdas()[0]
    images[0].edit_text(mda, sub1(r'creation_host = "v', 'creation_host = "X'), fix_crc=False)
    return paths(images)


def r_text_crc_first_pv(images):
    for mda in images[0].mdas():
        a, _ = images[0].text_pieces(mda)[0]
        flip(images[0], a + 20)
    return paths(images)


def r_text_crc_all(images):
    every_mda(images, lambda img, mda: flip(img, img.text_pieces(mda)[0][0] + 20))
    return paths(images)


def r_slot_crc(images):
    mda = images[0].mdas()[0]
    _, _, crc, _ = images[0].slot0(mda)
    images[0].set_slot0(mda, crc=crc ^ 0x1)
    return paths(images)


def r_slot_size_past_area(images):
    mda = images[0].mdas()[0]
    images[0].set_slot0(mda, size=images[0].area_size(mda))
    return paths(images)


def r_slot_offset_past_area(images):
    mda = images[0].mdas()[0]
    images[0].set_slot0(mda, off=images[0].area_size(mda) + SECTOR)
    return paths(images)


def r_slot_size_huge(images):
    mda = images[0].mdas()[0]
    images[0].set_slot0(mda, size=1 << 63)
    return paths(images)


def r_wrapped_past_area(images):
    # p07: the committed copy wraps; make the wrapped remainder run past the whole area
    img = images[0]
    mda = img.mdas()[0]
    o, _, _, _ = img.slot0(mda)
    area = img.area_size(mda)
    img.set_slot0(mda, size=(area - o) + (area - SECTOR) + 4096)
    return paths(images)


def r_wrapped_tail_crc(images):
    img = images[0]
    mda = img.mdas()[0]
    pieces = img.text_pieces(mda)
    assert len(pieces) == 2, "p07 text is expected to wrap"
    flip(img, pieces[1][0] + 5)
    return paths(images)


def r_truncate_in_text(images):
    img = images[0]
    mda = img.mdas()[0]
    a, n = img.text_pieces(mda)[0]
    img.truncate(a + n // 2)
    return paths(images)


def r_truncate_in_mda_header(images):
    img = images[0]
    img.truncate(img.mdas()[0] + 200)
    return paths(images)


def r_truncate_after_label(images):
    images[0].truncate(1024)
    return paths(images)


def r_truncate_in_extents(images):
    # keeps the metadata, cuts the data area: pe_start + 1 extent (p01: 1 MiB + 4 MiB)
    images[0].truncate(1048576 + 4194304)
    return paths(images)


def r_truncate_at_pe_start(images):
    images[0].truncate(1048576)
    return paths(images)


def r_pe_start_past_device(images):
    # data area offset in the pv_header and pe_start in the text both beyond the device
    img = images[0]
    pos = img.area_lists()[0][0][0]
    img.put64(pos, 1 << 40)
    img.fix_label_crc()
    edit_all_texts(images, sub1(r"pe_start = \d+", "pe_start = %d" % ((1 << 40) // SECTOR)))
    return paths(images)


def r_syntax_brace(images):
    def fn(text):
        i = text.rindex(b"}")
        return text[:i] + b" " + text[i + 1:]
    edit_all_texts(images, fn)
    return paths(images)


def r_syntax_string(images):
    edit_all_texts(images, sub1(r'(id = "[^"]*)"', r"\1x"))
    return paths(images)


def r_syntax_garbage(images):
    edit_all_texts(images, sub1(r"seqno = ", "seqno @ "))
    return paths(images)


def r_syntax_one_copy(images):
    images[0].edit_text(images[0].mdas()[0], sub1(r"seqno = ", "seqno @ "))
    return paths(images)


def r_text_no_nul(images):
    edit_all_texts(images, lambda t: t[:-1] + b"\n")
    return paths(images)


def r_text_empty(images):
    every_mda(images, lambda img, mda: img.put_text(mda, b"\0"))
    return paths(images)


def r_text_binary(images):
    every_mda(images, lambda img, mda: img.put_text(mda, bytes(range(1, 256)) * 3 + b"\0"))
    return paths(images)


def r_dup_pv_uuid(images):
    copy = os.path.join(os.path.dirname(images[0].path), "disk1-copy.img")
    shutil.copyfile(images[0].path, copy)
    return paths(images) + [copy]


def r_overlap_extents(images):
    # p02: lv_stripe4's first stripe starts at PE 1 of pv0, right after lv_pad (PE 0);
    # move it onto PE 0 so both LVs claim it.
    edit_all_texts(images, sub1(r'stripes = \[\n"pv0", 1,', 'stripes = [\n"pv0", 0,'))
    return paths(images)


def r_extents_past_pv(images):
    # p01: a 3-extent LV starting at PE 13 of a 15-extent PV
    edit_all_texts(images, sub1(r'"pv0", 0\n', '"pv0", 13\n'))
    return paths(images)


def r_unknown_pv_in_segment(images):
    edit_all_texts(images, sub1(r'"pv0", 0\n', '"pv7", 0\n'))
    return paths(images)


def r_pe_count_huge(images):
    edit_all_texts(images, sub1(r"pe_count = \d+", "pe_count = %d" % (1 << 40)))
    return paths(images)


def r_extent_size_zero(images):
    edit_all_texts(images, sub1(r"extent_size = \d+", "extent_size = 0"))
    return paths(images)


def r_extent_count_huge(images):
    edit_all_texts(images, sub1(r"extent_count = \d+", "extent_count = 4294967296"))
    return paths(images)


def r_segment_count_huge(images):
    edit_all_texts(images, sub1(r"segment_count = \d+", "segment_count = 1000000"))
    return paths(images)


def r_stripe_count_huge(images):
    edit_all_texts(images, sub1(r"stripe_count = \d+", "stripe_count = 1000000"))
    return paths(images)


def r_status_unknown(images):
    edit_all_texts(images, sub1(r'status = \["RESIZEABLE"', 'status = ["BOGUS_FLAG", "RESIZEABLE"'))
    return paths(images)


def r_seqno_negative(images):
    edit_all_texts(images, sub1(r"seqno = \d+", "seqno = -5"))
    return paths(images)


def r_missing_pv(images):
    return paths(images)[:-1]


def r_only_second_pv(images):
    return paths(images)[1:]


def r_no_such_device(images):
    return paths(images) + ["/nonexistent/lvx-test-device"]


def r_empty_file(images):
    images[0].truncate(0)
    return paths(images)


# name: (scenario, VG, expectation, description, function)
RECIPES = {
    "label-crc": ("p01_single_default", "vg01", "refuses", "label CRC flipped", r_label_crc),
    "label-crc-one-of-two": ("p03_pvmetadatacopies2", "vg03", "reads-warn",
                             "label CRC flipped on one of two PVs", r_label_crc),
    "label-type": ("p01_single_default", "vg01", "refuses",
                   "label type 'LVM9 001' (CRC fixed)", r_label_type),
    "label-magic": ("p01_single_default", "vg01", "nocrash",
                    "LABELONE replaced by LABELTWO", r_label_magic),
    "label-sector-field": ("p01_single_default", "vg01", "refuses",
                           "label in sector 1 claims sector 2", r_label_sector_field),
    "label-sector4": ("p01_single_default", "vg01", "refuses",
                      "label moved to sector 4 (outside sectors 0-3)", r_label_sector4),
    "label-sector2": ("p01_single_default", "vg01", "reads",
                      "label moved to sector 2 (valid)", r_label_sector2),
    "label-offset-481": ("p01_single_default", "vg01", "refuses",
                         "label offset field 481", r_label_offset(481)),
    "label-offset-huge": ("p01_single_default", "vg01", "refuses",
                          "label offset field 0xffffffff", r_label_offset(0xFFFFFFFF)),
    "pvheader-no-terminator": ("p01_single_default", "vg01", "refuses",
                               "pv_header area lists without terminator", r_pvheader_no_terminator),
    "mda-header-crc": ("p01_single_default", "vg01", "refuses",
                       "mda header CRC flipped", r_mda_hdr_crc),
    "mda-header-crc-one-of-four": ("p03_pvmetadatacopies2", "vg03", "reads",
                                   "mda0 header CRC flipped on one PV of two", r_mda_hdr_crc),
    "mda-magic": ("p01_single_default", "vg01", "refuses", "bad mda magic (CRC fixed)", r_mda_magic),
    "mda-version": ("p01_single_default", "vg01", "refuses", "mda version 2", r_mda_version),
    "mda-start": ("p01_single_default", "vg01", "refuses",
                  "mda header start field wrong", r_mda_start),
    "mda-past-device": ("p01_single_default", "vg01", "refuses",
                        "pv_header mda offset 2^50", r_mda_past_device),
    "mda-all-ignored": ("p01_single_default", "vg01", "refuses",
                        "the only metadata area flagged ignored", r_mda_ignored_all),
    "text-crc": ("p01_single_default", "vg01", "refuses",
                 "metadata text changed, checksum not", r_text_crc),
    "text-crc-first-pv": ("p03_pvmetadatacopies2", "vg03", "reads",
                          "both text copies of one PV damaged, the other PV intact",
                          r_text_crc_first_pv),
    "text-crc-all": ("p03_pvmetadatacopies2", "vg03", "refuses",
                     "all four text copies damaged", r_text_crc_all),
    "slot-crc": ("p01_single_default", "vg01", "refuses",
                 "slot 0 checksum wrong (header CRC fixed)", r_slot_crc),
    "slot-size-past-area": ("p01_single_default", "vg01", "refuses",
                            "text size = area size", r_slot_size_past_area),
    "slot-offset-past-area": ("p01_single_default", "vg01", "refuses",
                              "text offset past the area", r_slot_offset_past_area),
    "slot-size-huge": ("p01_single_default", "vg01", "refuses", "text size 2^63", r_slot_size_huge),
    "wrapped-past-area": ("p07_wrapped_circular_buffer", "vg07", "refuses",
                          "wrapped text running past the area", r_wrapped_past_area),
    "wrapped-tail-crc": ("p07_wrapped_circular_buffer", "vg07", "refuses",
                         "byte flipped in the wrapped part of the text", r_wrapped_tail_crc),
    "truncate-in-text": ("p01_single_default", "vg01", "refuses",
                         "image cut in the middle of the metadata text", r_truncate_in_text),
    "truncate-in-mda-header": ("p01_single_default", "vg01", "refuses",
                               "image cut inside the mda header", r_truncate_in_mda_header),
    "truncate-after-label": ("p01_single_default", "vg01", "refuses",
                             "image of 1024 bytes (label only)", r_truncate_after_label),
    "truncate-in-extents": ("p01_single_default", "vg01", "nocrash",
                            "image cut after pe_start + 1 extent", r_truncate_in_extents),
    "truncate-at-pe-start": ("p01_single_default", "vg01", "nocrash",
                             "image cut at pe_start", r_truncate_at_pe_start),
    "pe-start-past-device": ("p01_single_default", "vg01", "nocrash",
                             "pe_start beyond the device", r_pe_start_past_device),
    "syntax-brace": ("p01_single_default", "vg01", "refuses",
                     "text: missing closing brace", r_syntax_brace),
    "syntax-string": ("p01_single_default", "vg01", "refuses",
                      "text: unterminated string", r_syntax_string),
    "syntax-garbage": ("p01_single_default", "vg01", "refuses",
                       "text: '@' instead of '='", r_syntax_garbage),
    "syntax-one-copy": ("p03_pvmetadatacopies2", "vg03", "reads",
                        "text syntax error in one of four copies", r_syntax_one_copy),
    "text-no-nul": ("p01_single_default", "vg01", "nocrash",
                    "text not NUL-terminated", r_text_no_nul),
    "text-empty": ("p01_single_default", "vg01", "refuses", "text is a lone NUL", r_text_empty),
    "text-binary": ("p01_single_default", "vg01", "refuses",
                    "text is binary garbage (CRC valid)", r_text_binary),
    "dup-pv-uuid": ("p01_single_default", "vg01", "warns",
                    "same PV UUID on two devices (copied image)", r_dup_pv_uuid),
    "overlap-extents": ("p02_striped4_256k", "vg02", "refuses",
                        "two LVs on the same extent", r_overlap_extents),
    "extents-past-pv": ("p01_single_default", "vg01", "refuses",
                        "LV extents beyond pe_count", r_extents_past_pv),
    "unknown-pv-in-segment": ("p01_single_default", "vg01", "refuses",
                              "segment names an undefined PV", r_unknown_pv_in_segment),
    "pe-count-huge": ("p01_single_default", "vg01", "refuses", "pe_count 2^40", r_pe_count_huge),
    "extent-size-zero": ("p01_single_default", "vg01", "nocrash", "extent_size 0", r_extent_size_zero),
    "extent-count-huge": ("p01_single_default", "vg01", "refuses",
                          "segment extent_count 2^32", r_extent_count_huge),
    "segment-count-huge": ("p01_single_default", "vg01", "refuses",
                           "segment_count 1000000", r_segment_count_huge),
    "stripe-count-huge": ("p01_single_default", "vg01", "refuses",
                          "stripe_count 1000000", r_stripe_count_huge),
    "status-unknown": ("p01_single_default", "vg01", "refuses",
                       "unknown VG status word", r_status_unknown),
    "seqno-negative": ("p01_single_default", "vg01", "nocrash", "seqno -5", r_seqno_negative),
    "missing-pv": ("p02_striped4_256k", "vg02", "reads-warn",
                   "one PV of four not given", r_missing_pv),
    "missing-pv-with-mda": ("p03_pvmetadatacopies2", "vg03", "reads-warn",
                            "first of two PVs not given", r_only_second_pv),
    "no-such-device": ("p01_single_default", "vg01", "warns",
                       "a --devices entry that does not exist", r_no_such_device),
    "empty-file": ("p01_single_default", "vg01", "refuses", "zero-length image", r_empty_file),
}


def make(name, outdir):
    scenario, _, _, _, fn = RECIPES[name]
    built = fixture.build_images(scenario, outdir)
    images = [Image(p) for p in built.values()]
    return fn(images)


def main(argv):
    if len(argv) == 2 and argv[1] == "list":
        for name, (scenario, vg, expect, desc, _) in RECIPES.items():
            print("%s %s %s %s %s" % (name, scenario, vg, expect, desc))
        return 0
    if len(argv) == 4 and argv[1] == "make" and argv[2] in RECIPES:
        print(",".join(make(argv[2], argv[3])))
        return 0
    if len(argv) in (3, 4) and argv[1] == "text":
        img = Image(argv[2])
        mda = img.mdas()[int(argv[3]) if len(argv) == 4 else 0]
        sys.stdout.write(img.text(mda).decode("utf-8", "replace"))
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
