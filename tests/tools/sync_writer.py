#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""sync_writer.py - a writer that records what it knows is durable.

  sync_writer.py write DEV LOG RECORDS [DELAY]
      write RECORDS 1 MiB records (record i: its number repeated) to DEV with
      O_DIRECT; after every 4th record fsync DEV and append "synced N" to LOG
      (N records are durable).  Stops at the first error (prints it, exits 3).
      DELAY: seconds to sleep after each fsync (slows the writer down).
  sync_writer.py verify DEV COUNT
      check that records 0..COUNT-1 read back; exits 1 on a difference.
"""
import mmap
import os
import sys
import time

REC = 1 << 20


def record(i):
    return i.to_bytes(8, "little") * (REC // 8)


def write(dev, log, count, delay):
    buf = mmap.mmap(-1, REC)
    fd = os.open(dev, os.O_WRONLY | os.O_DIRECT)
    with open(log, "a") as lg:
        for i in range(count):
            buf.seek(0)
            buf.write(record(i))
            try:
                os.pwrite(fd, buf, i * REC)
                if i % 4 == 3:
                    os.fsync(fd)
                    lg.write("synced %d\n" % (i + 1))
                    lg.flush()
                    os.fsync(lg.fileno())
                    time.sleep(delay)
            except OSError as e:
                print("writer stopped at record %d: %s" % (i, e))
                return 3
    os.close(fd)
    return 0


def verify(dev, count):
    buf = mmap.mmap(-1, REC)
    fd = os.open(dev, os.O_RDONLY | os.O_DIRECT)
    bad = 0
    for i in range(count):
        os.preadv(fd, [buf], i * REC)
        if bytes(buf) != record(i):
            bad += 1
            if bad <= 3:
                print("record %d differs" % i)
    os.close(fd)
    print("%d of %d records read back" % (count - bad, count))
    return 1 if bad else 0


def main():
    a = sys.argv
    if len(a) in (5, 6) and a[1] == "write":
        return write(a[2], a[3], int(a[4]), float(a[5]) if len(a) == 6 else 0.0)
    if len(a) == 4 and a[1] == "verify":
        return verify(a[2], int(a[3]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
