#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tools/gen-lvm2-settings.py - writes src/config/lvm2_settings.c, the facts lvx's
# lvmconfig needs about LVM2's settings (names, order, default values as lvmconfig
# prints them, the version each appeared in, advanced / profilable), read from the
# installed LVM2's own lvmconfig output (no LVM2 source or text is copied: only the
# names, defaults and flags it prints).  Run by hand after an LVM2 upgrade:
#     python3 tools/gen-lvm2-settings.py > src/config/lvm2_settings.c
import os
import re
import subprocess
import sys
import tempfile

SYSDIR = tempfile.mkdtemp(prefix="lvx-gen-")
open(os.path.join(SYSDIR, "lvm.conf"), "w").close()
ENV = dict(os.environ, LVM_SYSTEM_DIR=SYSDIR, LVM_SUPPRESS_FD_WARNINGS="1")


def lvmconfig(*args):
    out = subprocess.run(["lvm", "lvmconfig", *args], env=ENV, capture_output=True, text=True)
    return [l for l in out.stdout.splitlines() if l.strip()]


def version():
    out = subprocess.run(["lvm", "version"], env=ENV, capture_output=True, text=True).stdout
    return re.search(r"LVM version:\s+(\S+)", out).group(1).split("(")[0]


def tree(lines):
    """(depth, kind, commented, key, text, since, path) per line: kind o/s/c."""
    rows, stack, since = [], [], None
    for line in lines:
        depth = len(line) - len(line.lstrip("\t"))
        s = line.strip()
        commented = s.startswith("# ")
        body = s[2:] if commented else s
        m = re.match(r"Available since version (\S+)\.$", body)
        if m:
            if since:      # the previous one's setting prints no line (no default)
                rows.append((depth, "h", False, "", "", since, "/".join(stack)))
            since = m.group(1)
            continue
        if since and body == "}":   # the last setting of a section prints no line
            rows.append((depth + 1, "h", False, "", "", since, "/".join(stack)))
            since = None
        if body.endswith("{"):
            key = body[:-1].strip()
            stack.append(key)
            rows.append((depth, "o", commented, key, body, since, "/".join(stack)))
        elif body == "}":
            rows.append((depth, "c", commented, "", body, None, "/".join(stack)))
            stack.pop()
        else:
            key = body.split("=", 1)[0]
            rows.append((depth, "s", commented, key, body, since, "/".join(stack + [key])))
        since = None
    return rows


def paths(rows):
    return {r[6] for r in rows if r[1] != "c"}


def cstr(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


# --type full over an lvm.conf of a section LVM2 does not know (left out): the defaults
# LVM2 merges the current settings into, deprecated ones included
with open(os.path.join(SYSDIR, "lvm.conf"), "w") as f:
    f.write("lvxgen {\n\tx = 1\n}\n")
base = tree(lvmconfig("--type", "full"))
open(os.path.join(SYSDIR, "lvm.conf"), "w").close()
full = tree(lvmconfig("--type", "default", "--withversions"))
listing = [l.split(" - ") for l in lvmconfig("--type", "list", "--withversions")]
# the settings without a default line ("h"): LVM2's listed paths of their section that
# have no line, in order
shown = {r[6] for r in full if r[1] == "s"}
hidden = [p for p, _ in listing if p not in shown]
prof_hidden = {}
for r in tree(lvmconfig("--type", "profilable", "--withversions")):
    if r[1] == "h":
        prof_hidden.setdefault(r[6], []).append(r[5])
rows = []
for r in full:
    if r[1] == "h":
        sect = r[6]
        # a section of variable name ("tags/tag" in the tree) is "tags/<tag>" in the list
        sect_l = [p.rsplit("/", 1)[0] for p in hidden]
        path = next((p for p, q in zip(hidden, sect_l)
                     if q == sect or re.sub(r"<[^>]*>", sect.rsplit("/", 1)[-1], q) == sect),
                    sect + "/?")
        if path in hidden:
            hidden.remove(path)
        r = (r[0], "h", False, path.rsplit("/", 1)[-1], "", r[5], path)
        if r[5] in prof_hidden.get(sect, []):
            prof_hidden[sect].remove(r[5])
            r = r + (True,)
    rows.append(r)
full = rows
basic = paths(tree(lvmconfig("--type", "default", "--ignoreadvanced")))
prof = paths(tree(lvmconfig("--type", "profilable")))
list_basic = set(lvmconfig("--type", "list", "--ignoreadvanced"))

print("/* SPDX-License-Identifier: LGPL-2.1-or-later */")
print("/*")
print(" * config/lvm2_settings.c - LVM2 %s's settings as its lvmconfig lists them (generated" % version())
print(" * by tools/gen-lvm2-settings.py from the installed LVM2's output: names, order,")
print(" * defaults, versions, flags; see config/lvm2_settings.h).  Do not edit.")
print(" */")
print('#include "config/lvm2_settings.h"')
print()
print('const char lvx_lvm2_settings_version[] = "%s";' % version())
print()
print("const struct lvx_lvm2_line lvx_lvm2_default_tree[] = {")
advanced = {p for p, _ in listing if p not in list_basic}
for row in full:
    depth, kind, commented, key, text, since, path = row[:7]
    flags = []
    if commented:
        flags.append("LVX_L2_COMMENTED")
    if (kind in "os" and path not in basic) or (kind == "h" and path in advanced):
        flags.append("LVX_L2_ADVANCED")
    if (kind in "os" and path in prof) or (kind == "h" and len(row) > 7):
        flags.append("LVX_L2_PROFILABLE")
    text = text.replace(SYSDIR, "@SYSDIR@")
    print("    { %d, '%s', %s, %s, %s, %s, %s }," % (
        depth, kind, " | ".join(flags) or "0", cstr(key), cstr(text),
        cstr(since) if since else "NULL", cstr(path)))
print("    { 0, 0, 0, NULL, NULL, NULL, NULL },")
print("};")
print()
print("const struct lvx_lvm2_line lvx_lvm2_full_tree[] = {")
for depth, kind, commented, key, text, since, path in base:
    if text == "x=1":       # lvxgen's setting: LVM2 moves it into its first section
        continue
    text = text.replace(SYSDIR, "@SYSDIR@")
    print("    { %d, '%s', 0, %s, %s, NULL, %s }," % (depth, kind, cstr(key), cstr(text), cstr(path)))
print("    { 0, 0, 0, NULL, NULL, NULL, NULL },")
print("};")
print()
print("const struct lvx_lvm2_listed lvx_lvm2_list[] = {")
for path, since in listing:
    print("    { %s, %s, %s }," % (cstr(path), cstr(since.strip("[]")),
                                 "false" if path in list_basic else "true"))
print("    { NULL, NULL, false },")
print("};")
os.unlink(os.path.join(SYSDIR, "lvm.conf"))
os.rmdir(SYSDIR)
