#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0510-interop: what lvx writes, LVM2 reads, and the other way round.
#
# 1. A chain of lvx commands on four loop devices (d0 with two metadata areas, d1 and d3
#    with one, d2 with none): pvcreate x4, vgcreate, vgextend, pvchange --metadataignore y,
#    pvchange -x n, vgchange --addtag, vgchange --alloc, vgreduce, vgrename, vgchange -x n.
#    After each command: LVM2's `pvs` and `vgs --reportformat json --units b` (the fields
#    of tests/fixtures/lvm2/README.md) equal lvx's; LVM2's `vgck VG` exits 0 without any
#    warning; `pvck DEV` exits 0 for every PV; every metadata area is at the same
#    seqno with no precommit slot left set (tests/tools/mda_slots.py).
# 2. 50 commits alternating lvx / LVM2 on one VG (vgchange --addtag / --deltag): the seqno
#    goes up by exactly one per commit and both tools report the same after every step.
# 3. lvx vgremove and pvremove: LVM2 sees orphans, then no PV, as lvx does.
# Both tools use LVM2's lock directory (LVX_LOCK_DIR is left unset), so the VG names are
# unique to this run.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_loop
need_cmd lvm "$PYTHON"
need_lvx
plan_later
unset LVX_LOCK_DIR

D=()
for _ in 0 1 2 3; do D+=("$(make_loop 16M)"); done
d0=${D[0]} d1=${D[1]} d2=${D[2]} d3=${D[3]}
lvm_sandbox "${D[@]}"
DEVS=$(IFS=,; echo "${D[*]}")
MDA_SLOTS="$LVX_ROOT/tests/tools/mda_slots.py"
VG0="lvxio$$a"
VG1="lvxio$$b"
R=$SCRATCH/r
mkdir -p "$R"

PVF=pv_name,pv_uuid,vg_name,pv_fmt,dev_size,pv_size,pe_start,pv_pe_count,pv_pe_alloc_count,pv_mda_count,pv_mda_used_count,pv_mda_size,pv_mda_free,pv_ba_start,pv_ba_size,pv_ext_vsn,pv_attr,pv_allocatable,pv_tags
VGF=vg_name,vg_uuid,vg_attr,vg_fmt,vg_extent_size,vg_extent_count,vg_free_count,vg_size,vg_free,vg_seqno,pv_count,lv_count,vg_mda_count,vg_mda_used_count,vg_mda_copies,vg_mda_size,vg_mda_free,max_lv,max_pv,vg_allocation_policy,vg_tags

X() { LVM_SYSTEM_DIR="$SCRATCH/lvm" "$LVX" "$@" --devices "$DEVS"; }

# same_json PREFIX: exit 0 when PREFIX.lvx.{pvs,vgs} hold the same rows as
# PREFIX.lvm2.{pvs,vgs}; else print the differences (row by row, field by field).  Writes
# the VG seqno LVM2 reports (or "none") to PREFIX.seqno.
same_json() {
    "$PYTHON" - "$1" <<'PY'
import json, sys
p = sys.argv[1]
def rows(path):
    with open(path) as f:
        doc = json.load(f)
    return [(k, v) for rep in doc.get("report", []) for k, v in rep.items()]
bad = False
for what in ("pvs", "vgs"):
    a, b = rows("%s.lvx.%s" % (p, what)), rows("%s.lvm2.%s" % (p, what))
    if a == b:
        continue
    bad = True
    if [k for k, _ in a] != [k for k, _ in b]:
        print("%s: report sections differ: %s vs %s" % (what, [k for k, _ in a], [k for k, _ in b]))
        continue
    for (key, ra), (_, rb) in zip(a, b):
        if len(ra) != len(rb):
            print("%s: %d rows (lvx) vs %d rows (LVM2)" % (key, len(ra), len(rb)))
        for i, (x, y) in enumerate(zip(ra, rb)):
            for f in sorted(set(x) | set(y)):
                if x.get(f) != y.get(f):
                    print("%s row %d %s: lvx %r, LVM2 %r" % (key, i, f, x.get(f), y.get(f)))
vgs = [r for k, v in rows(p + ".lvm2.vgs") if k == "vg" for r in v]
with open(p + ".seqno", "w") as f:
    f.write("%s\n" % (vgs[0]["vg_seqno"] if len(vgs) == 1 else "none"))
sys.exit(1 if bad else 0)
PY
}

# compare_reports LABEL: lvx's and LVM2's pvs and vgs agree.  Returns 1 and prints why not.
compare_reports() {
    local p=$R/$1 rc bad=0 what
    local -x ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"
    echo none >"$p.seqno"
    for what in pvs vgs; do
        local fields=$PVF
        [[ $what == vgs ]] && fields=$VGF
        rc=0; X "$what" --reportformat json --units b -o "$fields" >"$p.lvx.$what" 2>"$p.lvx.$what.err" || rc=$?
        if [[ $rc != 0 ]] || sanitizer_report "$p.lvx.$what.err"; then
            echo "lvx $what: exit $rc: $(head -n 3 "$p.lvx.$what.err")"; bad=1
        fi
        rc=0; lvm2 "$what" --reportformat json --units b -o "$fields" >"$p.lvm2.$what" 2>"$p.lvm2.$what.err" || rc=$?
        if [[ $rc != 0 ]]; then
            echo "LVM2 $what: exit $rc: $(grep -v 'Activation disabled' "$p.lvm2.$what.err" | head -n 3)"; bad=1
        fi
    done
    [[ $bad == 0 ]] || return 1
    same_json "$p"
}

# vg_seqno LABEL: the VG seqno LVM2 reported in compare_reports LABEL.
vg_seqno() { cat "$R/$1.seqno"; }

# check_written LABEL VG: the full set of checks after an lvx command.
check_written() {
    local label=$1 vg=$2 msg rc d
    if msg=$(compare_reports "$label"); then
        _tap_result 0 "$label: lvx and LVM2 report the same pvs and vgs"
    else
        _tap_result 1 "$label: lvx and LVM2 report the same pvs and vgs"
        diag "$msg"
    fi
    if [[ $vg != - ]]; then
        rc=0
        lvm2 vgck "$vg" >"$R/vgck.out" 2>"$R/vgck.err" || rc=$?
        if [[ $rc == 0 ]] && ! grep -v 'Activation disabled' "$R/vgck.err" | grep -q .; then
            _tap_result 0 "$label: LVM2 vgck $vg: exit 0, no warning"
        else
            _tap_result 1 "$label: LVM2 vgck $vg: exit 0, no warning"
            diag "exit $rc" "$(grep -v 'Activation disabled' "$R/vgck.err")"
        fi
    fi
    local pvck_bad=""
    for d in "${PV_DEVS[@]}"; do
        rc=0
        lvm2 pvck "$d" >"$R/pvck.out" 2>&1 || rc=$?
        [[ $rc == 0 ]] || pvck_bad+="$d: exit $rc: $(grep -v 'Activation disabled' "$R/pvck.out" | head -n 5)"$'\n'
    done
    if [[ -z $pvck_bad ]]; then
        _tap_result 0 "$label: LVM2 pvck of every PV (${#PV_DEVS[@]}): exit 0"
    else
        _tap_result 1 "$label: LVM2 pvck of every PV (${#PV_DEVS[@]}): exit 0"
        diag "$pvck_bad"
    fi
    if msg=$("$PYTHON" "$MDA_SLOTS" check "${D[@]}" 2>&1); then
        _tap_result 0 "$label: every metadata area at one seqno, no precommit left"
    else
        _tap_result 1 "$label: every metadata area at one seqno, no precommit left"
        diag "$msg" "$("$PYTHON" "$MDA_SLOTS" show "${D[@]}")"
    fi
}

# lvx_step LABEL VG ARGS...: run `lvx ARGS...` (LVM2 instead if lvx fails, so the chain
# goes on), then check_written.
lvx_step() {
    local label=$1 vg=$2
    shift 2
    if test_ok "$label: lvx $*" X "$@"; then
        if sanitizer_report "$SCRATCH/.err"; then
            _tap_result 1 "$label: no sanitizer report"
            _diag_file stderr "$SCRATCH/.err"
        fi
    else
        lvm2 "$@" >/dev/null 2>&1 || diag "LVM2 $* failed too"
    fi
    check_written "$label" "$vg"
}

# ---------------------------------------------------------------- 1. lvx writes, LVM2 reads

PV_DEVS=("$d0")
lvx_step pvcreate - pvcreate --metadatacopies 2 "$d0"
PV_DEVS+=("$d1" "$d3")
lvx_step pvcreate-more - pvcreate "$d1" "$d3"
PV_DEVS+=("$d2")
lvx_step pvcreate-0mda - pvcreate --metadatacopies 0 "$d2"
lvx_step vgcreate "$VG0" vgcreate "$VG0" "$d0" "$d1" "$d2"
lvx_step vgextend "$VG0" vgextend "$VG0" "$d3"
lvx_step pvchange-mdaignore "$VG0" pvchange --metadataignore y "$d1"
lvx_step pvchange-x "$VG0" pvchange -x n "$d3"
lvx_step vgchange-addtag "$VG0" vgchange --addtag tag1 "$VG0"
lvx_step vgchange-alloc "$VG0" vgchange --alloc anywhere "$VG0"
lvx_step vgreduce "$VG0" vgreduce "$VG0" "$d3"
lvx_step vgrename "$VG1" vgrename "$VG0" "$VG1"
lvx_step vgchange-x "$VG1" vgchange -x n "$VG1"
lvx_step pvchange-mdaignore-n "$VG1" pvchange --metadataignore n "$d1"

# ---------------------------------------------------------------- 2. alternating commits

compare_reports alt0 >/dev/null || true
prev=$(vg_seqno alt0)
for ((i = 1; i <= 50; i++)); do
    case $((i % 4)) in
        1) tool=lvx; args=(vgchange --addtag "t$i" "$VG1") ;;
        2) tool=LVM2; args=(vgchange --addtag "u$i" "$VG1") ;;
        3) tool=lvx; args=(vgchange --deltag "u$((i - 1))" "$VG1") ;;
        0) tool=LVM2; args=(vgchange --deltag "t$((i - 3))" "$VG1") ;;
    esac
    rc=0
    if [[ $tool == lvx ]]; then
        X "${args[@]}" >"$R/alt.out" 2>"$R/alt.err" || rc=$?
    else
        lvm2 "${args[@]}" >"$R/alt.out" 2>"$R/alt.err" || rc=$?
    fi
    problems=""
    [[ $rc == 0 ]] || problems+="$tool ${args[*]}: exit $rc: $(grep -v 'Activation disabled' "$R/alt.err" | head -n 3)"$'\n'
    if ! msg=$(compare_reports "alt$i"); then
        problems+="$msg"$'\n'
    fi
    seq=$(vg_seqno "alt$i")
    if [[ $prev =~ ^[0-9]+$ && $seq != $((prev + 1)) ]]; then
        problems+="seqno $seq after $prev (expected $((prev + 1)))"$'\n'
    fi
    if [[ -z $problems ]]; then
        _tap_result 0 "commit $i by $tool (${args[*]:0:2}): seqno $prev -> $seq, tools agree"
    else
        _tap_result 1 "commit $i by $tool (${args[*]:0:2})"
        diag "$problems"
    fi
    prev=$seq
done
check_written alternating-end "$VG1"

# ---------------------------------------------------------------- 3. removal

lvx_step vgremove - vgremove "$VG1"
PV_DEVS=("$d0" "$d3")
lvx_step pvremove - pvremove "$d1" "$d2"

done_testing
