#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1520-clients-ansible: Ansible's community.general.lvg and lvol modules (Debian's
# ansible package) run task by task on this host as Ansible runs them on a managed host
# (module code + argument file; the controller is left out), against LVM2 and then
# against lvx (the modules call vgcreate, lvs, ... by name: PATH decides), on the same three loop
# devices; each task's changed/failed and the state LVM2 reads after it must be equal
# except for tests/clients/known.py's list (tests/clients/ansible.py, compare.py).
# CLIENTS_KEEP=DIR keeps the logs and the table.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/clients/env.sh"

[[ -f /usr/lib/python3/dist-packages/ansible_collections/community/general/plugins/modules/lvol.py ]] ||
    skip_all "community.general (Debian ansible) not installed"
PYTHON=/usr/bin/python3
clients_setup "vgan$$" 3
clients_run ansible
