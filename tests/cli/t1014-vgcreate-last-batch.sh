#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1014-vgcreate-last-batch: vgcreate of 12 PVs (8 areas in use, 4 empty areas switched
# to ignored) with the commit's rounds cut down (meta/commit.c, meta/scan.c):
#   * the devices vgcreate names are opened twice: read-only by the scan, read-write by
#     the commit (t1027: nothing opens them read-write before the command writes);
#   * the headers of the 4 areas switched off go after the commit point, in the batch
#     of the labels; a PV whose bytes between label sector and area header were zero
#     gets label and header as one 4 KiB write, the two PVs with other bytes there get
#     two writes and keep those bytes;
#   * LVM2 reads the VG (12 PVs, 8 areas in use, all flagged used) and vgck is clean;
#   * a crash after each write: lvx and LVM2 both read the old state or both the new;
#     old through the text and precommit batch, new from the first committed header;
#   * a failure of the first header written with the labels (the new VG committed, the
#     labels after it written): exit 5 with a message, both tools read the new VG.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

# shellcheck source=tests/tools/crash_walk.sh
. "$LVX_ROOT/tests/tools/crash_walk.sh"

COUNT=12
crash_begin "$COUNT"
OLD="$COUNT 0 0"
NEW="$COUNT vgc $COUNT 1"
classify() { crash_classify; }

# py mark|gap DEV...: a pattern in sectors 3 and 6 / bytes 1024..4095 as a digest
py() {
    "$PYTHON" - "$@" <<'PY'
import hashlib, os, sys
mode, devs = sys.argv[1], sys.argv[2:]
for dev in devs:
    fd = os.open(dev, os.O_RDWR if mode == "mark" else os.O_RDONLY)
    if mode == "mark":
        os.pwrite(fd, b"t1014 gap bytes\n" * 4, 1536)
        os.pwrite(fd, b"t1014 gap bytes\n" * 4, 3072)
        os.fsync(fd)
    else:
        print(hashlib.sha256(os.pread(fd, 3072, 1024)).hexdigest()[:16])
    os.close(fd)
PY
}

test_ok "pvcreate of $COUNT devices" X pvcreate -q "${D[@]}"
py mark "${D[8]}" "${D[9]}"          # two of the PVs whose areas are switched off
GAP_MARKED=$(py gap "${D[8]}" "${D[9]}" | paste -sd,)
GAP_ZERO=$(py gap "${D[10]}" "${D[11]}" | paste -sd,)
heads save "${D[@]}"
test_eq "before: no VG" "$(classify)" old

LOG=$SCRATCH/io.log
rc=0
LVX_TEST_IO_LOG=$LOG X vgcreate vgc "${D[@]}" >"$SCRATCH/out" 2>"$SCRATCH/err" || rc=$?
test_eq "vgcreate of $COUNT PVs" "$rc" 0
test_eq "both tools read the new VG" "$(classify)" new
opens=$(for d in "${D[@]}"; do grep -c "^open $d\$" "$LOG"; done | sort | uniq -c | awk '{ $1 = $1; print }')
test_eq "each device opened twice (read-only by the scan, read-write by the commit)" \
    "$opens" "$COUNT 2"
mapfile -t W < <(awk '$1 == "write" { print $3, $4 }' "$LOG")
# T text, H header (4096), L label (512 bytes at 512), M label + gap + header (4096 at 512)
order=$(printf '%s\n' "${W[@]}" | awk '{ k = $1 == 512 ? ($2 == 4096 ? "M" : "L") : $1 == 4096 ? "H" : "T"; printf "%s", k }')
test_eq "writes: 8 texts, 8 precommits, 8 headers, then 2 headers and 12 labels (2 with their header)" \
    "$order" "TTTTTTTTHHHHHHHHHHHHHHHHHHLLLLLLLLLLMM"
test_eq "the bytes between label and header: kept where they were not zero, zero elsewhere" \
    "$(py gap "${D[8]}" "${D[9]}" | paste -sd,)|$(py gap "${D[10]}" "${D[11]}" | paste -sd,)" \
    "$GAP_MARKED|$GAP_ZERO"
test_eq "LVM2: 8 of $COUNT areas in use, every PV flagged used" \
    "$(lvm2 vgs --noheadings -o vg_mda_count,vg_mda_used_count vgc 2>/dev/null | awk '{ $1 = $1; print }')|$(lvm2 pvs --noheadings -o pv_ext_vsn,pv_attr 2>/dev/null | awk '{ $1 = $1; print }' | sort -u)" \
    "$COUNT 8|2 a--"
lvm2 vgck vgc >"$SCRATCH/vgck" 2>&1
test_eq "LVM2 vgck is clean" "$?:$(grep -v 'Activation disabled' "$SCRATCH/vgck" | grep -c WARNING)" "0:0"
NW=${#W[@]}

crash_walk "$NW" X vgcreate vgc "${D[@]}"
test_eq "a crash after each of the $NW writes: both tools read old or new" "$CRASH_BAD" 0
test_eq "old through the first batch, new from the first committed header on" \
    "$([[ $CRASH_SEQ =~ ^o{16}n+$ ]] && echo ordered || echo "$CRASH_SEQ")" ordered

# the first header of the last batch fails; the labels after it are written
heads restore "${D[@]}"
rc=0
LVX_TEST_FAIL_WRITE=25 X vgcreate vgc "${D[@]}" >"$SCRATCH/out" 2>"$SCRATCH/err" || rc=$?
ok=0
[[ $rc == 5 ]] && grep -q "committed but" "$SCRATCH/err" || ok=1
sanitizer_report "$SCRATCH/err" && ok=1
_tap_result $ok "a failed header of the last batch: exit 5 ($rc), the commit reported done but incomplete"
((ok)) && _diag_file stderr "$SCRATCH/err"
test_eq "... both tools read the new VG" "$(classify)" new
test_eq "... every PV in it (LVM2)" \
    "$(lvm2 pvs --noheadings -o pv_ext_vsn,pv_attr 2>/dev/null | awk '{ $1 = $1; print }' | sort -u)" "2 a--"

heads restore "${D[@]}"
X pvremove -q -y "${D[@]}" >/dev/null 2>&1
done_testing
