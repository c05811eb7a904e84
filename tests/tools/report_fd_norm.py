#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Normalize what a shell wrote to its report descriptor (LVM_REPORT_FD) for comparing
lvx with LVM2: one line per JSON object with its reports (empty ones dropped: LVM2 prints
the empty report of a command that failed before reporting) and its log entries of the
"shell" context without log_seq_num (LVM2 numbers its internal log items too); for the
other entries (messages, lastlog) only type and message, and only the error messages lvx
has (LVM2 adds "Cannot process ..." lines of its own).  usage: report_fd_norm.py FILE"""
import json
import sys

text = open(sys.argv[1]).read()
dec = json.JSONDecoder()
pos = 0
while True:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    if pos >= len(text):
        break
    obj, pos = dec.raw_decode(text, pos)
    reports = [{k: v for k, v in g.items() if v} for g in obj.get("report", [])]
    reports = [g for g in reports if g]
    log = []
    for e in obj.get("log", []):
        if e["log_context"] == "shell":
            log.append({k: v for k, v in e.items() if k != "log_seq_num"})
        elif e["log_type"] == "error" and not e["log_message"].startswith("Cannot process"):
            log.append({"log_type": e["log_type"], "log_message": e["log_message"]})
    print(json.dumps({"report": reports, "log": log}, sort_keys=True))
