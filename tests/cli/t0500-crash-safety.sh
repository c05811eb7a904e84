#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0500-crash-safety: every write of the metadata-changing commands is a crash point.
#
# One chain of commands runs on four loop devices (d0 with two metadata areas, d1 and d3
# with one, d2 with none, so the commit phases span devices and areas):
#   pvcreate --metadatacopies 2 d0; (setup: pvcreate d1, d2 with 0 areas, d3)
#   vgcreate vg0 d0 d1 d2; vgextend vg0 d3; vgchange --addtag t1 vg0;
#   pvchange --metadataignore y d1; pvchange -x n d3; vgreduce vg0 d3;
#   vgrename vg0 vg1; vgchange -x n vg1; vgremove vg1
# For each step: the devices' metadata regions (first and last MiB) are saved, the
# command runs once with LVX_TEST_IO_LOG to count its device writes W and to get the
# "new" reference reports, then for every k in 1..W:
#   crash: restore "before", run with LVX_TEST_CRASH_AFTER_WRITE=k (exit 99 expected);
#          `pvs` and `vgs --reportformat json` of lvx AND of LVM2 must all succeed and all
#          show the old state or all the new state (seqno included);
#          then `lvx vgck --updatemetadata VG` must leave every area at one seqno with no
#          precommit slot set (tests/tools/mda_slots.py) and LVM2's `vgck VG` clean.
#   fail:  restore "before", run with LVX_TEST_FAIL_WRITE=k: non-zero exit with a
#          message, no sanitizer report, and again old or new state in both tools.
#          (lvx's reports here are the plain build's, $LVX_PLAIN: a failed write k leaves
#          what a crash after write k-1 left, which the sanitized reports of the crash
#          loop read; the failing command itself runs sanitized.)
# The per-area report fields (pv/vg_mda_count, _used_count, _size, _free) are left out of
# the old/new comparison: they describe each area's own header (the copy it holds, its
# ignored flag; LVM2 leaves out an area still empty or at an older seqno),
# and after a crash inside the commit phase areas legitimately differ until the next
# write; the repair check covers them.  pvcreate and vgcreate make random UUIDs, so
# their runs are compared with the UUIDs masked.
# vgrename is special: areas committed under the new name and areas still holding the old
# name are two VGs with one UUID to LVM2 2.03.16 (it prints internal errors), so crash
# points strictly inside its commit phase are TODO (a format limitation, LVM2 has it too).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_loop
need_cmd lvm dd cmp "$PYTHON"
need_lvx
plan_later

SIZE_MB=16
D=()
for _ in 0 1 2 3; do D+=("$(make_loop ${SIZE_MB}M)"); done
d0=${D[0]} d1=${D[1]} d2=${D[2]} d3=${D[3]}
lvm_sandbox "${D[@]}"
DEVS=$(IFS=,; echo "${D[*]}")
mkdir -p "$SCRATCH/locks" "$SCRATCH/snap" "$SCRATCH/ref" "$SCRATCH/run"
export LVX_LOCK_DIR="$SCRATCH/locks"
MDA_SLOTS="$LVX_ROOT/tests/tools/mda_slots.py"

PVF=pv_name,pv_uuid,vg_name,pv_fmt,dev_size,pv_size,pe_start,pv_pe_count,pv_pe_alloc_count,pv_ba_start,pv_ba_size,pv_ext_vsn,pv_attr,pv_allocatable,pv_tags
VGF=vg_name,vg_uuid,vg_attr,vg_fmt,vg_extent_size,vg_extent_count,vg_free_count,vg_size,vg_free,vg_seqno,pv_count,lv_count,vg_mda_copies,max_lv,max_pv,vg_allocation_policy,vg_tags
MASK_UUIDS=0   # set by step for commands that make new UUIDs (each run makes others)
STATE=         # set by classify
# sanitizer_report's pattern, for one grep over several files
SAN_RE='ERROR: (Address|Leak|Memory|Thread|Undefined)Sanitizer|runtime error:|SUMMARY: [A-Za-z]*Sanitizer'

CRASH_POINTS=0

# lvx restricted to our devices, with the sandbox's lvm.conf (no backup/archive files).
X() { LVM_SYSTEM_DIR="$SCRATCH/lvm" "$LVX" "$@" --devices "$DEVS"; }

# ---------------------------------------------------------------- device snapshots

# snap_save NAME / snap_restore NAME: the first 256 KiB of every device and of its last
# MiB (label, both metadata area headers and the part of their circular buffers this
# chain of a dozen commits can reach; the data area is never written), in one process.
_snap() {
    "$PYTHON" - "$1" "$SCRATCH/snap/$2" "${D[@]}" <<'PY'
import os, sys
mode, base, devs = sys.argv[1], sys.argv[2], sys.argv[3:]
MIB = 1 << 20
SPAN = 256 << 10
for i, dev in enumerate(devs):
    fd = os.open(dev, os.O_RDWR if mode == "restore" else os.O_RDONLY)
    size = os.lseek(fd, 0, os.SEEK_END)
    for part, off in (("head", 0), ("tail", size - MIB)):
        path = "%s.%d.%s" % (base, i, part)
        if mode == "save":
            with open(path, "wb") as f:
                f.write(os.pread(fd, SPAN, off))
        else:
            with open(path, "rb") as f:
                os.pwrite(fd, f.read(), off)
    if mode == "restore":
        os.fsync(fd)
    os.close(fd)
PY
}
snap_save() { _snap save "$1"; }
snap_restore() { _snap restore "$1"; }

# ---------------------------------------------------------------- reports

# reports PREFIX [LVX_BINARY]: the four JSON reports into PREFIX.{lvx,lvm2}.{pvs,vgs}
# (lvx's by LVX_BINARY, default $LVX); prints problems (non-zero exit, sanitizer finding)
# and returns 1 when there are any.
reports() {
    local p=$1 bad=0 rc
    local -x ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"
    local LVX=${2:-$LVX}
    rc=0; X pvs --reportformat json --units b -o "$PVF" >"$p.lvx.pvs" 2>"$p.lvx.pvs.err" || rc=$?
    [[ $rc == 0 ]] || { echo "lvx pvs exit $rc: $(head -n 3 "$p.lvx.pvs.err")"; bad=1; }
    rc=0; X vgs --reportformat json --units b -o "$VGF" >"$p.lvx.vgs" 2>"$p.lvx.vgs.err" || rc=$?
    [[ $rc == 0 ]] || { echo "lvx vgs exit $rc: $(head -n 3 "$p.lvx.vgs.err")"; bad=1; }
    rc=0; lvm2 pvs --reportformat json --units b -o "$PVF" >"$p.lvm2.pvs" 2>"$p.lvm2.pvs.err" || rc=$?
    [[ $rc == 0 ]] || { echo "LVM2 pvs exit $rc: $(grep -v 'Activation disabled' "$p.lvm2.pvs.err" | head -n 3)"; bad=1; }
    rc=0; lvm2 vgs --reportformat json --units b -o "$VGF" >"$p.lvm2.vgs" 2>"$p.lvm2.vgs.err" || rc=$?
    [[ $rc == 0 ]] || { echo "LVM2 vgs exit $rc: $(grep -v 'Activation disabled' "$p.lvm2.vgs.err" | head -n 3)"; bad=1; }
    if grep -Eq "$SAN_RE" "$p".lvx.*.err; then
        echo "sanitizer report in $(grep -El "$SAN_RE" "$p".lvx.*.err | tr '\n' ' ')"
        bad=1
    fi
    if [[ $MASK_UUIDS == 1 ]]; then
        sed -i -E 's/"(pv|vg)_uuid":"[^"]*"/"\1_uuid":"(masked)"/g' "$p".lvx.pvs "$p".lvx.vgs \
            "$p".lvm2.pvs "$p".lvm2.vgs
    fi
    return $bad
}

# slurp VAR FILE: FILE's whole text into VAR (no process started)
slurp() { local -n _s=$1; _s=; IFS= read -r -d '' _s <"$2" || true; }

# classify PREFIX OLD NEW: sets STATE to "old", "new", "old+new" (nothing changed in the
# compared fields) or "mixed" after comparing all four reports with both references
# (compared in the shell: no cmp per file, no subshell; 174 runs of it).
classify() {
    local f o=1 n=1 a b c
    for f in lvx.pvs lvx.vgs lvm2.pvs lvm2.vgs; do
        slurp a "$1.$f"; slurp b "$2.$f"; slurp c "$3.$f"
        [[ $a == "$b" ]] || o=0
        [[ $a == "$c" ]] || n=0
    done
    if [[ $o == 1 && $n == 1 ]]; then STATE=old+new
    elif [[ $o == 1 ]]; then STATE=old
    elif [[ $n == 1 ]]; then STATE=new
    else STATE=mixed
    fi
}

# explain_mix PREFIX OLD NEW: which reports match which reference, with a short diff.
explain_mix() {
    local f
    for f in lvx.pvs lvx.vgs lvm2.pvs lvm2.vgs; do
        if cmp -s "$1.$f" "$2.$f"; then echo "$f: old"
        elif cmp -s "$1.$f" "$3.$f"; then echo "$f: new"
        else
            echo "$f: neither (diff: < new reference, > this run):"
            diff "$3.$f" "$1.$f" | head -n 12
        fi
    done
    grep -hv 'Activation disabled' "$1".lvm2.*.err | sort -u | head -n 6
    grep -h . "$1".lvx.*.err | sort -u | head -n 6
    "$PYTHON" "$MDA_SLOTS" show "${D[@]}"
}

# repair VG: lvx vgck --updatemetadata VG, then the areas must agree and LVM2's vgck must be
# clean.  Prints problems; returns 1 when there are any.
repair() {
    local vg=$1 r=$SCRATCH/run/repair bad=0 rc=0
    if [[ $vg != - ]]; then
        ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" X vgck --updatemetadata "$vg" >"$r.out" 2>"$r.err" || rc=$?
        if [[ $rc != 0 ]] || sanitizer_report "$r.err"; then
            echo "lvx vgck --updatemetadata $vg: exit $rc: $(head -n 5 "$r.err")"
            bad=1
        fi
        rc=0
        lvm2 vgck "$vg" >"$r.out" 2>"$r.err" || rc=$?
        if [[ $rc != 0 ]] || grep -vqE 'Activation disabled|^$' "$r.err"; then
            echo "LVM2 vgck $vg after repair: exit $rc:"
            grep -v 'Activation disabled' "$r.err" | head -n 6
            bad=1
        fi
    fi
    local novg=()
    [[ $vg == - ]] && novg=(--no-vg)
    if ! "$PYTHON" "$MDA_SLOTS" check "${novg[@]}" "${D[@]}" >"$r.slots" 2>&1; then
        echo "metadata areas after repair:"
        "$PYTHON" "$MDA_SLOTS" show "${D[@]}"
        cat "$r.slots"
        bad=1
    fi
    return $bad
}

# ---------------------------------------------------------------- one step

# step NAME VG_BEFORE VG_AFTER ARGS...: crash and failure tests of `lvx ARGS...`, leaving
# the devices in the state after a clean run.  VG_* is "-" when there is no VG.
step() {
    local name=$1 vgold=$2 vgnew=$3
    shift 3
    local ref=$SCRATCH/ref/$name run=$SCRATCH/run/$name log=$SCRATCH/run/$name.iolog
    local rc=0 w k state problems msg todo
    MASK_UUIDS=0
    [[ $name == pvcreate || $name == vgcreate ]] && MASK_UUIDS=1

    snap_save "$name.before"
    if ! problems=$(reports "$ref.old"); then
        _tap_result 1 "$name: reports before the command"
        diag "$problems"
    fi
    rm -f "$log"
    LVX_TEST_IO_LOG="$log" X "$@" >"$run.out" 2>"$run.err" || rc=$?
    if [[ $rc != 0 ]] || sanitizer_report "$run.err"; then
        _tap_result 1 "$name: clean run of lvx $*"
        diag "exit status $rc"
        _diag_file stderr "$run.err"
        # keep the chain going with LVM2 so the later steps still run
        lvm2 "$@" >/dev/null 2>&1 || diag "LVM2 $* failed too"
        return 1
    fi
    w=$(grep -c '^write ' "$log" || true)
    _tap_result 0 "$name: clean run of lvx $* ($w device writes)"
    if ! problems=$(reports "$ref.new"); then
        _tap_result 1 "$name: reports after the command"
        diag "$problems"
    fi
    snap_save "$name.after"
    # T0500_STEPS="vgcreate vgreduce" limits the crash/failure loops to those steps
    if [[ -n ${T0500_STEPS:-} && " $T0500_STEPS " != *" $name "* ]]; then
        return 0
    fi

    for ((k = 1; k <= w; k++)); do
        todo=""
        snap_restore "$name.before"
        rc=0
        LVX_TEST_CRASH_AFTER_WRITE=$k X "$@" >"$run.out" 2>"$run.err" || rc=$?
        CRASH_POINTS=$((CRASH_POINTS + 1))
        problems=""
        [[ $rc == 99 ]] || problems+="exit status $rc, expected 99 (crash hook)"$'\n'
        state=mixed
        if msg=$(reports "$run.k"); then
            classify "$run.k" "$ref.old" "$ref.new"
            state=$STATE
            if [[ $state == mixed ]]; then
                problems+="state is neither old nor new:"$'\n'$(explain_mix "$run.k" "$ref.old" "$ref.new")$'\n'
                [[ $name == vgrename && $problems == "state is neither"* ]] && todo=" # TODO two names for one VG UUID mid-commit (format limitation)"
            fi
        else
            problems+="$msg"$'\n'
        fi
        local vg=$vgold
        [[ $state == new ]] && vg=$vgnew
        if [[ $state != mixed ]] && ! msg=$(repair "$vg"); then
            problems+="$msg"$'\n'
        fi
        if [[ -z $problems ]]; then
            _tap_result 0 "$name: crash after write $k/$w: both tools read the $state state; repaired"
        elif [[ -n $todo ]]; then
            _T_NUM=$((_T_NUM + 1))      # a known limitation: reported, not counted as failure
            printf 'not ok %d - %s: crash after write %d/%d%s\n' "$_T_NUM" "$name" "$k" "$w" "$todo"
            diag "$problems"
        else
            _tap_result 1 "$name: crash after write $k/$w"
            diag "$problems"
        fi
    done

    for ((k = 1; k <= w; k++)); do
        snap_restore "$name.before"
        rc=0
        LVX_TEST_FAIL_WRITE=$k X "$@" >"$run.out" 2>"$run.err" || rc=$?
        problems=""
        if [[ $rc -lt 1 || $rc -gt 127 || $rc == 99 ]]; then
            problems+="exit status $rc, expected a failure (1..127)"$'\n'
        fi
        if sanitizer_report "$run.err"; then
            problems+="sanitizer report:"$'\n'$(grep -m 5 -E 'ERROR|SUMMARY|runtime error' "$run.err")$'\n'
        elif [[ $rc != 0 ]] && ! grep -Eqi 'error|fail|cannot|could not|unable' "$run.err"; then
            problems+="no clear error message on stderr: $(head -n 3 "$run.err")"$'\n'
        fi
        todo=""
        if msg=$(reports "$run.f" "$LVX_PLAIN"); then
            classify "$run.f" "$ref.old" "$ref.new"
            state=$STATE
            if [[ $state == mixed ]]; then
                problems+="state is neither old nor new:"$'\n'$(explain_mix "$run.f" "$ref.old" "$ref.new")$'\n'
                [[ $name == vgrename && $problems == "state is neither"* ]] && todo=" # TODO two names for one VG UUID mid-commit (format limitation)"
            fi
        else
            problems+="$msg"$'\n'
        fi
        if [[ -z $problems ]]; then
            _tap_result 0 "$name: write $k/$w fails: exit $rc, both tools read the $state state"
        elif [[ -n $todo ]]; then
            _T_NUM=$((_T_NUM + 1))      # a known limitation: reported, not counted as failure
            printf 'not ok %d - %s: write %d/%d fails%s\n' "$_T_NUM" "$name" "$k" "$w" "$todo"
            diag "$problems"
        else
            _tap_result 1 "$name: write $k/$w fails"
            diag "$problems"
            _diag_file stderr "$run.err"
        fi
    done
    snap_restore "$name.after"
    return 0
}

# setup ARGS...: a chain step that is not crash-tested (lvx, else LVM2).
setup() {
    local rc=0
    X "$@" >"$SCRATCH/run/setup.out" 2>"$SCRATCH/run/setup.err" || rc=$?
    if [[ $rc != 0 ]]; then
        _tap_result 1 "setup: lvx $*"
        _diag_file stderr "$SCRATCH/run/setup.err"
        lvm2 "$@" >/dev/null 2>&1 || diag "LVM2 $* failed too"
    fi
}

# ---------------------------------------------------------------- the chain

step pvcreate - - pvcreate --metadatacopies 2 "$d0"
setup pvcreate "$d1"
setup pvcreate --metadatacopies 0 "$d2"
setup pvcreate "$d3"
step vgcreate - vg0 vgcreate vg0 "$d0" "$d1" "$d2"
step vgextend vg0 vg0 vgextend vg0 "$d3"
step vgchange-addtag vg0 vg0 vgchange --addtag t1 vg0
step pvchange-mdaignore vg0 vg0 pvchange --metadataignore y "$d1"
step pvchange-x vg0 vg0 pvchange -x n "$d3"
step vgreduce vg0 vg0 vgreduce vg0 "$d3"
step vgrename vg0 vg1 vgrename vg0 vg1
step vgchange-x vg1 vg1 vgchange -x n vg1
step vgremove vg1 - vgremove vg1

diag "crash points covered: $CRASH_POINTS"
done_testing
