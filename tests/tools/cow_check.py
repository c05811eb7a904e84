#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""cow_check.py - check a COW snapshot's exception store as the kernel reads it.

  cow_check.py COW.bin [BEFORE.bin|- [ORIGIN.bin SNAPSHOT.bin]]
      COW.bin: the COW LV's bytes (e.g. from lv_pvread.py).  Parses the kernel's
      persistent store (docs/dm-formats.md section 7): header "SnAp", valid,
      version 1, chunk size; metadata area a at chunk 1 + a*(E+1), E = chunk
      bytes / 16 records (old_chunk, new_chunk), the list ending at new_chunk 0,
      a full area followed by the next.  Fails (exit 1) on a bad header, a record
      naming chunk 0, a metadata chunk or a chunk past the COW, or a COW chunk
      used twice.  BEFORE.bin (the origin when the snapshot was taken, when only
      the origin was written since): every record's COW chunk holds that origin
      chunk.  ORIGIN.bin + SNAPSHOT.bin: the snapshot as the kernel reads it
      (chunks with a record from the COW, the rest from the origin now) equals
      SNAPSHOT.bin.
      Prints "valid=V chunk=C records=N areas=A next_free=F olds=D" (D: distinct
      origin chunks among the records; the kernel never records one twice).
Written from the format description, independently of lvx's C code.
"""
import struct
import sys


def fail(msg):
    print("cow_check: " + msg)
    sys.exit(1)


def main():
    cow = open(sys.argv[1], "rb").read()
    before = (open(sys.argv[2], "rb").read()
              if len(sys.argv) > 2 and sys.argv[2] != "-" else None)
    magic, valid, version, chunk = struct.unpack_from("<IIII", cow, 0)
    if magic != 0x70416E53:
        fail("bad magic %08x" % magic)
    if version != 1 or chunk == 0 or chunk & (chunk - 1):
        fail("bad version %d or chunk size %d" % (version, chunk))
    cb = chunk * 512
    nchunks = len(cow) // cb
    epa = cb // 16
    stride = epa + 1
    records = []
    area = 0
    while True:
        loc = 1 + area * stride
        if loc >= nchunks:
            break
        full = True
        for i in range(epa):
            old, new = struct.unpack_from("<QQ", cow, loc * cb + i * 16)
            if new == 0:
                full = False
                break
            if new < 2 or new >= nchunks or new % stride == 1:
                fail("record %d of area %d: bad COW chunk %d" % (i, area, new))
            records.append((old, new))
        if not full:
            break
        area += 1
    news = [n for _, n in records]
    if len(set(news)) != len(news):
        fail("a COW chunk is used twice")
    next_free = max(news) + 1 if news else 2
    if next_free % stride == 1:
        next_free += 1
    if before is not None:
        for old, new in records:
            want = before[old * cb:(old + 1) * cb]
            if cow[new * cb:new * cb + len(want)] != want:
                fail("COW chunk %d does not hold origin chunk %d as it was" % (new, old))
    if len(sys.argv) > 4:
        snap = bytearray(open(sys.argv[3], "rb").read())
        for old, new in records:
            n = min(cb, len(snap) - old * cb)
            if n > 0:
                snap[old * cb:old * cb + n] = cow[new * cb:new * cb + n]
        if bytes(snap) != open(sys.argv[4], "rb").read():
            fail("the snapshot read as the kernel does differs from SNAPSHOT.bin")
    print("valid=%d chunk=%d records=%d areas=%d next_free=%d olds=%d"
          % (valid, chunk, len(records), area + 1, next_free, len(set(o for o, _ in records))))


main()
