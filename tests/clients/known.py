# SPDX-License-Identifier: GPL-2.0-or-later
"""tests/clients/known.py - the differences between LVM2 and lvx that the client tests
accept, each with its reason (compare.py's verdicts "activation" and "known").

ACTIVATION: operations whose results may differ only in what depends on activation: LVM2
runs with activation off (there is no device-mapper on the test host), lvx activates
through its daemon.  mask_activation() blanks those fields: the state and open bits of
lv_attr (5th and 6th characters) and lv_active."""
import copy
import json
import re

ACT = 'LVM2 cannot activate here (no device-mapper), lvx activates through its daemon'

# client -> {operation: reason}; '*': every operation of the client
ACTIVATION = {
    'blockdev': {'*': ACT},
    'dbusd-json': {'*': ACT},
    'dbusd-text': {'*': ACT},
    'dbusd-shell': {'*': ACT},
    'ansible': {'*': ACT},
}

NOT_IN_LVX = 'not in lvx: '
# LVM2 refuses lvcreate -s with activation off ("Can't create snapshot without using
# device-mapper kernel driver"), lvx makes the snapshot; the clients remove it at once
# (an operation of its own, "... snap (cleanup)": nothing to remove for LVM2) so that
# the operations after compare the same state.
SNAP = 'LVM2 cannot make a snapshot here (activation off), lvx does (removed by the cleanup)'
# LVM2 refuses an active thin pool here (no device-mapper); lvx's user-space backend
# serves thin pools (daemon/target_thin.c), so lvx makes it; the clients remove it at
# once ("... (cleanup)", as the snapshot) so that the operations after compare the same
# state (the pool's lvol0_pmspare goes with the last pool, as in LVM2).
THIN_POOL = 'LVM2 cannot make a thin pool here (no device-mapper), lvx does (removed by the cleanup)'
KNOWN = {
    'blockdev': {
        'is_tech_avail VDO': NOT_IN_LVX + '`lvm segtypes` of lvx lists no vdo (LVM2: kvdo module missing)',
        'lvsnapshotcreate': SNAP,
        'lvremove snap (cleanup)': SNAP,
        'thpoolcreate': THIN_POOL,
        'lvremove pool (cleanup)': THIN_POOL,
    },
}
DBUSD = {
    'supports_vdo': NOT_IN_LVX + '`lvm segtypes` of lvx lists no vdo',
    'vg_lv_snapshot': SNAP,
    'lv_remove snap (cleanup)': SNAP,
    'vg_lv_create_linear pool': THIN_POOL,
    'lv_remove thin1 (cleanup)': THIN_POOL,
}
KNOWN['ansible'] = {
    'lvol snapshot': SNAP,
    'lvol remove snap (cleanup)': SNAP,
    'lvol thin pool': THIN_POOL,
    'lvol remove pool (cleanup)': THIN_POOL,
}
KNOWN['dbusd-text'] = dict(DBUSD)
KNOWN['dbusd-json'] = dict(DBUSD)
# The shell mode's oracle is LVM2 in JSON mode (fork and exec): LVM2's own shell cannot
# start in this sandbox (with activation off it prints a warning before its first prompt,
# which lvm_shell_proxy takes as a failure; with activation on it fails without
# device-mapper).  The data model must be the same in both modes.
KNOWN['dbusd-shell'] = dict(KNOWN['dbusd-json'])
# Records of the lvx run that the LVM2 run (JSON mode) has not: they must be true.
LVX_ONLY = {
    'dbusd-shell': {
        'lvm shell started (set_execution)': 'lvm_shell_proxy must get lvx\'s shell going',
        'exit shell': 'the shell must end on "exit"'},
}

# Exit statuses that a client maps: lvm_shell_proxy gives 0 for success and 1 for any
# failure (it reads the log's status, not the exit code), so in the shell mode a failure
# is compared with the oracle's failure (LVM2 in JSON mode: its own exit code).
RC_FAILED_ONLY = ('dbusd-shell',)


def rc_failed_only(v):
    """v with every nonzero "rc" replaced by "failed"."""
    if isinstance(v, dict):
        return {k: ('failed' if k == 'rc' and x != 0 else rc_failed_only(x))
                for k, x in v.items()}
    return v


# an lv_attr value wherever it stands (lvm2-dbusd also keeps it inside tuples)
LV_ATTR = re.compile(r'^[-a-zA-Z][-rw][-a-zA-Z][-a-zA-Z][-a-zA-Z?][-a-zA-Z?][-a-zA-Z][-a-zA-Z]'
                     r'[-a-zA-Z][-k]$')


def _mask(v):
    if isinstance(v, dict):
        r = {}
        for k, x in v.items():
            if k in ('lv_active', 'active'):
                x = '?'
            r[k] = _mask(x)
        return r
    if isinstance(v, list):
        return [_mask(x) for x in v]
    if isinstance(v, str) and LV_ATTR.match(v):
        return v[:4] + '??' + v[6:]
    return v


# Operations whose "changed" depends on activation: lvol activates the LV it is given
# unless active=false, so with LVM2 (LVs stay inactive here) it changes something where
# with lvx (the LV is already active) it has nothing to do, and the other way round for
# a deactivation.
ACTIVATION_CHANGED = {
    'ansible': ('lvol lv1 32m again (idempotent)', 'lvol deactivate lv1',
                'lvol deactivate lv1 again'),
}


def mask_activation(rec, client=None):
    r = _mask(copy.deepcopy(rec))
    if rec.get('op') in ACTIVATION_CHANGED.get(client, ()) and isinstance(r.get('result'), dict):
        r['result']['changed'] = '?'
    return r
