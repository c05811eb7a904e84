# SPDX-License-Identifier: GPL-2.0-or-later
"""tests/clients/compare.py CLIENT[:MODE[/LVM2MODE]] - run one client script (tests/clients/
CLIENT.py, given MODE as its last argument; LVM2MODE for the LVM2 run when LVM2 cannot
run in MODE here) once against the real LVM2 and once against lvx, on the same devices, and
compare operation by operation: the client's result and the state LVM2 reads after it.
Prints TAP (one test per operation) and writes the table (operation, LVM2 result, lvx
result, match) to $CLIENTS_OUT/CLIENT.table.

Environment (set by the tests/cli/t15xx-clients-*.sh wrappers):
  CLIENTS_DEVLIST   the devices, comma-separated (wiped before each run)
  CLIENTS_VG        the VG name the client uses
  LVM2_BIN, LVX_BIN directories whose `lvm` (and LVM2 command names) are LVM2 / lvx
  LVM2_SYSDIR       LVM2's sandbox (activation off; also the state reader's)
  LVX_SYSDIR        lvx's configuration (activation through its daemon)
  CLIENTS_OUT       where the logs and the table go
  CLIENTS_REPLAY=1  run nothing: judge the logs already in CLIENTS_OUT again
Verdicts: "match"; "activation" (equal once the fields that depend on activation,
listed in ACTIVATION, are masked: LVM2 cannot activate here, lvx can); "known: WHY"
(a listed difference, TAP TODO); "MISMATCH" (a failure)."""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from known import (KNOWN, ACTIVATION, LVX_ONLY, RC_FAILED_ONLY, mask_activation,
                   rc_failed_only)  # noqa: E402


def read_log(log):
    with open(log) as f:
        return [json.loads(line) for line in f if line.strip()]


def run_client(client, label, tool, args):
    out = os.environ['CLIENTS_OUT']
    if os.environ.get('CLIENTS_REPLAY'):
        return 0, read_log(os.path.join(out, '%s.%s.jsonl' % (label, tool)))
    devs = os.environ['CLIENTS_DEVLIST'].split(',')
    for d in devs:       # a fresh start: no label, no metadata area left by the other run
        with open(d, 'r+b') as f:
            f.write(b'\0' * (4 * 1024 * 1024))
            f.flush()
            os.fsync(f.fileno())
    bindir = os.environ['LVM2_BIN' if tool == 'lvm2' else 'LVX_BIN']
    env = dict(os.environ)
    env['PATH'] = bindir + ':' + env['PATH']
    env['LVM_BINARY'] = os.path.join(bindir, 'lvm')      # lvm2-dbusd's way to name it
    env['LVM_SYSTEM_DIR'] = os.environ['LVM2_SYSDIR' if tool == 'lvm2' else 'LVX_SYSDIR']
    env['STATE_LVM'] = os.path.join(os.environ['LVM2_BIN'], 'lvm')
    env['STATE_SYSTEM_DIR'] = os.environ['LVM2_SYSDIR']
    log = os.path.join(out, '%s.%s.jsonl' % (label, tool))
    errf = os.path.join(out, '%s.%s.stderr' % (label, tool))
    with open(errf, 'w') as ef:
        try:
            rc = subprocess.run([sys.executable, os.path.join(HERE, client + '.py')] + devs +
                                [os.environ['CLIENTS_VG'], log] + args, env=env, stdout=ef,
                                stderr=subprocess.STDOUT, timeout=600).returncode
        except subprocess.TimeoutExpired:
            # a failing "run ... completed" line; the operations done so far compared
            rc = 'timed out after 600 s'
            print('# %s run of %s timed out (see %s)' % (tool, label, errf))
    return rc, read_log(log) if os.path.exists(log) else []


def res(rec):
    """A result in a few characters, for the table."""
    r = rec['result']
    if r is True:
        return 'ok'
    if isinstance(r, dict):
        for k, fmt in (('error', 'err %s'), ('rc', 'rc %s'), ('exception', '%s'),
                       ('failed', 'failed=%s'), ('refresh failed', 'refresh!')):
            if k in r:
                return fmt % (r.get('exit', r[k]) if k == 'error' else r[k])
    if r == 'not reached':
        return r
    return 'value' if r is not None else '-'


def short(v):
    s = json.dumps(v, sort_keys=True)
    return s if len(s) <= 70 else s[:67] + '...'


def strip_messages(v):
    """Error messages are each tool's own words: compared are the exit status and the
    client's error code, not the text (shown in the table's details)."""
    if isinstance(v, dict):
        return {k: strip_messages(x) for k, x in v.items() if k != 'message'}
    if isinstance(v, list):
        return [strip_messages(x) for x in v]
    return v


def verdict(client, opname, a, b):
    """a, b: the LVM2 and lvx records of one op."""
    known = KNOWN.get(client, {})
    a, b = strip_messages(a), strip_messages(b)
    if client in RC_FAILED_ONLY:
        a, b = rc_failed_only(a), rc_failed_only(b)
    if a == b:
        return 'match', None
    act = ACTIVATION.get(client, {})
    why = act.get(opname, act.get('*'))
    if why and mask_activation(a, client) == mask_activation(b, client):
        return 'activation', why
    for key, why in known.items():
        if opname.startswith(key):
            return 'known', why
    return 'MISMATCH', None


def main():
    client, _, mode = sys.argv[1].partition(':')
    mode, _, lvm2_mode = mode.partition('/')
    args = [mode] if mode else []
    label = client + ('-' + mode if mode else '')
    out = os.environ['CLIENTS_OUT']
    oracle = os.path.join(out, '%s-%s.lvm2.jsonl' % (client, lvm2_mode))
    if lvm2_mode and os.path.exists(oracle):     # that LVM2 run is done already
        rc_l, lrows = 0, read_log(oracle)
    else:
        rc_l, lrows = run_client(client, label, 'lvm2', [lvm2_mode] if lvm2_mode else args)
    rc_x, xrows = run_client(client, label, 'lvx', args)
    client = label
    n = 0
    failed = 0
    table = ['%-52s | %-10s | %-10s | %s' % ('operation', 'LVM2', 'lvx', 'match')]
    detail = []
    for tool, rc in (('LVM2', rc_l), ('lvx', rc_x)):
        n += 1
        ok = rc == 0
        failed += not ok
        print('%s %d - %s run of %s completed%s' % ('ok' if ok else 'not ok', n, tool, client,
                                                    '' if ok else ' (%s)' % rc))
    xby = {r['op']: r for r in xrows}
    counts = {}
    for a in lrows:
        name = a['op']
        b = xby.pop(name, None)
        n += 1
        if b is None:
            b = {'result': 'not reached', 'state': None}
        v, why = verdict(client, name, a, b)
        counts[v] = counts.get(v, 0) + 1
        table.append('%-52s | %-10s | %-10s | %s' % (name[:52], res(a), res(b),
                                                  v + (': ' + why if why else '')))
        if v == 'MISMATCH':
            failed += 1
            print('not ok %d - %s: %s' % (n, client, name))
        elif v == 'known':
            print('not ok %d - %s: %s # TODO %s' % (n, client, name, why))
        else:
            print('ok %d - %s: %s%s' % (n, client, name, ' (%s)' % v if v != 'match' else ''))
        if v != 'match':
            for part in ('result', 'state'):
                if a.get(part) != b.get(part):
                    detail.append('%s [%s]\n  LVM2: %s\n  lvx:  %s' % (
                        name, part, json.dumps(a.get(part), sort_keys=True),
                        json.dumps(b.get(part), sort_keys=True)))
                    if v == 'MISMATCH':
                        print('#   %s LVM2: %s' % (part, short(a.get(part))))
                        print('#   %s lvx:  %s' % (part, short(b.get(part))))
    for name, b in xby.items():      # the lvx run's own checks (LVX_ONLY): True wanted
        n += 1
        why = LVX_ONLY.get(client, {}).get(name)
        if why is not None and b['result'] is True:
            v = 'match'
            print('ok %d - %s: %s' % (n, client, name))
        else:
            v = 'MISMATCH'
            failed += 1
            print('not ok %d - %s: %s (only in the lvx run%s)' % (
                n, client, name, ': ' + why if why else ''))
            print('#   result lvx: %s' % short(b.get('result')))
        counts[v] = counts.get(v, 0) + 1
        table.append('%-52s | %-10s | %-10s | %s' % (name[:52], '(n/a)', res(b), v))
    summary = '%s: %d operations, %s' % (client, len(lrows) + len(xby), ', '.join(
        '%s %d' % (k, counts[k]) for k in ('match', 'activation', 'known', 'MISMATCH') if k in counts))
    table.append(summary)
    with open(os.path.join(out, label + '.table'), 'w') as f:
        f.write('\n'.join(table) + '\n\nDifferences:\n' + '\n'.join(detail) + '\n')
    for line in table:
        print('# ' + line)
    print('1..%d' % n)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
