# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# tests/lib.sh - sourced by every tests/cli/t*.sh.  Provides:
#   TAP:       plan_later, test_ok, test_fail, test_eq, test_skip, diag, done_testing, skip_all;
#              for checks of your own: _tap_result 0|1 "description", _diag_file LABEL FILE
#   guards:    need_root, need_loop, need_cmd CMD..., need_lvx (each skips the whole test)
#   own_mount_ns "$@": the test in a mount namespace of its own (tests that mount and
#              check a filesystem after umount: see there why)
#   scratch:   $SCRATCH (private mktemp dir, removed on exit)
#   devices:   make_loop SIZE, make_loops N SIZE, attach_loop FILE [OPT...], attach_loop_from N FILE,
#              detach_loop DEV, loops_of FILE, loop_holds DEV FILE, our_loops; a device
#              is known by its backing file: at exit (also on failure or Ctrl-C) the
#              test's lvx daemon is stopped, its VGs removed, then only the devices still
#              attached to its files are detached (see "scratch + cleanup")
#   fixtures:  fixture_images SCENARIO DIR, fixture_scenarios, fixture_vgs SCENARIO
#   LVM2:      lvm_sandbox DEV..., lvm2 ARGS... (the real LVM2 restricted to DEV...),
#              both ARGS... (lvx and LVM2 side by side: $SCRATCH/{x,l}.{out,err,rc}),
#              same_as_lvm2 ARGS... (TAP: lvx's stdout and exit equal LVM2's);
#              LVM_SYSTEM_DIR=$SCRATCH/lvm is exported: lvx and LVM2 see only the
#              test's loop devices even before lvm_sandbox
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
# The daemons of the tests read /dev/fuse: whether the kernel offers FUSE over io_uring
# is the fuse module's enable_uring parameter, one for the machine, which t0906 and
# t0933 turn on while they run (they unset this); a test beside them must not switch
# transport (a worker killed on io_uring aborts its connection: EIO, not a restart).
export LVX_FUSE_URING="${LVX_FUSE_URING:-0}"

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
    # awk ends every line (a log whose last line has no newline would otherwise swallow
    # the next "ok N" line into this comment: TAP then counts a test missing)
    tail -n 25 "$2" | awk '{ print "#   " $0 }'
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

# _loops_lost: diagnostics for devices of this test detached by someone else meanwhile
# (a busy machine: failures after that point are not lvx's).
_loops_lost() {
    local dev file
    [[ -f $SCRATCH/.loops ]] || return 0
    while read -r dev file; do
        [[ -n $file ]] || continue
        loop_holds "$dev" "$file" ||
            diag "$dev is no longer attached to $file: detached by someone else during the test"
    done <"$SCRATCH/.loops"
}

done_testing() {
    _T_DONE=1
    _loops_lost
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

# ---------------------------------------------------------------- mount namespace

# own_mount_ns "$@": run this test in a mount namespace of its own (unshare -m, private
# propagation); call it right after sourcing lib.sh, before anything is made (the test
# is started again there).  For tests that mount a filesystem and check it after umount
# (xfs_repair, fsck) or deactivate its LV.  Why: the root mount is private here, so any
# process making a mount namespace (tests/tools/sanlock_host.sh's hosts, unshare -m)
# copies every mount of that moment, and a filesystem mounted then outlives its umount
# in the copy: umount exits 0, nothing is written back, xfs_repair -n reads a live
# filesystem (a dirty log, stale superblock counters) and the LV stays open.  In its
# own namespace the test's mounts are seen by its own processes only; the copies of
# other tests' mounts (under /tmp, on loop/dm/nbd devices, FUSE) that the unshare took
# are detached at once, so the test does not keep theirs alive either.  Without root or
# unshare the test goes on where it is; LVX_OWN_MNTNS=off: always (for a comparison).
own_mount_ns() {
    if [[ ${LVX_OWN_MNTNS:-} == "$$" ]]; then      # started again in the new namespace
        _detach_foreign_mounts
        return 0
    fi
    [[ ${LVX_OWN_MNTNS:-} == off || $(id -u) -ne 0 ]] && return 0
    unshare -m --propagation private true 2>/dev/null || return 0
    local script
    script=$(realpath "$0")
    trap - EXIT
    rm -rf "$SCRATCH"                               # nothing else made yet
    # unshare without --fork: the same pid, so the new bash knows it is the one
    LVX_OWN_MNTNS=$$ exec unshare -m --propagation private bash "$script" "$@"
}

# _detach_foreign_mounts: lazily unmount, in this (new, private) namespace only, the
# copied mounts of other tests and daemons (children first).
_detach_foreign_mounts() {
    local mp fstype src rest mps=() i
    while read -r _ _ _ _ mp rest; do
        rest=${rest#* - }
        read -r fstype src _ <<<"$rest"
        mp=$(printf '%b' "$mp")
        if [[ $mp == /tmp/* || $mp == /var/tmp/* || $src == /dev/loop* ||
              $src == /dev/mapper/* || $src == /dev/dm-* || $src == /dev/nbd* ||
              $fstype == fuse* ]]; then
            mps+=("$mp")
        fi
    done </proc/self/mountinfo
    for ((i = ${#mps[@]} - 1; i >= 0; i--)); do umount -l "${mps[i]}" 2>/dev/null; done
    return 0
}

# ---------------------------------------------------------------- scratch + cleanup
#
# Loop devices are shared by everything on the machine (other test runs attach and
# detach theirs all the time, and take a freed number at once), so a test knows its
# devices by their backing files, never by a remembered name: $SCRATCH/.loops holds
# one "DEV FILE" line per device attached here, and a device is acted on (detached,
# swept at exit) only while the kernel still says it is backed by that file.  Every
# file of this test lives under $SCRATCH (a private mktemp directory), so a loop
# device backed by a file under it is this test's, whoever attached it (the lvx
# daemon's devices over its FUSE files included).
#
# Each test also sees only its own devices: lvx and LVM2 read $LVM_SYSTEM_DIR/lvm.conf
# ($SCRATCH/lvm, exported here), whose global_filter accepts the test's loop devices
# and nothing else (kept up to date by attach_loop/detach_loop until the test writes
# its own with lvm_sandbox DEV...); no activation, no backups or archives in /etc/lvm.
# A test's VG names therefore never meet another run's VGs of the same name in a
# system scan (a command without --devices).

# sandbox_noise: stdin to stdout without the lines only the test sandbox causes, which a
# check comparing messages leaves aside: LVM2's "WARNING: Activation disabled" (global/
# activation = 0), both tools' "WARNING: This metadata update is NOT backed up."
# (backup/backup = 0; t0949 checks where it appears) and LVM2's "File descriptor ...
# leaked on lvm invocation" lines.
sandbox_noise() {
    grep -v -e 'WARNING: Activation disabled' -e 'metadata update is NOT backed up' \
        -e 'leaked on lvm invocation' || true
}

SCRATCH=$(mktemp -d /tmp/lvx-test.XXXXXX)
SCRATCH=$(realpath "$SCRATCH")
export SCRATCH
# fio keeps no verify state file (local-NAME-N-verify.state, written into the current
# directory, the checkout, when a verifying job is killed or fails)
fio() { command fio --verify_state_save=0 "$@"; }
# lvx's device index (README "Large VGs") of this test stays in the scratch directory
export LVX_RUN_DIR="$SCRATCH/run"
: >"$SCRATCH/.loops"

# shellcheck source=tests/tools/loops.sh
. "$LVX_ROOT/tests/tools/loops.sh"

# our_loops: "DEV FILE" of every loop device of this test still attached to its file:
# the recorded ones, and any other backed by a file under $SCRATCH.
our_loops() {
    local dev file bf seen=" "
    while read -r dev file; do
        [[ -n $dev ]] || continue
        if [[ -z $file ]]; then                      # a bare "DEV" line (older tests)
            bf=$(loop_backing "$dev") || continue
            [[ $bf == "$SCRATCH"/* ]] || continue
            file=$bf
        fi
        loop_holds "$dev" "$file" || continue
        [[ $seen == *" $dev "* ]] && continue
        seen+="$dev "
        printf '%s %s\n' "$dev" "$file"
    done <"$SCRATCH/.loops"
    while read -r dev file; do
        [[ $seen == *" $dev "* ]] && continue
        seen+="$dev "
        printf '%s %s\n' "$dev" "$file"
    done < <(loops_under "$SCRATCH")
}

# _cleanup_vgs: with the devices still ours, stop this test's lvx daemon (its run
# directory is private) and remove the VGs on this test's image files, so that no
# device goes back to the machine with an active LV or a VG on it.
_cleanup_vgs() {
    local lvx_bin=$LVX devs=() dev file list vg
    [[ -x $LVX_PLAIN ]] && lvx_bin=$LVX_PLAIN
    [[ -x $lvx_bin ]] || return 0
    if [[ ${LVX_RUN_DIR:-} == "$SCRATCH"/* && -s $LVX_RUN_DIR/lvxd.pid ]]; then
        local pid
        pid=$(cat "$LVX_RUN_DIR/lvxd.pid" 2>/dev/null)
        if [[ -n $pid && -d /proc/$pid ]]; then
            timeout 60 "$lvx_bin" vgchange -an >/dev/null 2>&1 </dev/null
            timeout 30 "$lvx_bin" daemon stop -f >/dev/null 2>&1
            for _ in $(seq 50); do [[ -d /proc/$pid ]] || break; sleep 0.1; done
        fi
        mountpoint -q "$LVX_RUN_DIR/vol" 2>/dev/null && umount -l "$LVX_RUN_DIR/vol"
    fi
    while read -r dev file; do
        [[ $file == "$SCRATCH"/* && $file != "$LVX_RUN_DIR"/* ]] && devs+=("$dev")
    done < <(our_loops)
    ((${#devs[@]})) || return 0
    list=$(IFS=,; echo "${devs[*]}")
    for vg in $(LVX_ACTIVATION_BACKEND=none LVM_SYSTEM_DIR="$SCRATCH/lvm" timeout 60 "$lvx_bin" vgs \
                --noheadings -o vg_name --devices "$list" 2>/dev/null); do
        LVX_ACTIVATION_BACKEND=none LVM_SYSTEM_DIR="$SCRATCH/lvm" timeout 60 "$lvx_bin" vgremove -f -y \
            --devices "$list" "$vg" >/dev/null 2>&1 </dev/null
    done
    return 0
}

cleanup() {
    local dev file
    if [[ -f $SCRATCH/.loops ]]; then
        _cleanup_vgs
        # only devices still attached to our files: a name we no longer hold is someone
        # else's now and is left alone
        while read -r dev file; do
            losetup -d "$dev" 2>/dev/null
        done < <(our_loops)
    fi
    rm -rf "$SCRATCH"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------- loop devices

# attach_loop FILE [LOSETUP-OPTION...] -> prints /dev/loopN (`losetup -f`: attached in one
# step, never to a number looked up before); remembered with its file for detaching on
# exit.  LOSETUP-OPTION e.g. --sector-size 4096.
attach_loop() {
    local dev file
    file=$(realpath -e "$1") || return 1
    shift
    dev=$(losetup -f --show "$@" "$file") || return 1
    _loop_record "$dev" "$file"
}

# _loop_record DEV FILE: remember DEV with its backing file as the kernel names it, let the
# automatic sandbox see it, print DEV.
_loop_record() {
    printf '%s %s\n' "$1" "$(loop_backing "$1" || echo "$2")" >>"$SCRATCH/.loops"
    _sandbox_auto
    printf '%s\n' "$1"
}

# attach_loop_from N FILE -> prints /dev/loopM, the first free M >= N, attached to FILE (a
# device number far from the ones just freed, e.g. for a PV that must move).
attach_loop_from() {
    local n=$1 file dev
    file=$(realpath -e "$2") || return 1
    for ((; n < $1 + 256; n++)); do
        [[ -e /sys/block/loop$n/loop/backing_file ]] && continue
        dev=/dev/loop$n
        # losetup refuses a device taken meanwhile (EBUSY): then try the next number
        if losetup "$dev" "$file" 2>/dev/null && loop_holds "$dev" "$file"; then
            _loop_record "$dev" "$file"
            return 0
        fi
    done
    return 1
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

# make_loops N SIZE -> prints N devices (one a line) as make_loop SIZE does, for
#   mapfile -t D < <(make_loops 3 64M)
make_loops() {
    local i
    for ((i = 0; i < $1; i++)); do make_loop "$2" || return 1; done
}

# detach_loop DEV: detach one of our loops early (and forget it).  Refused (status 1,
# nothing done) when DEV is not attached to the file this test attached it to.
detach_loop() {
    local file
    file=$(awk -v d="$1" '$1 == d { sub(/^[^ ]+ ?/, ""); print; exit }' "$SCRATCH/.loops")
    awk -v d="$1" '$1 != d' "$SCRATCH/.loops" >"$SCRATCH/.loops.new" &&
        mv -f "$SCRATCH/.loops.new" "$SCRATCH/.loops"
    _sandbox_auto
    if [[ -z $file ]]; then     # not recorded with a file: ours only if backed under $SCRATCH
        file=$(loop_backing "$1")
        if [[ $file != "$SCRATCH"/* ]]; then
            echo "detach_loop: $1 is not a loop device of this test: left alone" >&2
            return 1
        fi
    fi
    if ! loop_holds "$1" "$file"; then
        echo "detach_loop: $1 is no longer attached to $file: left alone" >&2
        return 1
    fi
    losetup -d "$1"
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

# _sandbox_write DEV...: $SCRATCH/lvm/lvm.conf seeing only DEV... (none: no device).
_sandbox_write() {
    local dev accept=""
    mkdir -p "$SCRATCH/lvm"
    for dev in "$@"; do accept+="\"a|^${dev}\$|\", "; done
    cat >"$SCRATCH/lvm/lvm.conf.new" <<CONF
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
    mv -f "$SCRATCH/lvm/lvm.conf.new" "$SCRATCH/lvm/lvm.conf"
}

# The automatic sandbox: every loop device of the test, until lvm_sandbox is called.
_sandbox_auto() {
    [[ -e $SCRATCH/lvm/.explicit ]] && return 0
    local devs
    mapfile -t devs < <(awk '$1 != "" {print $1}' "$SCRATCH/.loops")
    _sandbox_write "${devs[@]}"
}

# lvm_sandbox DEV...: private LVM2 configuration that sees only DEV... and never
# activates, writes backups or archives ($SCRATCH/lvm, the exported LVM_SYSTEM_DIR:
# lvx reads it too).  From then on it is the test's: attach_loop no longer adds devices.
lvm_sandbox() {
    _sandbox_write "$@"
    : >"$SCRATCH/lvm/.explicit"
}

# lvm2_pair_begin SIZE: the start of a test of lvx beside LVM2 on two loop devices:
# skipped without loop devices, LVM2 or lvx; plan_later; D1 and D2 of SIZE (a failure
# is a failed check, the end) and LVM2's sandbox seeing only them.
lvm2_pair_begin() {
    need_loop
    need_cmd lvm
    need_lvx
    plan_later
    D1=$(make_loop "$1") && D2=$(make_loop "$1") || { _tap_result 1 "loop devices"; done_testing; }
    lvm_sandbox "$D1" "$D2"
}

_sandbox_auto
export LVM_SYSTEM_DIR="$SCRATCH/lvm"

lvm2() {
    LVM_SYSTEM_DIR="$SCRATCH/lvm" LVM_SUPPRESS_FD_WARNINGS=1 lvm "$@"
}

# both ARGS...: the same command line through lvx (the function or command named by
# $LVX_CMD, default lvx) and then LVM2 (lvm2); stdout, stderr and exit code of each in
# $SCRATCH/x.{out,err,rc} and $SCRATCH/l.{out,err,rc}, for side-by-side checks.
both() {
    local rc=0
    "${LVX_CMD:-lvx}" "$@" >"$SCRATCH/x.out" 2>"$SCRATCH/x.err" || rc=$?
    echo "$rc" >"$SCRATCH/x.rc"
    rc=0
    lvm2 "$@" >"$SCRATCH/l.out" 2>"$SCRATCH/l.err" || rc=$?
    echo "$rc" >"$SCRATCH/l.rc"
}

# same_refusal DESC ARGS...: TAP check: lvx and LVM2 (through both) end ARGS with the same
# exit code and stderr lines; LVM2's lines of a host without device-mapper (activation
# disabled, /dev/mapper/control, libdevmapper) are not lvx's to print and are dropped.
same_refusal() {
    local desc=$1
    shift
    both "$@"
    test_eq "$desc: exit code and lines as LVM2's (but its activation-off warning)" \
        "$(cat "$SCRATCH/x.rc") $(cat "$SCRATCH/x.err")" \
        "$(cat "$SCRATCH/l.rc") $(grep -Ev 'WARNING: Activation disabled|/dev/mapper/control|device-mapper|libdevmapper' "$SCRATCH/l.err")"
}

# same_as_lvm2 ARGS...: TAP check: LVM2 answers ARGS (exit 0, some output) and lvx's
# stdout and exit code equal LVM2's (both outputs through the command $SAME_FILTER, cat
# by default).
same_as_lvm2() {
    both "$@"
    if [[ $(cat "$SCRATCH/l.rc") != 0 || ! -s $SCRATCH/l.out ]]; then
        _tap_result 1 "LVM2 answers $*"
        _diag_file "LVM2's stderr" "$SCRATCH/l.err"
        return 1
    fi
    test_eq "$*: lvx's output and exit code equal LVM2's" \
        "$(cat "$SCRATCH/x.rc") $(${SAME_FILTER:-cat} <"$SCRATCH/x.out")" \
        "$(cat "$SCRATCH/l.rc") $(${SAME_FILTER:-cat} <"$SCRATCH/l.out")"
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

# sha_devs DEV...: "crc32 size  dev" per device (whole content), to tell "nothing was
# written" (a refused command) from a change.  CRC-32 (cksum, with the CPU's carry-less
# multiply) catches every change of up to 32 bits and any other with probability
# 1 - 2^-32; it reads 3 GB/s here where sha256sum read 80 MB/s, and the bad-input tests
# hash every device twice per refusal (t0310 spent 283 s of CI in sha256sum).
sha_devs() {
    local dev
    for dev in "$@"; do
        printf '%s  %s\n' "$(cksum <"$dev")" "$dev"
    done
}

# thin_meta_alloc_pct PCT NR_BLOCKS: a thin pool's Meta% without the blocks the kernel
# keeps back (a tenth of NR_BLOCKS, at most 4096, counted as used in its status and so
# in the lvx daemon's): the share of the metadata really allocated, which halves when
# the metadata doubles.
thin_meta_alloc_pct() {
    python3 -c "import sys; p, n = float(sys.argv[1]), int(sys.argv[2]); print('%.4f' % (p - 100.0 * min(4096, n // 10) / n))" "$1" "$2"
}
