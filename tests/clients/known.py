# SPDX-License-Identifier: GPL-2.0-or-later
"""tests/clients/known.py - the differences between LVM2 and lvx that the client tests
accept, each with its reason (compare.py's verdicts "activation" and "known").

ACTIVATION: operations whose results may differ only in what depends on activation: LVM2
runs with activation off (there is no device-mapper on the test host), lvx activates
through its daemon.  mask_activation() blanks those fields: the state and open bits of
lv_attr (5th and 6th characters) and lv_active."""
import copy

ACT = 'LVM2 cannot activate here (no device-mapper), lvx activates through its daemon'

# client -> {operation: reason}; '*': every operation of the client
ACTIVATION = {
    'blockdev': {'*': ACT},
}

NOT_IN_LVX = 'not in lvx: '
PENDING = 'pending merge: '
KNOWN = {
    'blockdev': {
        'is_tech_avail VDO': NOT_IN_LVX + '`lvm segtypes` of lvx lists no vdo (LVM2: kvdo module missing)',
        'pvmove': NOT_IN_LVX + 'no pvmove command (LVM2 itself cannot move here without device-mapper)',
        'lvsnapshotcreate': NOT_IN_LVX + 'lvcreate -s (snapshots: another branch)',
        'thpoolcreate': NOT_IN_LVX + 'thin pools (lvcreate -T)',
        'pvscan': PENDING + 'pvscan is another branch',
    },
}


def _mask(v):
    if isinstance(v, dict):
        r = {}
        for k, x in v.items():
            if k in ('attr', 'lv_attr') and isinstance(x, str) and len(x) >= 6:
                x = x[:4] + '??' + x[6:]
            elif k in ('lv_active', 'active'):
                x = '?'
            r[k] = _mask(x)
        return r
    if isinstance(v, list):
        return [_mask(x) for x in v]
    return v


def mask_activation(rec):
    return _mask(copy.deepcopy(rec))
