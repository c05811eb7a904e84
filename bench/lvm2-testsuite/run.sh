#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/lvm2-testsuite/run.sh - run LVM2's own shell tests (test/shell/*.sh of the
# lvm2 source package) against lvx, with the real LVM2 as the control, inside
# throw-away QEMU guests (tests/tools/kvm-dm-test: a kernel with device-mapper).
#
#   run.sh [options] [TEST...]       TEST = pvcreate-usage, shell/tags.sh, ...
#                                    (default: the list in tests.txt next to this file)
#   -j N              N guests at once, the tests dealt round-robin (default 1)
#   --control MODE    LVM2 side: run (run it), cache (reuse a result recorded for this
#                     LVM2 version, run only the missing ones; the default), skip,
#                     only (run LVM2 alone: fills the cache)
#   --lvx PATH        the lvx binary (default build/lvx, built when missing)
#   --timeout SEC     time limit of one test on one side (default 600)
#   --out DIR         keep logs and results in DIR (default a fresh directory under
#                     $TMPDIR, printed)
#   --list FILE       tests from FILE (one a line, '#' comments)
#   --cpus N          vCPUs of each guest (default 1)
#   --prepare-only    fetch and lay out the test tree, then exit
#   --table-only      print the table of the results already in --out DIR (no guest)
#
# Where the tests come from: Debian's source package of the lvm2 version installed on
# this host (`apt-get source lvm2=VERSION` through a private apt configuration whose
# only entry is a deb-src line made from the system's Debian URIs and release: the
# system's apt configuration is not changed).  Nothing is vendored.  It is unpacked
# (dpkg-source -x) into the cache ($LVM2_TESTSUITE_CACHE, default
# ~/.cache/lvx-lvm2-testsuite) and laid out as LVM2's "make install" of its test
# suite does ("installed testsuite" mode: lib/lvm-wrapper runs the `lvm` found on
# PATH): /usr/share/lvm2-testsuite/{shell,lib,...} and /usr/libexec/lvm2-testsuite
# with the harness's one C helper, `not` (compiled here, with its aliases should,
# invalid, fail).
#
# In the guest each test runs as LVM2's runner runs it (cwd = the test tree,
# LVM_TEST_FLAVOUR=ndev-vanilla, `bash -noprofile -norc shell/T.sh`; exit 0 =
# passed, 200 = skipped), once with the guest's LVM2 as `lvm` and once with a PATH
# whose `lvm` is lvx.  The guest's busybox lacks what the harness needs (env for the
# scripts' #! lines, `ln -t`, pgrep, getconf, `grep --count`, ...): the host's are copied in.
#
# Output: a table (test, LVM2 result, lvx result, the first failing line for lvx:
# the test's line the harness's stack trace names, with its text), then totals.
# Exit status: 0 when every test that passed with LVM2 passed with lvx, 1 otherwise,
# 77 when no guest can run or the tests cannot be had (no apt source reachable).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
KDT=${KVM_DM_TEST:-$ROOT/tests/tools/kvm-dm-test}
CACHE=${LVM2_TESTSUITE_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/lvx-lvm2-testsuite}
JOBS=1
CONTROL=cache
LVX=
TEST_TIMEOUT=600
OUT=
LIST=
CPUS=1
PREPARE_ONLY=0
TABLE_ONLY=0
LAYOUT_VERSION=2     # bump when layout_tree() changes
declare -a TESTS=()

die() { echo "run.sh: error: $*" >&2; exit 2; }
skip() { echo "run.sh: SKIP: $*" >&2; exit 77; }
say() { echo "run.sh: $*" >&2; }

while [ $# -gt 0 ]; do
    case $1 in
    -j) JOBS=$2; shift 2 ;;
    -j*) JOBS=${1#-j}; shift ;;
    --control) CONTROL=$2; shift 2 ;;
    --lvx) LVX=$2; shift 2 ;;
    --timeout) TEST_TIMEOUT=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --list) LIST=$2; shift 2 ;;
    --cpus) CPUS=$2; shift 2 ;;
    --prepare-only) PREPARE_ONLY=1; shift ;;
    --table-only) TABLE_ONLY=1; shift ;;
    -h|--help) sed -n '3,40p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option $1" ;;
    *) TESTS+=("$1"); shift ;;
    esac
done
[[ $JOBS =~ ^[1-9][0-9]*$ ]] || die "-j needs a positive number"
[[ $TEST_TIMEOUT =~ ^[1-9][0-9]*$ ]] || die "--timeout needs a number of seconds"
case $CONTROL in run|cache|skip|only) ;; *) die "--control must be run, cache, skip or only" ;; esac
[ "$(id -u)" = 0 ] || skip "needs root (kvm-dm-test, apt)"

# ------------------------------------------------------------------ the test tree
LVM_VER=$(dpkg-query -W -f '${Version}' lvm2 2>/dev/null) || skip "lvm2 is not installed (the control and the version to fetch)"
SRC=$CACHE/lvm2-$LVM_VER
TREE=$SRC/tree            # what goes into the guest: usr/share/..., usr/libexec/...
DATA=$TREE/usr/share/lvm2-testsuite
EXEC=$TREE/usr/libexec/lvm2-testsuite

# deb-src line from the system's Debian sources (deb822 or one-line format)
debsrc_line() {
    local codename uri
    codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
    [ -n "$codename" ] || return 1
    uri=$(awk -v c="$codename" '
        /^URIs:/ { u = $2 } /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == c) s = 1 }
        /^$/ { if (u != "" && s) { print u; exit } u = ""; s = 0 }
        END { if (u != "" && s) print u }' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)
    if [ -z "$uri" ]; then
        uri=$(awk -v c="$codename" '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { if ($(i+1) == c) { print $i; exit } } }' \
            /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | head -1)
    fi
    [ -n "$uri" ] || return 1
    echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri $codename main"
}

fetch_source() {
    [ -f "$SRC/src/.unpacked" ] && return 0
    local apt=$SRC/apt line
    rm -rf "$SRC/src" "$apt"
    mkdir -p "$apt/lists/partial" "$apt/cache" "$SRC/src"
    line=$(debsrc_line) || skip "no Debian apt source found to derive a deb-src entry from"
    echo "$line" >"$apt/sources.list"
    local O=(-o "Dir::Etc::SourceList=$apt/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
             -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache"
             -o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache=" -o "APT::Sandbox::User=root")
    say "fetching the lvm2 $LVM_VER source package ($line)"
    apt-get "${O[@]}" -qq update >"$apt/update.log" 2>&1 || skip "apt-get update of the deb-src entry failed: $(tail -1 "$apt/update.log")"
    (cd "$SRC/src" && apt-get "${O[@]}" -qq source --download-only "lvm2=$LVM_VER") >"$apt/source.log" 2>&1 \
        || skip "apt-get source lvm2=$LVM_VER failed: $(tail -1 "$apt/source.log")"
    command -v dpkg-source >/dev/null || die "dpkg-source (dpkg-dev) is missing"
    (cd "$SRC/src" && dpkg-source -q -x ./*.dsc lvm2) >"$apt/unpack.log" 2>&1 || die "dpkg-source -x failed: $(tail -1 "$apt/unpack.log")"
    touch "$SRC/src/.unpacked"
}

# LVM2's "make install" of test/ (test/Makefile.in), by hand: the shell libraries
# without their .sh, the flavours, lib/paths as paths-installed, one lvm-wrapper
# link per lvm command, `not` and its aliases.
layout_tree() {
    local t=$SRC/src/lvm2/test key
    key=$(cat "$t/lib/not.c" | md5sum | cut -c1-8)-$LAYOUT_VERSION
    [ -f "$TREE/.layout-$key" ] && return 0
    rm -rf "$TREE"
    mkdir -p "$DATA"/{shell,api,unit,lib,dbus} "$EXEC"
    cp "$t"/shell/*.sh "$DATA/shell/"
    cp "$t"/api/*.sh "$DATA/api/" 2>/dev/null || true
    cp "$t"/unit/*.sh "$DATA/unit/" 2>/dev/null || true
    local f n
    for f in aux check inittest utils get lvm-wrapper; do
        cp "$t/lib/$f.sh" "$DATA/lib/$f"; chmod 755 "$DATA/lib/$f"
    done
    # aux's error_dev/delayzero_dev map 2^62 sectors; the guest's 6.12 kernel refuses a target
    # ending past LLONG_MAX >> 9 ("device-mapper: table: too large device", for LVM2 as
    # for lvx: lvextend-raid :45): 2^53 sectors, still far beyond any test device.
    sed -i 's/"0 4611686018427387904 /"0 9007199254740992 /' "$DATA/lib/aux"
    for f in "$t"/lib/flavour-*.sh; do n=${f##*/}; cp "$f" "$DATA/lib/${n%.sh}"; done
    cp "$t"/lib/test-*-conf "$t/lib/mke2fs.conf" "$DATA/lib/"
    for n in cache-mq cache-smq thin-performance lvmdbusd; do
        cp "$SRC/src/lvm2/conf/$n.profile" "$DATA/lib/"
    done
    cut -f1 -d' ' <"$SRC/src/lvm2/VERSION" >"$DATA/lib/version-expected"
    cut -f1 -d' ' <"$SRC/src/lvm2/VERSION_DM" >"$DATA/lib/dm-version-expected"
    {   # paths-installed, with Debian's configure values (debian/rules)
        echo 'DM_UDEV_SYNCHRONISATION='
        echo 'LVMPOLLD_PIDFILE="/run/lvmpolld.pid"'
        echo 'DMEVENTD_PIDFILE="/run/dmeventd.pid"'
        for n in THIN_CHECK:thin_check THIN_DUMP:thin_dump THIN_REPAIR:thin_repair THIN_RESTORE:thin_restore \
                 CACHE_CHECK:cache_check CACHE_DUMP:cache_dump CACHE_REPAIR:cache_repair CACHE_RESTORE:cache_restore; do
            echo "LVM_TEST_${n%%:*}_CMD=\${LVM_TEST_${n%%:*}_CMD-/usr/sbin/${n#*:}}"
        done
        echo 'export DM_UDEV_SYNCHRONISATION THIN RAID CACHE\'
        echo ' LVM_TEST_THIN_CHECK_CMD LVM_TEST_THIN_DUMP_CMD LVM_TEST_THIN_REPAIR_CMD LVM_TEST_THIN_RESTORE_CMD\'
        echo ' LVM_TEST_CACHE_CHECK_CMD LVM_TEST_CACHE_DUMP_CMD LVM_TEST_CACHE_REPAIR_CMD LVM_TEST_CACHE_RESTORE_CMD'
        echo 'installed_testsuite=1'
        echo 'export PATH=/usr/libexec/lvm2-testsuite:/usr/share/lvm2-testsuite/lib:/usr/share/lvm2-testsuite/api:$PATH'
    } >"$DATA/lib/paths"
    # the lvm commands: tools/commands.h's names less those tools/Makefile.in leaves
    # out of .commands (the names that exist only as "lvm NAME")
    ln -s lvm-wrapper "$DATA/lib/lvm"
    for n in $(sed -n 's/^xx(\([a-z_]*\),.*/\1/p' "$SRC/src/lvm2/tools/commands.h" |
               grep -Evx 'config|devtypes|dumpconfig|formats|fullreport|help|lastlog|lvmchange|lvpoll|pvdata|segtypes|systemid|tags|version'); do
        ln -s lvm-wrapper "$DATA/lib/$n"
    done
    gcc -O2 -o "$EXEC/not" "$t/lib/not.c" || die "cannot compile test/lib/not.c"
    for n in should invalid fail; do ln -s not "$EXEC/$n"; done
    touch "$TREE/.layout-$key"
}

fetch_source
layout_tree
say "test tree: $DATA (lvm2 $LVM_VER)"
[ "$PREPARE_ONLY" = 1 ] && exit 0

# ------------------------------------------------------------------ what to run
if [ ${#TESTS[@]} = 0 ]; then
    [ -n "$LIST" ] || LIST=$HERE/tests.txt
    mapfile -t TESTS < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' "$LIST" | grep -v '^$')
fi
for i in "${!TESTS[@]}"; do
    n=${TESTS[$i]##*/}; n=${n%.sh}; TESTS[$i]=$n
    [ -f "$DATA/shell/$n.sh" ] || die "no test shell/$n.sh in lvm2 $LVM_VER"
done
[ ${#TESTS[@]} -gt 0 ] || die "no tests given"

if [ -z "$LVX" ]; then
    LVX=$ROOT/build/lvx
    [ -x "$LVX" ] || make -s -C "$ROOT" -j2 all >/dev/null || die "cannot build lvx"
fi
[ -x "$LVX" ] || die "no lvx binary at $LVX"
[ -x "$KDT" ] || skip "kvm-dm-test not found at $KDT"

OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/lvm2-testsuite.XXXXXX")}
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
CTRL=$SRC/control          # LVM2's recorded results: control/T.rc, control/T.log
mkdir -p "$CTRL"

[ "$TABLE_ONLY" = 0 ] || [ -d "${OUT:-}" ] || die "--table-only needs --out DIR"
if [ "$TABLE_ONLY" = 1 ]; then mv "$OUT"/g*/*.rc "$OUT"/g*/*.log "$OUT/" 2>/dev/null || true; fi
VMRC=0
if [ "$TABLE_ONLY" = 0 ]; then
# host tools the guest's busybox lacks or has in too small a form
PUTS=()
for c in env ln find xargs pgrep pkill getconf mktemp readlink timeout sort ls fsck grep mkfs; do
    p=$(command -v "$c") || die "the host has no $c"
    PUTS+=(--put "$(readlink -f "$p"):/usr/bin/$c")
done
# fsck -n of an ext4 file system (lvcreate-thin-snap) runs fsck.ext4: the guest's e2fsck
p=$(command -v e2fsck) || die "the host has no e2fsck"
PUTS+=(--put "$(readlink -f "$p"):/usr/bin/fsck.ext4" --put "$(readlink -f "$p"):/usr/bin/fsck.ext2")
# mkfs.ext2 (lvcreate-thin-external, lvconvert-thin-external): mke2fs called by that name
p=$(command -v mke2fs) || die "the host has no mke2fs"
PUTS+=(--put "$(readlink -f "$p"):/usr/bin/mkfs.ext2")

# The guest side: for each test and side, run it and leave T.SIDE.rc/.log in /out.
GUEST=$OUT/guest.sh
cat >"$GUEST" <<'EOF'
#!/usr/bin/bash
# runs in the kvm-dm-test guest: bench/lvm2-testsuite/run.sh's driver
set -u
mkdir -p /tmp/lvx-side
ln -sf /t/lvx /tmp/lvx-side/lvm
for job in $SUITE_JOBS; do
    t=${job%:*}; side=${job#*:}
    case $side in
        lvx) path=/tmp/lvx-side:$PATH ;;
        *) path=$PATH ;;
    esac
    echo "== $t ($side) start $(cut -d' ' -f1 /proc/uptime)"
    rc=0
    lvm=$(PATH=$path command -v lvm)
    echo "lvm: $lvm -> $(readlink -f "$lvm")" >"/tmp/$t.$side.log"
    (cd /usr/share/lvm2-testsuite &&
     PATH=$path LVM_TEST_FLAVOUR=ndev-vanilla timeout -k 10 "$SUITE_TIMEOUT" \
         bash -noprofile -norc "shell/$t.sh") >>"/tmp/$t.$side.log" 2>&1 </dev/null || rc=$?
    # leftovers of a failed test must not disturb the next one
    dmsetup remove_all -f >/dev/null 2>&1
    for l in /dev/loop[0-9]*; do losetup -d "$l" 2>/dev/null; done
    rm -rf /tmp/LVMTEST* /run/lvx /run/lock/lvm/* 2>/dev/null
    cp "/tmp/$t.$side.log" /out/ && echo "$rc" >"/out/$t.$side.rc"
    rm -f "/tmp/$t.$side.log"
    echo "== $t ($side) exit $rc at $(cut -d' ' -f1 /proc/uptime)"
done
exit 0
EOF
chmod 755 "$GUEST"

# the jobs: lvx for every test; LVM2 unless skipped or cached
declare -a JOBLIST=()
for t in "${TESTS[@]}"; do
    [ "$CONTROL" = only ] || { rm -f "$OUT/$t".lvx.rc; JOBLIST+=("$t:lvx"); }
    case $CONTROL in
    run|only) rm -f "$OUT/$t".lvm2.rc; JOBLIST+=("$t:lvm2") ;;
    cache) [ -f "$CTRL/$t.rc" ] || JOBLIST+=("$t:lvm2") ;;
    esac
done

# deal the jobs to the guests (round robin), start them, wait
declare -a SHARE=() PIDS=()
for ((g = 0; g < JOBS; g++)); do SHARE[$g]=""; done
i=0
for j in "${JOBLIST[@]}"; do SHARE[$((i % JOBS))]+="$j "; i=$((i + 1)); done
say "${#TESTS[@]} tests, ${#JOBLIST[@]} runs in $JOBS guest(s); logs in $OUT"
for ((g = 0; g < JOBS; g++)); do
    [ -n "${SHARE[$g]}" ] || continue
    n=$(wc -w <<<"${SHARE[$g]}")
    mkdir -p "$OUT/g$g"
    "$KDT" -q --disks 0 --cpus "$CPUS" --mem 1G --timeout $((n * (TEST_TIMEOUT + 30) + 120)) \
        --put "$LVX:/t/lvx" --put "$DATA:/usr/share/lvm2-testsuite" --put "$EXEC:/usr/libexec/lvm2-testsuite" \
        "${PUTS[@]}" --load loop --load brd --env "SUITE_JOBS=${SHARE[$g]}" --env "SUITE_TIMEOUT=$TEST_TIMEOUT" \
        --out "$OUT/g$g" --run "$GUEST" >"$OUT/g$g/console" 2>&1 &
    PIDS[$g]=$!
done
for g in "${!PIDS[@]}"; do
    rc=0; wait "${PIDS[$g]}" || rc=$?
    [ $rc = 77 ] && skip "kvm-dm-test cannot run a guest: $(tail -1 "$OUT/g$g/console")"
    [ $rc = 0 ] || { say "guest $g ended with status $rc (console: $OUT/g$g/console)"; VMRC=1; }
    mv "$OUT/g$g"/*.rc "$OUT/g$g"/*.log "$OUT/" 2>/dev/null || true
done
fi
# record LVM2's results for this version
for t in "${TESTS[@]}"; do
    if [ -f "$OUT/$t.lvm2.rc" ]; then
        # a timeout says more about this machine's load than about LVM2: not recorded
        case $(cat "$OUT/$t.lvm2.rc") in 124|137) continue ;; esac
        cp "$OUT/$t.lvm2.rc" "$CTRL/$t.rc"; cp "$OUT/$t.lvm2.log" "$CTRL/$t.log"
    elif [ "$CONTROL" = cache ] && [ -f "$CTRL/$t.rc" ]; then
        cp "$CTRL/$t.rc" "$OUT/$t.lvm2.rc"; cp "$CTRL/$t.log" "$OUT/$t.lvm2.log"
    fi
done

# ------------------------------------------------------------------ the table
verdict() {  # FILE.rc -> passed/failed/skipped/timeout/-
    [ -f "$1" ] || { echo -; return; }
    case $(cat "$1") in 0) echo passed ;; 200) echo skipped ;; 124|137) echo timeout ;; *) echo failed ;; esac
}
first_fail() {  # T -> "shell/T.sh:LINE: text" of the first frame of the harness's stack trace
    local t=$1 log=$OUT/$1.lvx.log ln
    [ -f "$log" ] || { echo "(no log)"; return; }
    ln=$(sed -n "s|^## - [^ ]*shell/$t\.sh:\([0-9]*\)$|\1|p" "$log" | head -1)
    if [ -n "$ln" ]; then
        printf '%s:%s: %s' "$t.sh" "$ln" "$(sed -n "${ln}p" "$DATA/shell/$t.sh" | sed 's/^[[:space:]]*//' | cut -c1-90)"
    else
        tail -n 1 "$log" | cut -c1-100
    fi
}
npass2=0; npassx=0; nboth=0; nrun=0
{
    printf '%-32s %-8s %-8s %s\n' test LVM2 lvx "first failing line (lvx)"
    for t in "${TESTS[@]}"; do
        a=$(verdict "$OUT/$t.lvm2.rc"); b=$(verdict "$OUT/$t.lvx.rc"); why=
        nrun=$((nrun + 1))
        [ "$a" = passed ] && npass2=$((npass2 + 1))
        [ "$b" = passed ] && npassx=$((npassx + 1))
        [ "$a" = passed ] && [ "$b" = passed ] && nboth=$((nboth + 1))
        case $b in failed|timeout) why=$(first_fail "$t") ;; esac
        printf '%-32s %-8s %-8s %s\n' "$t" "$a" "$b" "$why"
    done
    echo
    echo "tests: $nrun; passed with LVM2 $LVM_VER: $npass2; passed with lvx: $npassx; with both: $nboth"
} | tee "$OUT/table.txt"
[ $VMRC = 0 ] || say "some guest did not finish: the table may lack results"
# success: every test LVM2 passes (or, without a control, every test) passes with lvx
for t in "${TESTS[@]}"; do
    a=$(verdict "$OUT/$t.lvm2.rc"); b=$(verdict "$OUT/$t.lvx.rc")
    if [ "$a" = passed ] || [ "$a" = - ]; then [ "$b" = passed ] || [ "$b" = skipped ] || exit 1; fi
done
exit $VMRC
