#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""lvxd_request.py - send one request to the lvx daemon's control socket, print the reply.

  lvxd_request.py REQUEST...
      the words of REQUEST joined by spaces, sent to $LVX_RUN_DIR/control.sock (the
      protocol of src/daemon/daemon.h: one line, then the reply "ok ..." or
      "err ERRNO MESSAGE"); exit 0 for "ok", 1 otherwise.  Tests use it to drive what
      a command would (e.g. "snapmerge VG LV MAX": one step of a snapshot merge).
"""
import os
import socket
import sys


def main():
    path = os.path.join(os.environ.get("LVX_RUN_DIR") or "/run/lvx", "control.sock")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.sendall((" ".join(sys.argv[1:]) + "\n").encode())
    s.shutdown(socket.SHUT_WR)
    reply = b""
    while True:
        d = s.recv(4096)
        if not d:
            break
        reply += d
    text = reply.decode().strip()
    print(text)
    return 0 if text.startswith("ok") else 1


if __name__ == "__main__":
    sys.exit(main())
