# SPDX-License-Identifier: GPL-2.0-or-later
"""tests/clients/ansible.py DEV0 DEV1 DEV2 VG LOG - Ansible's community.general.lvg and
lvol modules (Debian's ansible package) run locally as a playbook (connection local,
ignore_errors), each task followed by a probe of the state LVM2 reads (common.py).  The
modules run vgcreate, lvcreate, lvs, ... by name: PATH decides whose.  Each record: the
task's changed/failed (and rc), then the state."""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from common import Log  # noqa: E402

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
    ('lvol thin pool 16m', 'lvol', {'vg': VG, 'thinpool': 'pool', 'size': '16m'}),
    ('lvol remove lv4 (force)', 'lvol', {'vg': VG, 'lv': 'lv4', 'state': 'absent', 'force': True}),
    ('lvol remove lv4 again (absent)', 'lvol', {'vg': VG, 'lv': 'lv4', 'state': 'absent', 'force': True}),
    ('lvg reduce VG to D0 D1', 'lvg', {'vg': VG, 'pvs': [D0, D1]}),
    ('lvg pvresize', 'lvg', {'vg': VG, 'pvs': [D0, D1], 'pvresize': True}),
    ('lvol in a missing VG (fails)', 'lvol', {'vg': VG + 'x', 'lv': 'l', 'size': '8m'}),
    ('lvg remove VG with LVs, no force (fails)', 'lvg', {'vg': VG, 'state': 'absent'}),
    ('lvg remove VG (force)', 'lvg', {'vg': VG, 'state': 'absent', 'force': True}),
    ('lvg remove VG again (absent)', 'lvg', {'vg': VG, 'state': 'absent'}),
]

probe = '%s %s state' % (sys.executable, os.path.join(HERE, 'common.py'))
tasks = []
for name, mod, args in TASKS:
    tasks.append({'name': name, 'community.general.' + mod: args, 'ignore_errors': True})
    tasks.append({'name': 'state after ' + name, 'raw': probe})   # raw: no module upload
play = [{'hosts': 'localhost', 'connection': 'local', 'gather_facts': False, 'tasks': tasks}]
pbfile = LOGFILE + '.playbook.json'    # YAML is a superset of JSON
with open(pbfile, 'w') as f:
    json.dump(play, f, indent=1)
tmp = os.path.dirname(os.path.abspath(LOGFILE))
env = dict(os.environ, ANSIBLE_STDOUT_CALLBACK='json', ANSIBLE_LOAD_CALLBACK_PLUGINS='1',
           ANSIBLE_PIPELINING='1', ANSIBLE_REMOTE_TEMP=tmp + '/ansible-remote',
           ANSIBLE_RETRY_FILES_ENABLED='0',
           ANSIBLE_LOCALHOST_WARNING='0', ANSIBLE_INVENTORY_UNPARSED_WARNING='0',
           ANSIBLE_PYTHON_INTERPRETER=sys.executable, ANSIBLE_NOCOLOR='1',
           ANSIBLE_LOCAL_TEMP=tmp + '/ansible-tmp', ANSIBLE_HOME=tmp + '/ansible-home')
p = subprocess.run(['ansible-playbook', '-i', 'localhost,', pbfile], env=env,
                   capture_output=True, text=True, timeout=600)
try:
    out = json.loads(p.stdout)
except ValueError:
    log.record('ansible-playbook ran', {'rc': p.returncode, 'message': (p.stdout + p.stderr)[-300:]})
    sys.exit(0)
results = {}
for t in out['plays'][0]['tasks']:
    results[t['task']['name']] = t['hosts'].get('localhost', {})
for name, _, _ in TASKS:
    r = results.get(name, {})
    st = results.get('state after ' + name, {}).get('stdout')
    rec = {'changed': r.get('changed'), 'failed': bool(r.get('failed'))}
    if r.get('failed'):
        rec['message'] = str(r.get('msg', ''))[:200]
        if 'rc' in r:
            rec['rc'] = r['rc']
    log.record(name, rec, json.loads(st) if st else None)
