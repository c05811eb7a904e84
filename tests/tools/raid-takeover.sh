# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# tests/tools/raid-takeover.sh - sourced by the user-space takeover tests (t1001, t1002)
# after lib.sh, uspace-env.sh and raid-pvread.sh; needs VG, PYTHON.
#   nomismatch LV         lvx's lvchange --syncaction check: idle, 0 mismatches
#   imgs LV               "LV_rimage_N PV|" for each image, as LVM2 reads them
#   xor_rows FILE N CHUNK OUT   for each row of N chunks of FILE, the XOR of the chunks
nomismatch() {    # nomismatch LV: lvchange --syncaction check, 0 mismatches
    uspace_run_ok "lvchange --syncaction check $1" lvx lvchange --syncaction check "$VG/$1"
    test_eq "... no mismatch, idle" "$(field "$VG/$1" raid_sync_action,raid_mismatch_count)" "idle0"
}
imgs() {          # imgs LV: "LV_rimage_N PV|" for each image, as LVM2 reads them
    lvm2 lvs -a --noheadings -o lv_name,devices "$VG" 2>/dev/null | tr -d '[]' |
        awk -v l="$1_rimage_" 'index($1, l) == 1 { sub(/\(.*/, "", $2); printf "%s %s|", $1, $2 }'
}
# xor_rows FILE N CHUNK OUT: for each row of N chunks of FILE, the XOR of the chunks
xor_rows() {
    "$PYTHON" - "$@" <<'PY'
import sys
f, n, c, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
d = open(f, 'rb').read()
o = bytearray()
for r in range(len(d) // (n * c)):
    acc = 0
    for k in range(n):
        acc ^= int.from_bytes(d[(r * n + k) * c:(r * n + k + 1) * c], 'little')
    o += acc.to_bytes(c, 'little')
open(out, 'wb').write(bytes(o))
PY
}
