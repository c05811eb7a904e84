# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# tests/tools/crash_walk.sh - sourced after tests/lib.sh by the tests that walk a
# command's writes through the I/O seam's fault hooks (t0993, t1014, t1015, t1030): N loop
# devices seen by LVM2's sandbox and by lvx through --devices, the heads of the
# devices saved and put back between runs, and a crash after each write.
#
#   crash_begin N [CMD...]     skipped without loop devices, LVM2, python or CMD;
#                              plan_later; D[] (N devices of 16 MiB), DEVS (their
#                              --devices list), X (lvx over them), LVX_LOCK_DIR
#   heads save|restore|zero DEV...   the first 256 KiB of each device, kept in the
#                              scratch directory by position (zero: wiped)
#   pv_state TOOL              "COUNT VG PVS SEQNO;..." of `pvs` by lvx or lvm2
#   pv_report TOOL             `pvs -o $PV_FIELDS` in bytes by lvx or lvm2, sorted
#   crash_classify             old / new (both tools read $OLD / $NEW) or what each read
#   crash_walk NW CMD...       for each write k of NW: heads restore of D[], CMD with
#                              LVX_TEST_CRASH_AFTER_WRITE=k (exit 99 expected), then
#                              crash_classify; sets CRASH_BAD (runs that were not exit
#                              99 with old or new) and CRASH_SEQ (o/n per write)

crash_begin() {
    local n=$1
    shift
    need_loop
    need_cmd lvm "$PYTHON" "$@"
    need_lvx
    plan_later
    mapfile -t D < <(make_loops "$n" 16M)
    [[ ${#D[@]} == "$n" ]] || { _tap_result 1 "$n loop devices"; done_testing; }
    lvm_sandbox "${D[@]}"
    DEVS=$(IFS=,; echo "${D[*]}")
    mkdir -p "$SCRATCH/locks" "$SCRATCH/heads"
    export LVX_LOCK_DIR="$SCRATCH/locks"
}

X() { LVM_SYSTEM_DIR="$SCRATCH/lvm" "$LVX" "$@" --devices "$DEVS"; }

heads() {
    "$PYTHON" - "$1" "$SCRATCH/heads/head" "${@:2}" <<'PY'
import os, sys
mode, base, devs = sys.argv[1], sys.argv[2], sys.argv[3:]
for i, dev in enumerate(devs):
    fd = os.open(dev, os.O_RDONLY if mode == "save" else os.O_RDWR)
    path = "%s.%d" % (base, i)
    if mode == "save":
        with open(path, "wb") as f:
            f.write(os.pread(fd, 256 << 10, 0))
    else:
        if mode == "zero":
            data = bytes(256 << 10)
        else:
            with open(path, "rb") as f:
                data = f.read()
        os.pwrite(fd, data, 0)
        os.fsync(fd)
    os.close(fd)
PY
}

pv_state() {
    local -x ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"
    if [[ $1 == lvx ]]; then
        X pvs --noheadings -o vg_name,pv_count,vg_seqno 2>/dev/null
    else
        lvm2 pvs --noheadings -o vg_name,pv_count,vg_seqno 2>/dev/null
    fi | awk '{ $1 = $1; print }' | sort | uniq -c | awk '{ $1 = $1; print }' | paste -sd';'
}

pv_report() {
    local -x ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"
    if [[ $1 == lvx ]]; then
        X pvs --noheadings --units b --nosuffix -o "$PV_FIELDS" 2>/dev/null
    else
        lvm2 pvs --noheadings --units b --nosuffix -o "$PV_FIELDS" 2>/dev/null
    fi | awk '{ $1 = $1; print }' | sort
}

crash_classify() {
    local x l
    x=$(pv_state lvx)
    l=$(pv_state lvm2)
    if [[ $x == "$l" && $x == "$OLD" ]]; then echo old
    elif [[ $x == "$l" && $x == "$NEW" ]]; then echo new
    else echo "lvx '$x' LVM2 '$l'"; fi
}

crash_walk() {
    local nw=$1 k rc st
    shift
    CRASH_BAD=0
    CRASH_SEQ=""
    for ((k = 1; k <= nw; k++)); do
        heads restore "${D[@]}"
        rc=0
        LVX_TEST_CRASH_AFTER_WRITE=$k "$@" >"$SCRATCH/out" 2>&1 || rc=$?
        st=$(crash_classify)
        if [[ $rc != 99 || ($st != old && $st != new) ]]; then
            diag "crash after write $k/$nw: exit $rc, state $st"
            CRASH_BAD=$((CRASH_BAD + 1))
        fi
        CRASH_SEQ+=${st:0:1}
    done
}
