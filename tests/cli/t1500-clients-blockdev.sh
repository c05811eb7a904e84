#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1500-clients-blockdev: libblockdev's LVM plugin (udisks2's and Cockpit's way to LVM;
# Debian libblockdev-lvm2 2.28) run operation by operation with LVM2 as `lvm` first on
# PATH, then with lvx as `lvm`, on the same three loop devices; the returned structs,
# errors and the state LVM2 reads after each operation must be equal except for the
# differences listed in tests/clients/known.py (tests/clients/blockdev.py, compare.py).
# CLIENTS_KEEP=DIR keeps the logs and the table.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/clients/env.sh"

[[ -x /usr/bin/python3 ]] || skip_all "no /usr/bin/python3"
/usr/bin/python3 -c 'import gi; gi.require_version("BlockDev", "2.0")' 2>/dev/null ||
    skip_all "gir1.2-blockdev-2.0 / python3-gi not installed"
PYTHON=/usr/bin/python3
clients_setup "vgbd$$" 3
clients_run blockdev
