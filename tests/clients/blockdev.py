# SPDX-License-Identifier: GPL-2.0-or-later
"""tests/clients/blockdev.py DEV0 DEV1 DEV2 VG LOG - libblockdev's LVM plugin (the one
udisks2 and Cockpit use; Debian: libblockdev-lvm2 2.28, through gir1.2-blockdev-2.0),
driven through its GObject binding as a program would: one run of every operation the
plugin offers that applies to linear/striped LVs, plus the snapshot/thin/pvmove ones
(known.py lists their differences).  Each result (True, the returned
struct's fields, or the GLib error with the exit status libblockdev quotes) goes to LOG
with the state LVM2 reads afterwards (common.py).  Which `lvm` it runs is up to PATH."""
import re
import sys

import gi
gi.require_version('BlockDev', '2.0')
from gi.repository import BlockDev as bd, GLib  # noqa: E402

sys.path.insert(0, sys.path[0])
from common import Log, state  # noqa: E402

D0, D1, D2, VG, LOGFILE = sys.argv[1:6]
VG2 = VG + 'r'
MiB = 1024 * 1024
log = Log(LOGFILE)


def value(v):
    """A plugin return value as plain data."""
    if isinstance(v, (bool, int, str)) or v is None:
        return v
    if isinstance(v, list):
        return [value(x) for x in v]
    info = getattr(type(v), '__info__', None)
    if info is not None and hasattr(info, 'get_fields'):
        return {f.get_name(): value(getattr(v, f.get_name())) for f in info.get_fields()}
    return repr(v)


def err(e):
    """A GLib.Error: its code and the exit status of the command libblockdev ran (the
    message text itself is the tool's own wording)."""
    m = re.search(r'exit code (\d+)', e.message)
    lines = [ln.strip() for ln in (e.message or '').splitlines()
             if ln.strip() and 'Activation disabled' not in ln]
    return {'error': e.code, 'exit': int(m.group(1)) if m else None,
            'message': ' / '.join(lines)[:200]}


def op(name, fn, *args, sort=None):
    """Run one plugin call; the state after it when it may have changed something."""
    try:
        r = value(fn(*args))
        if sort and isinstance(r, list):
            r = sorted(r, key=sort)
    except GLib.Error as e:
        r = err(e)
    query = fn in (bd.lvm_pvinfo, bd.lvm_pvs, bd.lvm_vginfo, bd.lvm_vgs, bd.lvm_lvinfo,
                   bd.lvm_lvs, bd.lvm_lvorigin)
    log.record(name, r, None if query else state())


def X(opt, val=''):
    return bd.ExtraArg.new(opt, val)


def tech(t, mode):
    try:
        return bd.lvm_is_tech_avail(t, mode)
    except GLib.Error as e:
        return err(e)


# Loading the plugin runs `lvm version` and checks LVM's version line.
try:
    ok = bd.init([bd.PluginSpec(name=bd.Plugin.LVM, so_name=None)], None)
except GLib.Error as e:
    ok = err(e)
log.record('init (lvm plugin)', ok)
if ok is not True:
    sys.exit(0)

Q = bd.LVMTechMode.QUERY | bd.LVMTechMode.CREATE | bd.LVMTechMode.MODIFY | bd.LVMTechMode.REMOVE
for t in ('BASIC', 'BASIC_SNAP', 'THIN', 'CACHE', 'CALCS', 'GLOB_CONF', 'VDO'):
    log.record('is_tech_avail ' + t, tech(getattr(bd.LVMTech, t), Q))

by_name = lambda d: (d.get('vg_name') or d.get('name') or '', d.get('lv_name') or d.get('pv_name') or '')  # noqa: E731

op('pvcreate D0', bd.lvm_pvcreate, D0, 0, 0, None)
op('pvcreate D1 (dataalignment 1 MiB, metadatasize 1 MiB)', bd.lvm_pvcreate, D1, MiB, MiB, None)
op('pvcreate D2', bd.lvm_pvcreate, D2, 0, 0, None)
op('pvinfo D1', bd.lvm_pvinfo, D1)
op('pvs', bd.lvm_pvs, sort=by_name)
op('pvresize D2 to 48 MiB', bd.lvm_pvresize, D2, 48 * MiB, None)
op('pvresize D2 to device size', bd.lvm_pvresize, D2, 0, None)
op('vgcreate VG D0 D1 (pe 4 MiB, --addtag)', bd.lvm_vgcreate, VG, [D0, D1], 4 * MiB, [X('--addtag', 'vgtag1')])
op('vginfo VG', bd.lvm_vginfo, VG)
op('vgs', bd.lvm_vgs, sort=by_name)
op('vgextend VG D2', bd.lvm_vgextend, VG, D2, None)
op('pvinfo D2 (in VG)', bd.lvm_pvinfo, D2)
# LVM2 cannot move data here (no device-mapper): D2 has none, both must say so
op('pvmove D2 -> D0 (no data on D2)', bd.lvm_pvmove, D2, D0, None)
op('lvcreate lv1 32 MiB', bd.lvm_lvcreate, VG, 'lv1', 32 * MiB, None, None, None)
op('lvcreate lv2 striped 24 MiB on D0 D1', bd.lvm_lvcreate, VG, 'lv2', 24 * MiB, 'striped', [D0, D1], None)
op('lvcreate lv3 8 MiB on D1 (--addtag)', bd.lvm_lvcreate, VG, 'lv3', 8 * MiB, None, [D1], [X('--addtag', 'lvtag1')])
op('lvcreate lv4 linear 8 MiB on D2', bd.lvm_lvcreate, VG, 'lv4', 8 * MiB, 'linear', [D2], None)
op('lvinfo lv1', bd.lvm_lvinfo, VG, 'lv1')
op('lvinfo lv2', bd.lvm_lvinfo, VG, 'lv2')
op('lvs VG', bd.lvm_lvs, VG, sort=by_name)
op('lvs (all)', bd.lvm_lvs, None, sort=by_name)
op('pvinfo D0 (with LVs)', bd.lvm_pvinfo, D0)
op('lvresize lv1 to 64 MiB', bd.lvm_lvresize, VG, 'lv1', 64 * MiB, None)
op('lvresize lv1 to 16 MiB', bd.lvm_lvresize, VG, 'lv1', 16 * MiB, None)
op('lvresize lv1 to 16 MiB again (same size)', bd.lvm_lvresize, VG, 'lv1', 16 * MiB, None)
op('lvrename lv1 lvA', bd.lvm_lvrename, VG, 'lv1', 'lvA', None)
op('lvinfo lvA', bd.lvm_lvinfo, VG, 'lvA')
op('lvactivate lvA', bd.lvm_lvactivate, VG, 'lvA', True, None)
op('lvinfo lvA (after activate)', bd.lvm_lvinfo, VG, 'lvA')
op('lvdeactivate lvA', bd.lvm_lvdeactivate, VG, 'lvA', None)
op('lvinfo lvA (after deactivate)', bd.lvm_lvinfo, VG, 'lvA')
op('vgactivate VG', bd.lvm_vgactivate, VG, None)
op('lvs VG (after vgactivate)', bd.lvm_lvs, VG, sort=by_name)
op('vgdeactivate VG', bd.lvm_vgdeactivate, VG, None)
op('lvs VG (after vgdeactivate)', bd.lvm_lvs, VG, sort=by_name)
op('lvsnapshotcreate lvA -> snap 8 MiB', bd.lvm_lvsnapshotcreate, VG, 'lvA', 'snap', 8 * MiB, None)
op('lvremove snap (cleanup)', bd.lvm_lvremove, VG, 'snap', True, None)
op('lvorigin lvA', bd.lvm_lvorigin, VG, 'lvA')
op('thpoolcreate pool 16 MiB', bd.lvm_thpoolcreate, VG, 'pool', 16 * MiB, 0, 0, None, None)
op('lvremove pool (cleanup)', bd.lvm_lvremove, VG, 'pool', True, None)
op('pvscan', bd.lvm_pvscan, None, False, None)
op('pvscan --cache D0', bd.lvm_pvscan, D0, True, None)
op('vgreduce VG D2 (in use: fails)', bd.lvm_vgreduce, VG, D2, None)
op('lvremove lv4', bd.lvm_lvremove, VG, 'lv4', False, None)
op('vgreduce VG D2', bd.lvm_vgreduce, VG, D2, None)
op('vgreduce VG (--removemissing, none missing)', bd.lvm_vgreduce, VG, None, None)
op('vgrename VG VGr', bd.lvm_vgrename, VG, VG2, None)
op('vginfo VGr', bd.lvm_vginfo, VG2)
# errors: a missing VG/LV, a device that is no PV
op('vginfo VG (gone)', bd.lvm_vginfo, VG)
op('lvinfo VGr/nolv', bd.lvm_lvinfo, VG2, 'nolv')
op('lvcreate in missing VG', bd.lvm_lvcreate, VG, 'x', 8 * MiB, None, None, None)
op('lvcreate too big', bd.lvm_lvcreate, VG2, 'big', 4096 * MiB, None, None, None)
op('lvcreate name taken', bd.lvm_lvcreate, VG2, 'lv2', 8 * MiB, None, None, None)
op('lvcreate striped with -i 2 in extra (libblockdev adds its own: refused)', bd.lvm_lvcreate,
   VG2, 'lv5', 8 * MiB, 'striped', [D0, D1], [X('-i', '2')])
op('lvrename to taken name', bd.lvm_lvrename, VG2, 'lvA', 'lv2', None)
op('lvremove lvA', bd.lvm_lvremove, VG2, 'lvA', False, None)
op('lvremove lv2 (force)', bd.lvm_lvremove, VG2, 'lv2', True, None)
op('lvremove lv3', bd.lvm_lvremove, VG2, 'lv3', False, None)
op('lvremove lv3 again (gone)', bd.lvm_lvremove, VG2, 'lv3', False, None)
op('lvcreate lv6 8 MiB', bd.lvm_lvcreate, VG2, 'lv6', 8 * MiB, None, None, None)
op('lvs VGr', bd.lvm_lvs, VG2, sort=by_name)
op('vgremove VGr (with an LV: libblockdev passes --force)', bd.lvm_vgremove, VG2, None)
op('vgremove VGr again (gone)', bd.lvm_vgremove, VG2, None)
op('pvremove D0', bd.lvm_pvremove, D0, None)
op('pvremove D1', bd.lvm_pvremove, D1, None)
op('pvremove D2', bd.lvm_pvremove, D2, None)
op('pvremove D2 again (no PV)', bd.lvm_pvremove, D2, None)
op('pvinfo D0 (no PV)', bd.lvm_pvinfo, D0)
op('pvs (none)', bd.lvm_pvs)
