# SPDX-License-Identifier: GPL-2.0-or-later
"""tests/clients/common.py - what every client script of tests/clients/ shares: the
result log (one JSON line per operation), the on-disk state as the real LVM2 reads it
(so what lvx wrote is judged by LVM2), and normalisation of values that differ between
two runs by nature (UUIDs, which are random).

A client script runs once per tool: the driver (compare.py) puts a directory first on
PATH whose `lvm` (and every LVM2 command name) is either LVM2's or a link to lvx, and
sets LVM_SYSTEM_DIR; STATE_LVM / STATE_SYSTEM_DIR name the real LVM2 and its sandbox
configuration, used only to read the state after each operation."""
import json
import os
import re
import subprocess

UUID_RE = re.compile(r'^[0-9A-Za-z]{6}(-[0-9A-Za-z]{4}){5}-[0-9A-Za-z]{6}$')


class Log:
    """One JSON object a line: {"op": NAME, "result": VALUE, "state": STATE}."""

    def __init__(self, path):
        self.f = open(path, 'w')

    def record(self, op, result, state=None):
        self.f.write(json.dumps({'op': op, 'result': norm(result), 'state': state},
                                sort_keys=True) + '\n')
        self.f.flush()


def norm(v):
    """UUIDs become "<uuid>": they are random in both runs."""
    if isinstance(v, str) and UUID_RE.match(v):
        return '<uuid>'
    if isinstance(v, dict):
        return {k: norm(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [norm(x) for x in v]
    return v


PV_FIELDS = 'pv_name,vg_name,pv_size,pv_free,dev_size,pe_start,pv_pe_count,' \
            'pv_pe_alloc_count,pv_attr,pv_tags,pv_mda_count'
VG_FIELDS = 'vg_uuid,vg_name,vg_size,vg_free,vg_extent_size,vg_extent_count,vg_free_count,' \
            'pv_count,lv_count,vg_attr,vg_tags,max_lv,max_pv,vg_seqno,vg_mda_count'
LV_FIELDS = 'vg_name,lv_name,lv_size,lv_attr,seg_count,lv_tags'
SEG_FIELDS = 'lv_name,seg_start,seg_size,segtype,stripes,stripe_size,devices'


_SEQNO = {}     # vg_uuid -> vg_seqno at the previous state()


def state():
    """PVs, VGs and LVs as the real LVM2 reports them (one `lvm fullreport`; its sandbox
    has activation off, so an LV that lvx activated reads as inactive for it too): the
    on-disk result of an operation.  vg_seqno is given as the number of metadata commits
    since the previous state() (an extra commit shows; earlier differences do not carry
    over)."""
    lvm = os.environ.get('STATE_LVM')
    if not lvm:
        return None
    env = dict(os.environ, LVM_SYSTEM_DIR=os.environ['STATE_SYSTEM_DIR'],
               LVM_SUPPRESS_FD_WARNINGS='1')
    p = subprocess.run([lvm, 'fullreport', '-a', '--units', 'b', '--nosuffix',
                        '--reportformat', 'json',
                        '--configreport', 'pv', '-o', PV_FIELDS,
                        '--configreport', 'vg', '-o', VG_FIELDS,
                        '--configreport', 'lv', '-o', LV_FIELDS,
                        '--configreport', 'seg', '-o', SEG_FIELDS],
                       env=env, capture_output=True, text=True)
    out = {'pvs': [], 'vgs': [], 'lvs': [], 'segs': []}
    try:
        for r in json.loads(p.stdout)['report']:   # one report per VG, then the orphans
            out['pvs'] += r.get('pv', [])
            out['vgs'] += r.get('vg', [])
            out['lvs'] += r.get('lv', [])
            out['segs'] += r.get('seg', [])
    except (ValueError, KeyError):
        return {'error': 'rc=%d %s' % (p.returncode, p.stderr.strip()[:200])}
    for vg in out['vgs']:
        u = vg.pop('vg_uuid', '')
        seq = int(vg.get('vg_seqno', 0))
        name = 'name:%s' % vg.get('vg_name')    # a new UUID (vgchange -u): by name
        vg['vg_seqno'] = '+%d' % (seq - _SEQNO.get(u, _SEQNO.get(name, 0)))
        _SEQNO[u] = _SEQNO[name] = seq
    for k, key in (('pvs', 'pv_name'), ('vgs', 'vg_name'), ('lvs', 'lv_name'),
                   ('segs', 'lv_name')):
        out[k].sort(key=lambda r: (r.get('vg_name', ''), r.get(key, ''),
                                   int(r.get('seg_start', 0))))
    return out


if __name__ == '__main__':      # `common.py state`: the state as JSON (ansible.py's probe)
    print(json.dumps(norm(state()), sort_keys=True))
