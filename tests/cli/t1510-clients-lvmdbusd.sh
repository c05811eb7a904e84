#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1510-clients-lvmdbusd: lvm2-dbusd's command layer (Debian lvm2-dbusd: the lvmdbusd
# module's cmdhandler and lvmdb.DataStore, no D-Bus) run operation by operation against
# LVM2 and then against lvx as `lvm` ($LVM_BINARY), on the same three loop devices, in
# the daemon's three ways of running lvm: JSON (fullreport), text (pvs/vgs/lvs) and the
# lvm shell (lvm_shell_proxy).  Each command's exit status and the whole data model after
# a refresh must be equal except for tests/clients/known.py's list
# (tests/clients/dbusd.py, compare.py).  CLIENTS_KEEP=DIR keeps the logs and tables.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/clients/env.sh"

[[ -x /usr/bin/python3 ]] || skip_all "no /usr/bin/python3"
/usr/bin/python3 -c 'import lvmdbusd.cmdhandler' 2>/dev/null ||
    skip_all "lvm2-dbusd not installed"
PYTHON=/usr/bin/python3
clients_setup "vgdb$$" 3
clients_run dbusd:json dbusd:text dbusd:shell/json
