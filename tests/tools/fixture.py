#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tests/tools/fixture.py - rebuild the disk images of an LVM2 fixture scenario.

  fixture.py scenarios                  list scenario names, one per line
  fixture.py build SCENARIO OUTDIR      write OUTDIR/diskN.img (sparse, full size) for every
                                        PV of the scenario, check image_sha256, print the
                                        absolute image paths one per line (manifest order)
  fixture.py vgs SCENARIO               names of the VGs of the scenario (from the backups)

Also imported by damage.py (build_images, load_manifest).
"""
import gzip
import hashlib
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.environ.get("LVX_FIXTURES", os.path.join(ROOT, "tests", "fixtures", "lvm2"))


def scenario_dir(scenario):
    return os.path.join(FIXTURES, scenario)


def scenarios():
    return sorted(d for d in os.listdir(FIXTURES)
                  if os.path.isfile(os.path.join(FIXTURES, d, "manifest.json")))


def load_manifest(scenario):
    with open(os.path.join(scenario_dir(scenario), "manifest.json")) as f:
        return json.load(f)


def vg_names(scenario):
    """VG names, taken from the backup file names (backup-<vg>.vg)."""
    m = load_manifest(scenario)
    return [b[len("backup-"):-len(".vg")] for b in m.get("backups", [])]


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _image_sha256(size, parts):
    """sha256 of a size-byte image of zeros with parts [(offset, data)] laid over it,
    computed without reading the (sparse) file back."""
    h = hashlib.sha256()
    zero = bytes(1 << 20)
    pos = 0
    for offset, data in sorted(parts, key=lambda p: p[0]) + [(size, b"")]:
        while pos < offset:
            n = min(len(zero), offset - pos)
            h.update(zero[:n])
            pos += n
        h.update(data)
        pos += len(data)
    return h.hexdigest()


def build_images(scenario, outdir, verify=True):
    """Write every PV image of a scenario into outdir; return {disk name: abs path}."""
    m = load_manifest(scenario)
    os.makedirs(outdir, exist_ok=True)
    paths = {}
    for pv in m["pvs"]:
        path = os.path.abspath(os.path.join(outdir, pv["name"] + ".img"))
        parts = []
        for part in ("head", "tail"):
            if part in pv:
                with gzip.open(os.path.join(scenario_dir(scenario), pv[part]["file"])) as g:
                    parts.append((pv[part]["offset"], g.read()))
        if verify and _image_sha256(pv["image_size"], parts) != pv["image_sha256"]:
            raise SystemExit("fixture.py: %s/%s: rebuilt image does not match image_sha256"
                             % (scenario, pv["name"]))
        with open(path, "wb") as out:
            out.truncate(pv["image_size"])          # sparse, all zero
            for offset, data in parts:
                out.seek(offset)
                out.write(data)
        paths[pv["name"]] = path
    return paths


def main(argv):
    if len(argv) >= 2 and argv[1] == "scenarios":
        print("\n".join(scenarios()))
    elif len(argv) == 4 and argv[1] == "build":
        for path in build_images(argv[2], argv[3]).values():
            print(path)
    elif len(argv) == 3 and argv[1] == "vgs":
        print("\n".join(vg_names(argv[2])))
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
