#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0993-vgcreate-batch: a commit's writes go out as batches of durable (FUA) writes
# (dev/multi.c lvx_dev_write_durable_many), and a VG of more PVs than the areas it keeps
# in use (12 PVs: 8 areas in use, 4 switched to ignored, header only) is written in
# LVM2's order, except that the headers of the 4 empty areas switched to ignored go
# with the labels, after the commit point (meta/commit.c: one round of durable writes
# fewer), each in one write with its PV's label:
#   * vgcreate of 12 fresh PVs: LVM2 reads the VG (12 PVs, seqno 1, 8 of 12 areas in
#     use, every PV flagged used), vgck is clean; the writes are text and precommit
#     headers, then the 8 committed headers of the areas in use, then the 12 labels (4
#     of them with the header of the area switched off: label sector to header, 4 KiB),
#     and no separate device flush is issued (every write durable when done);
#   * a crash right after each of those writes (LVX_TEST_CRASH_AFTER_WRITE=k): lvx and
#     LVM2 both read the old state (12 orphan PVs, no VG) or both the new one;
#   * a failure of the first write, of the first committed header and of the last label
#     (LVX_TEST_FAIL_WRITE=k): exit 5 with a message, both tools read old or new.
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

# snap save|restore: the first 256 KiB of every device (label, area header, text)
snap() {
    "$PYTHON" - "$1" "$SCRATCH/snap/head" "${D[@]}" <<'PY'
import os, sys
mode, base, devs = sys.argv[1], sys.argv[2], sys.argv[3:]
for i, dev in enumerate(devs):
    fd = os.open(dev, os.O_RDWR if mode == "restore" else os.O_RDONLY)
    path = "%s.%d" % (base, i)
    if mode == "save":
        with open(path, "wb") as f:
            f.write(os.pread(fd, 256 << 10, 0))
    else:
        with open(path, "rb") as f:
            os.pwrite(fd, f.read(), 0)
        os.fsync(fd)
    os.close(fd)
PY
}

# state TOOL: the PVs counted by VG, PV count and seqno ("12 vgb 12 1": all in vgb,
# "12 0 0": twelve orphans)
state() {
    local -x ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"
    if [[ $1 == lvx ]]; then
        X pvs --noheadings -o vg_name,pv_count,vg_seqno 2>/dev/null
    else
        lvm2 pvs --noheadings -o vg_name,pv_count,vg_seqno 2>/dev/null
    fi | awk '{ $1 = $1; print }' | sort | uniq -c | awk '{ $1 = $1; print }' | paste -sd';'
}

OLD="$COUNT 0 0"
NEW="$COUNT vgb $COUNT 1"
# classify: "old", "new" or what each tool read
classify() {
    local x l
    x=$(state lvx)
    l=$(state lvm2)
    if [[ $x == "$l" && $x == "$OLD" ]]; then echo old
    elif [[ $x == "$l" && $x == "$NEW" ]]; then echo new
    else echo "lvx '$x' LVM2 '$l'"; fi
}

test_ok "pvcreate of $COUNT devices" X pvcreate -q "${D[@]}"
snap save
test_eq "before: no VG, no PV in one" "$(classify)" old

# ---- the clean run ----------------------------------------------------------------
LOG=$SCRATCH/io.log
rc=0
LVX_TEST_IO_LOG=$LOG X vgcreate vgb "${D[@]}" >"$SCRATCH/out" 2>"$SCRATCH/err" || rc=$?
test_eq "vgcreate of $COUNT PVs" "$rc" 0
test_eq "both tools read the new VG" "$(classify)" new
test_eq "LVM2: 8 of $COUNT areas in use, every PV flagged used" \
    "$(lvm2 vgs --noheadings -o vg_mda_count,vg_mda_used_count vgb 2>/dev/null | awk '{ $1 = $1; print }')|$(lvm2 pvs --noheadings -o pv_ext_vsn,pv_attr 2>/dev/null | awk '{ $1 = $1; print }' | sort -u)" \
    "$COUNT 8|2 a--"
lvm2 vgck vgb >"$SCRATCH/vgck" 2>&1
test_eq "LVM2 vgck is clean" "$?:$(grep -v 'Activation disabled' "$SCRATCH/vgck" | grep -c WARNING)" "0:0"
mapfile -t W < <(awk '$1 == "write" { print $3, $4 }' "$LOG")
# offsets in write order: text and precommit headers of the 8 areas in use (text past
# the 4 KiB header, header at 4096), then 8 committed headers, then 12 labels (512; M:
# 4096 bytes from 512, label and the header of an area switched off)
order=$(printf '%s\n' "${W[@]}" | awk '{ k = $1 == 512 ? ($2 == 4096 ? "M" : "L") : $1 == 4096 ? "H" : "T"; printf "%s", k }')
test_eq "writes: 8 texts, 8 precommits, 8 headers, $COUNT labels (4 with a header), in that order" \
    "$order" "TTTTTTTTHHHHHHHHHHHHHHHHLLLLLLLLMMMM"
test_eq "no separate device flush (every write durable when done)" \
    "$(grep -c '^flush ' "$LOG")" 0
NW=${#W[@]}

# ---- a crash after each write -------------------------------------------------------
bad=0
seq=""
for ((k = 1; k <= NW; k++)); do
    snap restore
    rc=0
    LVX_TEST_CRASH_AFTER_WRITE=$k X vgcreate vgb "${D[@]}" >"$SCRATCH/out" 2>&1 || rc=$?
    st=$(classify)
    if [[ $rc != 99 || ($st != old && $st != new) ]]; then
        diag "crash after write $k/$NW: exit $rc, state $st"
        bad=$((bad + 1))
    fi
    seq+=${st:0:1}
done
test_eq "a crash after each of the $NW writes: both tools read old or new" "$bad" 0
# old through the text and precommit batch (16 writes), new after the last write, and
# never old again once new
test_eq "old before the commit point, new from it on" \
    "$([[ $seq =~ ^o{16,}n+$ ]] && echo ordered || echo "$seq")" ordered

# ---- failures ---------------------------------------------------------------------------
for k in 1 17 "$NW"; do
    snap restore
    rc=0
    LVX_TEST_FAIL_WRITE=$k X vgcreate vgb "${D[@]}" >"$SCRATCH/out" 2>"$SCRATCH/err" || rc=$?
    st=$(classify)
    msg=$(grep -c -i 'fail\|error' "$SCRATCH/err")
    ok=0
    [[ $rc == 5 && $msg -gt 0 && ($st == old || $st == new) ]] || ok=1
    sanitizer_report "$SCRATCH/err" && ok=1
    _tap_result $ok "write $k/$NW fails: exit $rc, a message, both tools read one state ($st)"
    ((ok)) && _diag_file stderr "$SCRATCH/err"
done

snap restore
X pvremove -q -y "${D[@]}" >/dev/null 2>&1
done_testing
