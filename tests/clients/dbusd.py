# SPDX-License-Identifier: GPL-2.0-or-later
"""tests/clients/dbusd.py DEV0 DEV1 DEV2 VG LOG MODE - lvm2-dbusd's command layer
(Debian lvm2-dbusd, python module lvmdbusd) called directly, without D-Bus: every
cmdhandler function that applies to linear/striped LVs (plus a snapshot and a thin pool:
known.py lists their differences), each followed by a refresh of lvmdb.DataStore, the daemon's
whole data model.  MODE:
  json   DataStore in JSON mode: one `lvm fullreport --reportformat json` per refresh
  text   DataStore in text mode: pvs/vgs/lvs with --separator (no fullreport)
  shell  commands and refreshes through lvm_shell_proxy (`lvm` as a shell on a pipe,
         LVM_REPORT_FD, lastlog): the daemon's --lvmshell mode
Each record: the command's exit status and the normalised data model (UUID keys replaced
by the object's name).  lvmdbusd finds `lvm` through $LVM_BINARY (set by compare.py)."""
import argparse
import json
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Log  # noqa: E402

from lvmdbusd import cfg  # noqa: E402

cfg.args = argparse.Namespace(use_json=True, debug=False, use_lvm_shell=False,
                              use_udev=False, bb_size=16)
from lvmdbusd import cmdhandler, lvmdb  # noqa: E402

D0, D1, D2, VG, LOGFILE, MODE = sys.argv[1:7]
VG2 = VG + 'r'
MiB = 1024 * 1024
log = Log(LOGFILE)


class Timeout(Exception):
    pass


def _alarm(*_):
    raise Timeout('no answer in 30 s')


signal.signal(signal.SIGALRM, _alarm)


def guarded(fn, *args):
    """fn(*args) with a time limit (a shell that never prompts would block forever)."""
    signal.alarm(30)
    try:
        return fn(*args)
    except Exception as e:       # the client's own failure is a result too
        return {'exception': type(e).__name__, 'message': str(e)[:200]}
    finally:
        signal.alarm(0)


if MODE == 'shell':
    # lvm_shell_proxy starts `$LVM_BINARY 32>FIFO` through /bin/sh; Debian's dash knows
    # only the descriptors 0-9, so `32>` never opens descriptor 32 and even LVM2's shell
    # fails ("Failed to open stream for file descriptor 32"): run that line with bash,
    # as on the distributions whose /bin/sh is bash.
    import subprocess

    class _BashPopen(subprocess.Popen):
        def __init__(self, *a, **kw):
            if kw.get('shell'):
                kw.setdefault('executable', '/bin/bash')
            super().__init__(*a, **kw)
    subprocess.Popen = _BashPopen
    started = guarded(cmdhandler.set_execution, True)
    log.record('lvm shell started (set_execution)',
               started if isinstance(started, dict) else bool(cfg.SHELL_IN_USE))
    if not cfg.SHELL_IN_USE:
        # the daemon would drop back to fork and exec: that is the JSON run already
        sys.exit(0)
if MODE == 'text':
    db = lvmdb.DataStore(usejson=False)
else:
    db = guarded(lvmdb.DataStore, True)
    if isinstance(db, dict):
        log.record('DataStore (supports_json)', db)
        sys.exit(0)
    log.record('supports_json (`lvm help` lists fullreport)', db.json)
    db.json = True          # JSON mode is what this run tests, whatever help says
cfg.db = db


def names():
    """uuid -> a stable readable name, from the model's own lookup tables."""
    m = {}
    for path, u in db.pv_path_to_uuid.items():
        m[u] = 'pv:' + path
    for name, u in db.vg_name_to_uuid.items():
        m[u] = 'vg:' + name
    for name, u in db.lv_full_name_to_uuid.items():
        m[u] = 'lv:' + name
    return m


def model():
    r = guarded(db.refresh, False)
    if isinstance(r, dict):
        return {'refresh failed': r}
    seqno_deltas(db.vgs)
    m = names()

    def n(v):
        if isinstance(v, str):
            return m.get(v, v)
        if isinstance(v, dict):
            return {n(k): n(x) for k, x in sorted(v.items())}
        if isinstance(v, (list, tuple)):
            return [n(x) for x in v]
        return v
    r = n({'pvs': db.pvs, 'vgs': db.vgs, 'lvs': db.lvs, 'pv_lvs': db.pv_lvs,
           'lv_pvs': db.lv_pvs, 'lvs_hidden': db.lvs_hidden,
           'lvs_in_vgs': db.lvs_in_vgs, 'pvs_in_vgs': db.pvs_in_vgs})
    # lvmdb orders the LVs of a PV (and the PVs of an LV) by UUID, which is random in
    # each run: by name instead
    for k in ('pv_lvs', 'lv_pvs'):
        for key, lst in r[k].items():
            r[k][key] = sorted(lst, key=lambda e: json.dumps(e, sort_keys=True))
    return r


_SEQNO = {}


def seqno_deltas(vgs):
    """vg_seqno as the number of commits since the previous model (common.state does
    the same): one extra commit shows at the operation that made it, not ever after."""
    for u, vg in vgs.items():
        if isinstance(vg, dict) and 'vg_seqno' in vg:
            seq = int(vg['vg_seqno'])
            name = 'name:%s' % vg.get('vg_name')     # a new UUID (vgchange -u): by name
            vg['vg_seqno'] = '+%d' % (seq - _SEQNO.get(u, _SEQNO.get(name, 0)))
            _SEQNO[u] = _SEQNO[name] = seq


def op(name, fn, *args):
    r = guarded(fn, *args)
    if isinstance(r, tuple):       # call(): (rc, stdout or the shell's JSON, stderr)
        r = {'rc': r[0], 'message': str(r[2])[-200:]}
    log.record(name, r, model())


def vg_uuid(name):
    return db.vg_name_to_uuid.get(name, name)


ch = cmdhandler
log.record('initial model (nothing)', None, model())
op('supports_vdo (`lvm segtypes`)', lambda: ch.supports_vdo())
op('pv_create D0 D1 D2', ch.pv_create, {}, [D0, D1, D2])
op('vg_create VG D0 D1', ch.vg_create, {}, [D0, D1], VG)
op('vg_extend VG D2', ch.vg_extend, VG, [D2], {})
op('vg_lv_create_linear lv1 32 MiB', ch.vg_lv_create_linear, VG, {}, 'lv1', 32 * MiB, False)
op('vg_lv_create_striped lv2 24 MiB x2', ch.vg_lv_create_striped, VG, {}, 'lv2', 24 * MiB, 2, 64, False)
op('vg_lv_create lv3 8 MiB on D1:10-11', ch.vg_lv_create, VG, {}, 'lv3', 8 * MiB, [(D1, 10, 11)])
op('lv_resize lv1 +16 MiB', ch.lv_resize, VG + '/lv1', 16 * MiB, [], {})
op('lv_resize lv1 -8 MiB', ch.lv_resize, VG + '/lv1', -8 * MiB, [], {})
op('lv_rename lv1 lvA', ch.lv_rename, VG + '/lv1', 'lvA', {})
op('lv_tag lvA add t1 t2', ch.lv_tag, VG + '/lvA', ['t1', 't2'], [], {})
op('lv_tag lvA del t1', ch.lv_tag, VG + '/lvA', [], ['t1'], {})
op('vg_tag VG add v1', ch.vg_tag, VG, ['v1'], [], {})
op('vg_tag VG del v1 add v2', ch.vg_tag, VG, ['v2'], ['v1'], {})
op('pv_tag D0 D1 add p1', ch.pv_tag, [D0, D1], ['p1'], [], {})
op('pv_tag D0 del p1', ch.pv_tag, [D0], [], ['p1'], {})
op('activate lvchange -ay lvA', ch.activate_deactivate, 'lvchange', VG + '/lvA', True, 0, {})
op('activate lvchange -an lvA', ch.activate_deactivate, 'lvchange', VG + '/lvA', False, 0, {})
op('activate vgchange -ay -K VG', ch.activate_deactivate, 'vgchange', VG, True, 1 << 4, {})
op('activate vgchange -an VG', ch.activate_deactivate, 'vgchange', VG, False, 0, {})
op('vg_allocation_policy VG cling', ch.vg_allocation_policy, VG, 'cling', {})
op('vg_max_pv VG 16', ch.vg_max_pv, VG, 16, {})
op('vg_max_lv VG 32', ch.vg_max_lv, VG, 32, {})
op('pv_allocatable D2 n', ch.pv_allocatable, D2, False, {})
op('pv_allocatable D2 y', ch.pv_allocatable, D2, True, {})
op('pv_resize D2 48 MiB', ch.pv_resize, D2, 48 * MiB, {})
op('pv_resize D2 device size', ch.pv_resize, D2, 0, {})
op('vg_uuid_gen VG', ch.vg_uuid_gen, VG, None, {})
op('vg_lv_snapshot lvA snap', ch.vg_lv_snapshot, VG + '/lvA', {}, 'snap', 8 * MiB)
op('lv_remove snap (cleanup)', ch.lv_remove, VG + '/snap', {})
op('vg_lv_create_linear pool 16 MiB (thin)', ch.vg_lv_create_linear, VG, {}, 'thin1', 16 * MiB, True)
op('lv_remove thin1 (cleanup)', ch.lv_remove, VG + '/thin1', {})
op('vg_reduce VG D2', ch.vg_reduce, VG, False, [D2], {})
op('pv_scan --cache', ch.pv_scan, False, True, [], [], {})
op('vg_rename VG (by uuid) VGr', lambda: ch.vg_rename(vg_uuid(VG), VG2, {}))
op('lv_remove lv2', ch.lv_remove, VG2 + '/lv2', {})
op('lv_remove nolv (missing)', ch.lv_remove, VG2 + '/nolv', {})
op('vg_remove VGr (with LVs)', ch.vg_remove, VG2, {})
op('pv_remove D0', ch.pv_remove, D0, {})
op('pv_remove D1 D2', lambda: ch.pv_remove(D1, {}) if ch.pv_remove(D2, {})[0] == 0 else (9, '', ''))
if MODE == 'shell':
    op('exit shell', ch.set_execution, False)
