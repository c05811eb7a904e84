# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# tests/tools/lv_twin.sh - sourced by the LV command tests (t06xx) after tests/lib.sh.
# Two "twin" VGs with the same name and geometry on two sets of loop devices, each
# seen by its own private LVM2 sandbox: side A is changed by lvx, side B by LVM2
# (`lvm lvcreate -an -Zn ...`).  After each step the sides are compared through
# LVM2's own reports with device names replaced by D0, D1, ... (position in the set).
#
#   twin_setup N SIZE VG [vgcreate-args...]  makes N+N loops, PVs and the two VGs;
#                                            sets TWIN_A[], TWIN_B[], TWIN_VG
#   twin_begin N SIZE VG [vgcreate-args...]  a twin test's start: skipped without loop
#                                            devices, LVM2 or lvx; plan_later; twin_setup
#                                            (a failed setup is a failed check, the end)
#   lvm_a / lvm_b ARGS...                    LVM2 restricted to side A / side B
#   lvx_a ARGS...                            lvx restricted to side A (--devices)
#   twin_lvs SIDE / twin_pvs SIDE            normalized reports of a side
#   twin_meta SIDE                           the side's metadata text, ids/times aside
#   twin_same                                0 when both sides report the same
#   twin_diff                                prints the differences (for diag)
#   twin_step DESC CMD ARGS...               lvx on A, LVM2 on B: output, exit code and
#                                            metadata compared (two checks)
#   twin_on SIDE lvx|lvm ARGS...             one tool on one side, "%N" its device N

_twin_sandbox() {  # _twin_sandbox DIR DEV...
    local dir=$1 dev accept=""
    shift
    mkdir -p "$dir"
    for dev in "$@"; do accept+="\"a|^${dev}\$|\", "; done
    cat >"$dir/lvm.conf" <<CONF
global {
    activation = 0
}
devices {
    global_filter = [ ${accept}"r|.*|" ]
    obtain_device_list_from_udev = 0
    scan = [ "/dev" ]
    use_devicesfile = 0
    hints = "none"
}
backup {
    backup = 0
    archive = 0
}
CONF
}

lvm_a() { LVM_SYSTEM_DIR="$SCRATCH/twin_a" LVM_SUPPRESS_FD_WARNINGS=1 lvm "$@"; }
lvm_b() { LVM_SYSTEM_DIR="$SCRATCH/twin_b" LVM_SUPPRESS_FD_WARNINGS=1 lvm "$@"; }
lvx_a() { LVM_SYSTEM_DIR="$SCRATCH/twin_a" "$LVX" "$@" --devices "$(IFS=,; echo "${TWIN_A[*]}")"; }

# Does lvx have a command?  (`lvx help` lists them.)
lvx_has_command() { "$LVX" help 2>&1 | grep -qE "^  $1 "; }

twin_setup() {
    local n=$1 size=$2 vg=$3 i
    shift 3
    TWIN_VG=$vg
    TWIN_A=()
    TWIN_B=()
    for ((i = 0; i < n; i++)); do TWIN_A+=("$(make_loop "$size")") || return 1; done
    for ((i = 0; i < n; i++)); do TWIN_B+=("$(make_loop "$size")") || return 1; done
    _twin_sandbox "$SCRATCH/twin_a" "${TWIN_A[@]}"
    _twin_sandbox "$SCRATCH/twin_b" "${TWIN_B[@]}"
    if lvx_has_command vgcreate; then
        lvx_a vgcreate "$vg" "$@" "${TWIN_A[@]}" >/dev/null 2>&1 || return 1
    else
        lvm_a vgcreate "$vg" "$@" "${TWIN_A[@]}" >/dev/null 2>&1 || return 1
    fi
    lvm_b vgcreate "$vg" "$@" "${TWIN_B[@]}" >/dev/null 2>&1 || return 1
}

twin_begin() {
    need_loop
    need_cmd lvm
    need_lvx
    plan_later
    twin_setup "$@" || { _tap_result 1 "set up twin VGs"; done_testing; }
}

# sed script replacing the side's device names by D<index> (longest names first).
_twin_sed() {
    local side=$1 i script="" devs
    if [[ $side == a ]]; then devs=("${TWIN_A[@]}"); else devs=("${TWIN_B[@]}"); fi
    for ((i = ${#devs[@]} - 1; i >= 0; i--)); do script+="s|${devs[$i]}\\b|D$i|g;"; done
    printf '%s' "$script"
}

twin_lvs() {  # twin_lvs a|b
    "lvm_$1" lvs -a --segments --reportformat json \
        -o lv_name,seg_start_pe,seg_pe_ranges,stripes,stripe_size "$TWIN_VG" 2>/dev/null |
        sed "$(_twin_sed "$1")"
}

twin_pvs() {  # twin_pvs a|b
    "lvm_$1" pvs --segments --noheadings --separator : \
        -o pv_name,pvseg_start,pvseg_size,lv_name 2>/dev/null | tr -d " " |
        sed "$(_twin_sed "$1")" | sort
}

# twin_meta a|b: the side's metadata text (LVM2's vgcfgbackup) without ids, times,
# hosts, seqno and device hints.
twin_meta() {
    "lvm_$1" vgcfgbackup -f "$SCRATCH/twin_meta_$1.vg" "$TWIN_VG" >/dev/null 2>&1
    sed -n "/^$TWIN_VG {/,\$p" "$SCRATCH/twin_meta_$1.vg" |
        sed -E '/^\t*(id|creation_time|creation_host|seqno|device|dev_size) = /d'
}

twin_same() {
    [[ "$(twin_lvs a)" == "$(twin_lvs b)" && "$(twin_pvs a)" == "$(twin_pvs b)" ]]
}

twin_diff() {
    diff <(twin_lvs a; twin_pvs a) <(twin_lvs b; twin_pvs b) | head -40
}

# twin_lvx_args ARGS...: ARGS with "%N" replaced by side A's device N (PV lists).
twin_args() {  # twin_args a|b ARGS...
    local side=$1 a out=() i devs
    shift
    if [[ $side == a ]]; then devs=("${TWIN_A[@]}"); else devs=("${TWIN_B[@]}"); fi
    for a in "$@"; do
        for ((i = 0; i < ${#devs[@]}; i++)); do a=${a//%$i/${devs[$i]}}; done
        out+=("$a")
    done
    printf '%s\0' "${out[@]}"
}

lvx_b() { LVM_SYSTEM_DIR="$SCRATCH/twin_b" "$LVX" "$@" --devices "$(IFS=,; echo "${TWIN_B[*]}")"; }

# twin_on SIDE TOOL ARGS...: TOOL (lvx or lvm) on SIDE (lvx_a, lvm_b...), "%N" in ARGS the
# side's device N.
twin_on() {
    local side=$1 tool=$2 aa
    shift 2
    mapfile -d '' aa < <(twin_args "$side" "$@")
    "${tool}_$side" "${aa[@]}"
}

# twin_resync: make side B's metadata a copy of side A's (PV ids and device hints
# mapped), so that the next step starts from the same layout on both sides.
twin_resync() {
    local file="$SCRATCH/twin_sync.vg" i ua ub
    lvm_a vgcfgbackup -f "$file" "$TWIN_VG" >/dev/null 2>&1 || return 1
    for ((i = 0; i < ${#TWIN_A[@]}; i++)); do
        ua=$(lvm_a pvs --noheadings -o pv_uuid "${TWIN_A[$i]}" 2>/dev/null | tr -d ' ')
        ub=$(lvm_b pvs --noheadings -o pv_uuid "${TWIN_B[$i]}" 2>/dev/null | tr -d ' ')
        [[ -n $ua && -n $ub ]] || return 1
        sed -i "s|\"$ua\"|\"$ub\"|; s|\"${TWIN_A[$i]}\"|\"${TWIN_B[$i]}\"|" "$file"
    done
    lvm_b vgcfgrestore -f "$file" "$TWIN_VG" >/dev/null 2>&1
}

# twin_out SIDE FILE: a command's output without the sandbox's noise and LVM2's "--help"
# hint, device names as D<index>.
twin_out() {
    sandbox_noise <"$2" | grep -v "' for more information.$" | sed "$(_twin_sed "$1")"
}

# twin_step DESC CMD ARGS...: lvx on side A, LVM2 on side B ("%N": the side's device N);
# the exit codes and outputs, then the metadata texts, compared (two checks).
twin_step() {
    local desc=$1 rca=0 rcb=0 aa bb
    shift
    mapfile -d '' aa < <(twin_args a "$@")
    mapfile -d '' bb < <(twin_args b "$@")
    lvx_a "${aa[@]}" >"$SCRATCH/twin_a.out" 2>&1 || rca=$?
    lvm_b "${bb[@]}" >"$SCRATCH/twin_b.out" 2>&1 || rcb=$?
    test_eq "$desc: lvx's exit code and output equal LVM2's" \
        "$rca $(twin_out a "$SCRATCH/twin_a.out")" "$rcb $(twin_out b "$SCRATCH/twin_b.out")"
    test_eq "$desc: metadata equal" "$(twin_meta a)" "$(twin_meta b)"
}
