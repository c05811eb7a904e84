#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Drive a shell the way lvm2-dbusd does, through its own lvm_shell_proxy module.

usage: shell_proxy_drive.py BINARY VG PV   (PV: one of the VG's; prints one line per check: "ok|not ok DESC")

LVMShellProxy starts "BINARY 32>FIFO" through /bin/sh; Debian's /bin/sh (dash) takes
"32" as an argument instead of a descriptor, so the proxy runs here with bash as the
shell (as on systems whose /bin/sh is bash).  Everything else is the module's own code:
the prompt wait, the report FIFO, the JSON parsing, log_ret_code, lastlog.
"""
import functools
import os
import subprocess
import sys

binary, vg, pv = sys.argv[1:4]
os.environ["LVM_BINARY"] = binary
from lvmdbusd import lvm_shell_proxy as proxy  # noqa: E402  (reads LVM_BINARY at import)

proxy.subprocess.Popen = functools.partial(subprocess.Popen, executable="/bin/bash")
results = []


def check(desc, cond):
    results.append(("ok" if cond else "not ok") + " " + desc)


shell = proxy.LVMShellProxy()
rc, rep, err = shell.call_lvm(["vgs", "-o", "vg_name,vg_uuid", "--reportformat", "json"])
check("vgs: success", rc == 0 and err == "")
names = [r["vg_name"] for r in rep.get("report", [{}])[0].get("vg", [])]
check("vgs: the VG is in the JSON report", vg in names)
check("vgs: log_ret_code 1 in the shell status entry",
      rep["log"][-1]["log_ret_code"] == "1" and rep["log"][-1]["log_context"] == "shell")

rc, rep, err = shell.call_lvm(["lvs", "nosuchvg"])
check("lvs of a missing VG: failure", rc != 0)
check("lvs of a missing VG: status 5 in the log", rep["log"][-1]["log_ret_code"] == "5")
check("lvs of a missing VG: lastlog gives the error message",
      'Volume group "nosuchvg" not found' in err)

rc, rep, err = shell.call_lvm(["lvcreate", "-n", "proxylv", "-L", "4m", vg])
check("lvcreate through the shell: success", rc == 0)
rc, rep, err = shell.call_lvm(["lvs", "-o", "lv_name,lv_size", "--units", "b", "--nosuffix",
                               "--reportformat", "json", vg])
lvs = {r["lv_name"]: r["lv_size"] for r in rep["report"][0]["lv"]}
check("the new LV is reported, 4 MiB in bytes", lvs.get("proxylv") == "4194304")

full = ["fullreport", "-a", "--configreport", "pv", "-o", "pv_name,pv_uuid,vg_name",
        "--configreport", "vg", "-o", "vg_name,vg_uuid", "--configreport", "lv", "-o",
        "lv_uuid,lv_name", "--configreport", "seg", "-o", "seg_pe_ranges,segtype,lv_uuid",
        "--configreport", "pvseg", "-o", "pvseg_start,pvseg_size,pv_uuid,lv_uuid",
        "--reportformat", "json"]
rc, rep, err = shell.call_lvm(full)
check("fullreport through the shell: success", rc == 0)
groups = rep.get("report", [])
mine = [g for g in groups if any(v["vg_name"] == vg for v in g.get("vg", []))]
check("fullreport: the VG's group has vg, pv, lv, pvseg and seg",
      len(mine) == 1 and all(k in mine[0] for k in ("vg", "pv", "lv", "pvseg", "seg")))
check("fullreport: the LV is in its lv report",
      len(mine) == 1 and any(r["lv_name"] == "proxylv" for r in mine[0]["lv"]))
check("fullreport: its PV is in its pv report",
      len(mine) == 1 and pv in [r["pv_name"] for r in mine[0]["pv"]])

rc, rep, err = shell.call_lvm(["lvremove", "-y", vg + "/proxylv"])
check("lvremove through the shell: success", rc == 0)
rc, rep, err = shell.call_lvm(["lvs", "--reportformat", "json", vg])
check("the LV is gone",
      rc == 0 and "proxylv" not in [r["lv_name"] for r in rep["report"][0]["lv"]])
shell.exit_shell()
try:
    shell.lvm_shell.wait(timeout=30)
    check("exit ends the shell with status 0", shell.lvm_shell.returncode == 0)
except subprocess.TimeoutExpired:
    check("exit ends the shell with status 0", False)
print("\n".join(results))
