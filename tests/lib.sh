# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# tests/lib.sh - sourced by every tests/cli/t*.sh.  Provides:
#   TAP:       plan_later, test_ok, test_fail, test_eq, test_skip, diag, done_testing, skip_all;
#              for checks of your own: _tap_result 0|1 "description", _diag_file LABEL FILE
#   guards:    need_root, need_loop, need_cmd CMD..., need_lvx (each skips the whole test)
#   scratch:   $SCRATCH (private mktemp dir, removed on exit)
#   devices:   make_loop SIZE, attach_loop FILE, detach_loop DEV (only loops attached
#              here are detached on exit, also on failure or Ctrl-C)
#   fixtures:  fixture_images SCENARIO DIR, fixture_scenarios, fixture_vgs SCENARIO
#   LVM2:      lvm_sandbox DEV..., lvm2 ARGS... (the real LVM2 restricted to DEV...)
#   lvx:       lvx ARGS... (runs $LVX, default build-asan/lvx), sanitizer_report FILE
#   checks:    sha_devs DEV... (one checksum line per device, for "unchanged" checks)
#
# Tests run from any directory; $LVX_ROOT is the repository root.

LVX_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export LVX_ROOT
_abs_path() { case "$1" in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$LVX_ROOT/$1" ;; esac; }
LVX=$(_abs_path "${LVX:-build-asan/lvx}")
LVX_PLAIN=$(_abs_path "${LVX_PLAIN:-build/lvx}")
export LVX LVX_PLAIN
# Debian's python3 (the one install-deps.sh guarantees) starts fastest; any python3 works.
if [[ -z ${PYTHON:-} ]]; then
    if [[ -x /usr/bin/python3 ]]; then PYTHON=/usr/bin/python3; else PYTHON=python3; fi
fi
export PYTHON
# ASan: report leaks too, and make any finding fail loudly (exit 23 is below 128).
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

# ---------------------------------------------------------------- TAP

_T_NUM=0
_T_FAILED=0
_T_DONE=0

plan_later() { :; }   # the plan ("1..N") is printed by done_testing

diag() {
    local line l
    for line in "$@"; do
        while IFS= read -r l; do printf '# %s\n' "$l"; done <<<"$line"
    done
}

_tap_result() {  # _tap_result OK(0/1) DESCRIPTION
    _T_NUM=$((_T_NUM + 1))
    if [[ $1 == 0 ]]; then
        printf 'ok %d - %s\n' "$_T_NUM" "$2"
    else
        _T_FAILED=$((_T_FAILED + 1))
        printf 'not ok %d - %s\n' "$_T_NUM" "$2"
    fi
}

# Show the tail of a captured output file as TAP diagnostics.
_diag_file() {  # _diag_file LABEL FILE
    [[ -s $2 ]] || return 0
    diag "$1:"
    tail -n 25 "$2" | sed 's/^/#   /'
}

# test_ok "description" command...   passes when the command exits 0.
test_ok() {
    local desc=$1 rc=0
    shift
    "$@" >"$SCRATCH/.out" 2>"$SCRATCH/.err" || rc=$?
    _tap_result "$rc" "$desc"
    if [[ $rc != 0 ]]; then
        diag "command: $*" "exit status: $rc"
        _diag_file stdout "$SCRATCH/.out"
        _diag_file stderr "$SCRATCH/.err"
        return 1
    fi
    return 0
}

# test_fail "description" command...  passes when the command exits non-zero but did not
# crash (status 1..127: a signal or a sanitizer abort is never an expected failure).
test_fail() {
    local desc=$1 rc=0
    shift
    "$@" >"$SCRATCH/.out" 2>"$SCRATCH/.err" || rc=$?
    if [[ $rc -ge 1 && $rc -lt 128 ]] && ! sanitizer_report "$SCRATCH/.err"; then
        _tap_result 0 "$desc"
        return 0
    fi
    _tap_result 1 "$desc"
    diag "command: $*" "exit status: $rc (expected 1..127)"
    _diag_file stdout "$SCRATCH/.out"
    _diag_file stderr "$SCRATCH/.err"
    return 1
}

# test_eq "description" GOT WANT
test_eq() {
    if [[ "$2" == "$3" ]]; then
        _tap_result 0 "$1"
        return 0
    fi
    _tap_result 1 "$1"
    diag "got:  $2" "want: $3"
    return 1
}

# test_skip "description" "reason"
test_skip() {
    _T_NUM=$((_T_NUM + 1))
    printf 'ok %d - %s # SKIP %s\n' "$_T_NUM" "$1" "$2"
}

done_testing() {
    _T_DONE=1
    printf '1..%d\n' "$_T_NUM"
    if [[ $_T_FAILED -gt 0 ]]; then
        diag "failed $_T_FAILED of $_T_NUM"
        exit 1
    fi
    exit 0
}

skip_all() {
    _T_DONE=1
    printf '1..0 # SKIP %s\n' "$1"
    exit 0
}

# ---------------------------------------------------------------- guards

need_root() { [[ $(id -u) -eq 0 ]] || skip_all "needs root"; }

need_cmd() {
    local c
    for c in "$@"; do
        command -v "$c" >/dev/null 2>&1 || skip_all "$c not installed"
    done
}

need_loop() {
    need_root
    need_cmd losetup
    [[ -e /dev/loop-control ]] || skip_all "no /dev/loop-control"
    losetup -f >/dev/null 2>&1 || skip_all "no free loop device"
}

need_lvx() {
    [[ -x $LVX ]] || skip_all "$LVX not built"
}

# ---------------------------------------------------------------- scratch + cleanup

SCRATCH=$(mktemp -d /tmp/lvx-test.XXXXXX)
export SCRATCH
# lvx's device index (README "Large VGs") of this test stays in the scratch directory
export LVX_RUN_DIR="$SCRATCH/run"
: >"$SCRATCH/.loops"

cleanup() {
    local dev
    if [[ -f $SCRATCH/.loops ]]; then
        while read -r dev; do
            [[ -n $dev ]] && losetup -d "$dev" 2>/dev/null
        done <"$SCRATCH/.loops"
    fi
    rm -rf "$SCRATCH"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------- loop devices

# attach_loop FILE -> prints /dev/loopN; remembered for detaching on exit.
attach_loop() {
    local dev
    dev=$(losetup -f --show "$1") || return 1
    printf '%s\n' "$dev" >>"$SCRATCH/.loops"
    printf '%s\n' "$dev"
}

# make_loop SIZE (as for truncate: 64M, 1G...) -> prints /dev/loopN backed by a sparse file.
make_loop() {
    local n file
    n=$(wc -l <"$SCRATCH/.loops")
    file="$SCRATCH/loop$n.img"
    while [[ -e $file ]]; do n=$((n + 1)); file="$SCRATCH/loop$n.img"; done
    truncate -s "$1" "$file" || return 1
    attach_loop "$file"
}

# detach_loop DEV: detach one of our loops early (and forget it).
detach_loop() {
    losetup -d "$1" && sed -i "\|^$1\$|d" "$SCRATCH/.loops"
}

# ---------------------------------------------------------------- fixtures

fixture_scenarios() { "$PYTHON" "$LVX_ROOT/tests/tools/fixture.py" scenarios; }
fixture_vgs() { "$PYTHON" "$LVX_ROOT/tests/tools/fixture.py" vgs "$1"; }

# fixture_images SCENARIO DIR: rebuild the full images (DIR/diskN.img), verify their
# sha256, print the absolute paths one per line in manifest order.
fixture_images() {
    "$PYTHON" "$LVX_ROOT/tests/tools/fixture.py" build "$1" "$2"
}

# ---------------------------------------------------------------- LVM2 oracle

# lvm_sandbox DEV...: private LVM2 configuration that sees only DEV... and never
# activates, writes backups or archives.
lvm_sandbox() {
    local dev accept=""
    mkdir -p "$SCRATCH/lvm"
    for dev in "$@"; do accept+="\"a|^${dev}\$|\", "; done
    cat >"$SCRATCH/lvm/lvm.conf" <<CONF
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

lvm2() {
    LVM_SYSTEM_DIR="$SCRATCH/lvm" LVM_SUPPRESS_FD_WARNINGS=1 lvm "$@"
}

# ---------------------------------------------------------------- lvx

lvx() {
    "$LVX" "$@"
}

# sanitizer_report FILE: true when FILE (a captured stderr) holds a sanitizer finding.
sanitizer_report() {
    grep -Eq 'ERROR: (Address|Leak|Memory|Thread|Undefined)Sanitizer|runtime error:|SUMMARY: [A-Za-z]*Sanitizer' "$1"
}

# ---------------------------------------------------------------- checks

# sha_devs DEV...: "sha256  dev" per device (whole content).
sha_devs() {
    local dev
    for dev in "$@"; do
        printf '%s  %s\n' "$(sha256sum <"$dev" | cut -d' ' -f1)" "$dev"
    done
}
