# SPDX-License-Identifier: GPL-2.0-or-later
"""tests/clients/ansible.py DEV0 DEV1 DEV2 VG LOG - Ansible's community.general.lvg and
lvol modules (Debian's ansible package) run on this host task by task, each followed by
the state LVM2 reads (common.py).  The modules find vgcreate, lvcreate, lvs, ... through
PATH: whose they run is up to the driver.  Each record: the task's changed/failed (and
rc and message when it failed), then the state."""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from common import Log, state  # noqa: E402

D0, D1, D2, VG, LOGFILE = sys.argv[1:6]
log = Log(LOGFILE)

TASKS = [
    ('lvg create VG on D0 D1 (pesize 4)', 'lvg', {'vg': VG, 'pvs': [D0, D1], 'pesize': '4'}),
    ('lvg create VG again (idempotent)', 'lvg', {'vg': VG, 'pvs': [D0, D1], 'pesize': '4'}),
    ('lvg extend VG with D2', 'lvg', {'vg': VG, 'pvs': [D0, D1, D2]}),
    ('lvol create lv1 32m', 'lvol', {'vg': VG, 'lv': 'lv1', 'size': '32m'}),
    ('lvol lv1 32m again (idempotent)', 'lvol', {'vg': VG, 'lv': 'lv1', 'size': '32m'}),
    ('lvol extend lv1 to 64m', 'lvol', {'vg': VG, 'lv': 'lv1', 'size': '64m'}),
    ('lvol lv1 +8m', 'lvol', {'vg': VG, 'lv': 'lv1', 'size': '+8m'}),
    ('lvol shrink lv1 to 48m (force)', 'lvol', {'vg': VG, 'lv': 'lv1', 'size': '48m', 'force': True}),
    ('lvol shrink lv1 to 40m without force (refused)', 'lvol', {'vg': VG, 'lv': 'lv1', 'size': '40m'}),
    ('lvol create lv2 16m striped (opts -i 2 --addtag)', 'lvol',
     {'vg': VG, 'lv': 'lv2', 'size': '16m', 'opts': '-i 2 --addtag t1'}),
    ('lvol create lv3 10%FREE', 'lvol', {'vg': VG, 'lv': 'lv3', 'size': '10%FREE'}),
    ('lvol create lv4 8m on D2', 'lvol', {'vg': VG, 'lv': 'lv4', 'size': '8m', 'pvs': D2}),
    ('lvol deactivate lv1', 'lvol', {'vg': VG, 'lv': 'lv1', 'active': False}),
    ('lvol activate lv1', 'lvol', {'vg': VG, 'lv': 'lv1', 'active': True}),
    ('lvol deactivate lv1 again', 'lvol', {'vg': VG, 'lv': 'lv1', 'active': False}),
    ('lvol snapshot snap of lv1 8m', 'lvol', {'vg': VG, 'lv': 'lv1', 'snapshot': 'snap', 'size': '8m'}),
    ('lvol remove snap (cleanup)', 'lvol', {'vg': VG, 'lv': 'snap', 'state': 'absent', 'force': True}),
    ('lvol thin pool 16m', 'lvol', {'vg': VG, 'thinpool': 'pool', 'size': '16m'}),
    ('lvol remove pool (cleanup)', 'lvol', {'vg': VG, 'lv': 'pool', 'state': 'absent', 'force': True}),
    ('lvol remove lv4 (force)', 'lvol', {'vg': VG, 'lv': 'lv4', 'state': 'absent', 'force': True}),
    ('lvol remove lv4 again (absent)', 'lvol', {'vg': VG, 'lv': 'lv4', 'state': 'absent', 'force': True}),
    ('lvg reduce VG to D0 D1', 'lvg', {'vg': VG, 'pvs': [D0, D1]}),
    ('lvg pvresize', 'lvg', {'vg': VG, 'pvs': [D0, D1], 'pvresize': True}),
    ('lvol in a missing VG (fails)', 'lvol', {'vg': VG + 'x', 'lv': 'l', 'size': '8m'}),
    ('lvg remove VG with LVs, no force (fails)', 'lvg', {'vg': VG, 'state': 'absent'}),
    ('lvg remove VG (force)', 'lvg', {'vg': VG, 'state': 'absent', 'force': True}),
    ('lvg remove VG again (absent)', 'lvg', {'vg': VG, 'state': 'absent'}),
]

def run_module(mod, args):
    """One module run as Ansible runs it on a managed host (the module's own code with
    its arguments in a file: what AnsiballZ unpacks and executes; the controller itself
    is left out: ansible-playbook took over ten minutes for these tasks on a loaded test
    machine).  Its JSON answer, or what went wrong."""
    argfile = LOGFILE + '.args.json'
    with open(argfile, 'w') as f:
        json.dump({'ANSIBLE_MODULE_ARGS': dict(args, _ansible_check_mode=False,
                                               _ansible_tmpdir=os.path.dirname(argfile))}, f)
    p = subprocess.run([sys.executable, '-m',
                        'ansible_collections.community.general.plugins.modules.' + mod,
                        argfile], capture_output=True, text=True, timeout=120)
    try:
        return json.loads(p.stdout)
    except ValueError:
        return {'failed': True, 'msg': 'no JSON answer (exit %d): %s' % (
            p.returncode, (p.stdout + p.stderr).strip()[-200:])}


for name, mod, args in TASKS:
    r = run_module(mod, args)
    rec = {'changed': r.get('changed'), 'failed': bool(r.get('failed'))}
    if r.get('failed'):
        rec['message'] = str(r.get('msg', ''))[:200]
        if 'rc' in r:
            rec['rc'] = r['rc']
    log.record(name, rec, state())
