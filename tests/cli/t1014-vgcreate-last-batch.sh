#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1014-vgcreate-last-batch: vgcreate of 12 PVs (8 areas in use, 4 empty areas switched
# to ignored) with the commit's rounds cut down (meta/commit.c, meta/scan.c):
#   * the devices vgcreate names are opened once, read-write, by the scan (the commit
#     reopened each of them read-write before);
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

need_loop
need_cmd lvm "$PYTHON"
need_lvx
plan_later

COUNT=12
mapfile -t D < <(make_loops "$COUNT" 16M)
[[ ${#D[@]} == "$COUNT" ]] || { _tap_result 1 "$COUNT loop devices"; done_testing; }
lvm_sandbox "${D[@]}"
DEVS=$(IFS=,; echo "${D[*]}")
mkdir -p "$SCRATCH/locks" "$SCRATCH/snap"
export LVX_LOCK_DIR="$SCRATCH/locks"
X() { LVM_SYSTEM_DIR="$SCRATCH/lvm" "$LVX" "$@" --devices "$DEVS"; }

# py MODE ARGS...: save|restore the first 256 KiB of every device; gap DEV (bytes
# 1024..4095 as hex digest); mark DEV (a pattern in sectors 3 and 6)
py() {
    "$PYTHON" - "$SCRATCH/snap/head" "$@" <<'PY'
import hashlib, os, sys
base, mode, devs = sys.argv[1], sys.argv[2], sys.argv[3:]
for i, dev in enumerate(devs):
    fd = os.open(dev, os.O_RDWR if mode in ("restore", "mark") else os.O_RDONLY)
    path = "%s.%d" % (base, i)
    if mode == "save":
        with open(path, "wb") as f:
            f.write(os.pread(fd, 256 << 10, 0))
    elif mode == "restore":
        with open(path, "rb") as f:
            os.pwrite(fd, f.read(), 0)
        os.fsync(fd)
    elif mode == "mark":
        os.pwrite(fd, b"t1014 gap bytes\n" * 4, 1536)
        os.pwrite(fd, b"t1014 gap bytes\n" * 4, 3072)
        os.fsync(fd)
    else:
        print(hashlib.sha256(os.pread(fd, 3072, 1024)).hexdigest()[:16])
    os.close(fd)
PY
}

state() {
    local -x ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"
    if [[ $1 == lvx ]]; then
        X pvs --noheadings -o vg_name,pv_count,vg_seqno 2>/dev/null
    else
        lvm2 pvs --noheadings -o vg_name,pv_count,vg_seqno 2>/dev/null
    fi | awk '{ $1 = $1; print }' | sort | uniq -c | awk '{ $1 = $1; print }' | paste -sd';'
}
OLD="$COUNT 0 0"
NEW="$COUNT vgc $COUNT 1"
classify() {
    local x l
    x=$(state lvx)
    l=$(state lvm2)
    if [[ $x == "$l" && $x == "$OLD" ]]; then echo old
    elif [[ $x == "$l" && $x == "$NEW" ]]; then echo new
    else echo "lvx '$x' LVM2 '$l'"; fi
}

test_ok "pvcreate of $COUNT devices" X pvcreate -q "${D[@]}"
py mark "${D[8]}" "${D[9]}"          # two of the PVs whose areas are switched off
GAP_MARKED=$(py gap "${D[8]}" "${D[9]}" | paste -sd,)
GAP_ZERO=$(py gap "${D[10]}" "${D[11]}" | paste -sd,)
py save "${D[@]}"
test_eq "before: no VG" "$(classify)" old

LOG=$SCRATCH/io.log
rc=0
LVX_TEST_IO_LOG=$LOG X vgcreate vgc "${D[@]}" >"$SCRATCH/out" 2>"$SCRATCH/err" || rc=$?
test_eq "vgcreate of $COUNT PVs" "$rc" 0
test_eq "both tools read the new VG" "$(classify)" new
opens=$(for d in "${D[@]}"; do grep -c "^open $d\$" "$LOG"; done | sort | uniq -c | awk '{ $1 = $1; print }')
test_eq "each device opened once (read-write by the scan, not again by the commit)" \
    "$opens" "$COUNT 1"
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

bad=0
seq=""
for ((k = 1; k <= NW; k++)); do
    py restore "${D[@]}"
    rc=0
    LVX_TEST_CRASH_AFTER_WRITE=$k X vgcreate vgc "${D[@]}" >"$SCRATCH/out" 2>&1 || rc=$?
    st=$(classify)
    if [[ $rc != 99 || ($st != old && $st != new) ]]; then
        diag "crash after write $k/$NW: exit $rc, state $st"
        bad=$((bad + 1))
    fi
    seq+=${st:0:1}
done
test_eq "a crash after each of the $NW writes: both tools read old or new" "$bad" 0
test_eq "old through the first batch, new from the first committed header on" \
    "$([[ $seq =~ ^o{16}n+$ ]] && echo ordered || echo "$seq")" ordered

# the first header of the last batch fails; the labels after it are written
py restore "${D[@]}"
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

py restore "${D[@]}"
X pvremove -q -y "${D[@]}" >/dev/null 2>&1
done_testing
