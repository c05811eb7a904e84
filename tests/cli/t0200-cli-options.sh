#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0200-cli-options: the command layer.  Bad command lines give one line on stderr and
# LVM2's exit codes (3 invalid command line, 2 no such command, 5 command failed);
# version and help work; the display commands (pvdisplay, vgdisplay, lvdisplay, their
# -c/-m forms) print on the fixture images (regular files named with --devices) the
# lines LVM2 printed, computed from LVM2's own reports (tests/tools/display_expect.py);
# vgcfgbackup -f writes LVM2's backup file.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_cmd "$PYTHON"
need_lvx
plan_later

EXPECT="$LVX_ROOT/tests/tools/display_expect.py"

# expect_error "description" EXIT PATTERN lvx-args...: exit status EXIT, nothing on stdout
# but for reports, exactly one line on stderr matching PATTERN (grep -E), no crash.
expect_error() {
    local desc=$1 want=$2 pattern=$3 rc=0 lines
    shift 3
    lvx "$@" >"$SCRATCH/e.out" 2>"$SCRATCH/e.err" || rc=$?
    lines=$(wc -l <"$SCRATCH/e.err")
    if [[ $rc -eq $want && $lines -eq 1 ]] && grep -Eq -- "$pattern" "$SCRATCH/e.err" &&
        ! sanitizer_report "$SCRATCH/e.err"; then
        _tap_result 0 "$desc"
        return
    fi
    _tap_result 1 "$desc"
    diag "lvx $*" "exit status $rc (want $want), $lines stderr line(s), want /$pattern/"
    _diag_file stderr "$SCRATCH/e.err"
}

# expect_lines "description" EXPECTED-FILE OUTPUT-FILE: every expected line is in the output.
expect_lines() {
    local missing
    if [[ ! -s $2 ]]; then
        _tap_result 1 "$1"
        diag "no expected lines"
        return
    fi
    missing=$(grep -vxF -f "$3" "$2" || true)
    if [[ -z $missing ]]; then
        _tap_result 0 "$1"
    else
        _tap_result 1 "$1"
        diag "missing lines:" "$missing" "output was:"
        sed 's/^/#   /' "$3" | head -60
    fi
}

# run_ok OUTFILE lvx-args...: run lvx, stdout to OUTFILE; 0 when exit 0 and no sanitizer report.
run_ok() {
    local out=$1 rc=0
    shift
    lvx "$@" >"$out" 2>"$out.err" || rc=$?
    if [[ $rc -ne 0 ]] || sanitizer_report "$out.err"; then
        diag "lvx $*: exit status $rc"
        _diag_file stderr "$out.err"
        return 1
    fi
    return 0
}

# ------------------------------------------------------------ command line errors

mapfile -t P01 < <(fixture_images p01_single_default "$SCRATCH/p01")
mapfile -t P02 < <(fixture_images p02_striped4_256k "$SCRATCH/p02")
D01=$(IFS=,; echo "${P01[*]}")
D02=$(IFS=,; echo "${P02[*]}")

expect_error "unknown long option: exit 3" 3 "unrecognized option '--foo'" pvs --foo
expect_error "option of another command: exit 3" 3 "invalid option -- 'm'" pvs -m
expect_error "missing option argument: exit 3" 3 "requires an argument" pvs -o
expect_error "missing long option argument: exit 3" 3 "'--select' requires an argument" vgs --select
expect_error "unknown command: exit 2" 2 "No such command 'foo'" foo
expect_error "bad --units: exit 3" 3 "Invalid units specification" pvs --units x --devices "$D01"
expect_error "bad --units suffix: exit 3" 3 "Invalid units specification" vgs --units kb
expect_error "bad --reportformat: exit 3" 3 "Invalid argument for --reportformat: xml" lvs --reportformat xml
# the display commands' option checks: LVM2's line and its "Run `CMD --help'" line
rc=0
lvx pvdisplay -c -s --devices "$D01" >/dev/null 2>"$SCRATCH/e.err" || rc=$?
test_eq "-c with -s: exit 3, LVM2's lines" "$rc|$(paste -sd'|' "$SCRATCH/e.err")" \
    "3|  Option -c is not allowed with option -s|  Run \`pvdisplay --help' for more information."
rc=0
lvx vgdisplay -o vg_name --devices "$D01" >/dev/null 2>"$SCRATCH/e.err" || rc=$?
test_eq "report option without -C: exit 3, LVM2's line" "$rc|$(head -1 "$SCRATCH/e.err")" \
    "3|  Incompatible options selected."
expect_error "unknown report field: exit 5" 5 "[Uu]nrecognised field.*foo" pvs -o foo --devices "$D01"
# a missing VG: LVM2's two lines (the toolkit's "Cannot process" after "not found")
for c in vgs vgdisplay; do
    rc=0
    lvx $c nosuch --devices "$D01" >"$SCRATCH/e.out" 2>"$SCRATCH/e.err" || rc=$?
    test_eq "missing VG for $c: exit 5, LVM2's two lines" "$rc $(cat "$SCRATCH/e.err")" \
        "5   Volume group \"nosuch\" not found
  Cannot process volume group nosuch"
done
expect_error "missing LV: exit 5" 5 'Failed to find logical volume "vg01/nosuch"' lvs vg01/nosuch --devices "$D01"
expect_error "missing PV: exit 5" 5 "Cannot use /nonexistent/pv: device not found" pvs /nonexistent/pv --devices "$D01"
expect_error "missing --devices file: exit 5" 5 "/nonexistent/disk" pvs --devices /nonexistent/disk

# a report still lists what exists when one of the VGs named is missing (as LVM2)
rc=0
lvx vgs --noheadings -o vg_name vg01 nosuch --devices "$D01" >"$SCRATCH/v.out" 2>"$SCRATCH/v.err" || rc=$?
test_eq "vgs with one missing VG: exit 5 and the other VG listed" \
    "$rc $(tr -d ' ' <"$SCRATCH/v.out")" "5 vg01"

# ------------------------------------------------------------ version, help, symlink

test_ok "lvx version exits 0" lvx version
test_eq "lvx version names lvx" "$(lvx version 2>&1 | grep -c 'lvx version')" "1"
test_eq "lvx --version works too" "$(lvx --version 2>&1 | grep -c 'lvx version')" "1"
# LVM2's lines, as programs parse them (libblockdev: "LVM version: X.Y.Z"), called as lvm
mkdir -p "$SCRATCH/bin" && ln -s "$LVX" "$SCRATCH/bin/lvm"
lvx_lvm_version=$("$SCRATCH/bin/lvm" version 2>&1)
test_ok "'lvm version' (lvx called as lvm) has LVM2's 'LVM version: X.Y.Z' line" \
    grep -Eq '^  LVM version: +[0-9]+\.[0-9]+\.[0-9]+' <<<"$lvx_lvm_version"
test_eq "... the LVM2 release of this machine's LVM2, the oracle lvx follows" \
    "$(sed -n 's/^  LVM version: *\([0-9.]*\).*/\1/p' <<<"$lvx_lvm_version")" \
    "$(LVM_SUPPRESS_FD_WARNINGS=1 lvm version 2>/dev/null | sed -n 's/^  LVM version: *\([0-9.]*\).*/\1/p')"
test_eq "... and its date, which Ansible's lvol module requires (YYYY-MM-DD)" \
    "$(grep -oE '^  LVM version:.*' <<<"$lvx_lvm_version" | grep -oE '[0-9]{4}-[0-9]{2}-[0-9]{2}')" \
    "$(LVM_SUPPRESS_FD_WARNINGS=1 lvm version 2>/dev/null | grep -oE '^  LVM version:.*' | grep -oE '[0-9]{4}-[0-9]{2}-[0-9]{2}')"
test_eq "... with LVM2's labels in LVM2's order" \
    "$(grep -oE '^  (LVM|Library|Configuration)[a-z ]*:' <<<"$lvx_lvm_version" | xargs)" \
    "$(LVM_SUPPRESS_FD_WARNINGS=1 lvm version 2>/dev/null | grep -oE '^  (LVM|Library|Configuration)[a-z ]*:' | xargs)"
test_ok "... and says it is lvx" grep -q "(lvx " <<<"$lvx_lvm_version"
rm "$SCRATCH/bin/lvm"
help=$(lvx help 2>&1)
listed=0
for c in pvs vgs lvs pvdisplay vgdisplay lvdisplay vgcfgbackup version help; do
    grep -Eq "^  $c +[A-Z]" <<<"$help" && listed=$((listed + 1))
done
test_eq "lvx help lists the 9 commands" "$listed" "9"
test_eq "lvx pvs --help shows its options" "$(lvx pvs --help 2>&1 | grep -c -- '--options')" "1"
# (stdin from /dev/null: with a terminal or a pipe on stdin, lvx alone starts the shell)
test_fail "lvx with no command is a usage error" bash -c '"$LVX" </dev/null'

ln -s "$LVX" "$SCRATCH/pvs"
rc=0
"$SCRATCH/pvs" --noheadings -o pv_name --devices "$D01" >"$SCRATCH/s.out" 2>&1 || rc=$?
test_eq "called as 'pvs' through a symlink" "$rc $(tr -d ' ' <"$SCRATCH/s.out")" "0 ${P01[0]}"

# ------------------------------------------------------------ reports with positional args

if run_ok "$SCRATCH/pv1" pvs --noheadings -o pv_name "${P02[1]}" --devices "$D02"; then
    test_eq "pvs PV names only that PV" "$(tr -d ' ' <"$SCRATCH/pv1")" "${P02[1]}"
else
    _tap_result 1 "pvs PV names only that PV"
fi
if run_ok "$SCRATCH/lv1" lvs --noheadings -o lv_name vg02/lv_pad --devices "$D02"; then
    test_eq "lvs VG/LV names only that LV" "$(tr -d ' ' <"$SCRATCH/lv1")" "lv_pad"
else
    _tap_result 1 "lvs VG/LV names only that LV"
fi
if run_ok "$SCRATCH/rep" pvs --devices "$D01" --devices "$D02" --noheadings -o vg_name; then
    test_eq "--devices is repeatable" "$(sort -u "$SCRATCH/rep" | tr -d ' ' | paste -sd,)" "vg01,vg02"
else
    _tap_result 1 "--devices is repeatable"
fi

# ------------------------------------------------------------ display commands, all fixtures

check_display() {  # check_display SCENARIO DIR DEVICES WHAT lvx-args...
    local scenario=$1 dir=$2 devices=$3 what=$4
    shift 4
    "$PYTHON" "$EXPECT" "$scenario" "$dir" "$what" >"$dir/$what.want"
    if run_ok "$dir/$what.out" "$@" --devices "$devices"; then
        expect_lines "$scenario: lvx $* prints LVM2's lines" "$dir/$what.want" "$dir/$what.out"
    else
        _tap_result 1 "$scenario: lvx $* prints LVM2's lines"
    fi
}

for scenario in $(fixture_scenarios); do
    dir="$SCRATCH/$scenario"
    mapfile -t images < <(fixture_images "$scenario" "$dir")
    devices=$(IFS=,; echo "${images[*]}")
    check_display "$scenario" "$dir" "$devices" pvdisplay pvdisplay
    check_display "$scenario" "$dir" "$devices" pvdisplay-c pvdisplay -c
    check_display "$scenario" "$dir" "$devices" vgdisplay vgdisplay
    check_display "$scenario" "$dir" "$devices" vgdisplay-c vgdisplay -c
    check_display "$scenario" "$dir" "$devices" lvdisplay lvdisplay
    check_display "$scenario" "$dir" "$devices" lvdisplay-m lvdisplay -m
    rm -rf "$dir"
done

# --units on a display command: bytes as LVM2 prints them ("67108864 B ")
if run_ok "$SCRATCH/pvb" pvdisplay --units b --devices "$D01"; then
    test_eq "pvdisplay --units b" "$(grep -c '^  PV Size               67108864 B  / not usable 4194304 B $' "$SCRATCH/pvb")" "1"
else
    _tap_result 1 "pvdisplay --units b"
fi

# vgdisplay -s / pvdisplay -m / lvdisplay VG/LV
if run_ok "$SCRATCH/vgs" vgdisplay -s --devices "$D02"; then
    test_eq "vgdisplay -s" "$(cat "$SCRATCH/vgs")" '  "vg02" 240.00 MiB [36.00 MiB used / 204.00 MiB free]'
else
    _tap_result 1 "vgdisplay -s"
fi
if run_ok "$SCRATCH/pvm" pvdisplay -m "${P02[0]}" --devices "$D02"; then
    test_eq "pvdisplay -m lists used and free runs" \
        "$(grep -A1 '^  Physical extent' "$SCRATCH/pvm" | grep -v '^--' | paste -sd'|')" \
        "  Physical extent 0 to 0:|    Logical volume	/dev/vg02/lv_pad|  Physical extent 1 to 2:|    Logical volume	/dev/vg02/lv_stripe4|  Physical extent 3 to 14:|    FREE"
else
    _tap_result 1 "pvdisplay -m lists used and free runs"
fi
if run_ok "$SCRATCH/lvone" lvdisplay vg02/lv_pad --devices "$D02"; then
    test_eq "lvdisplay VG/LV shows one LV" "$(grep -c '^  LV Name' "$SCRATCH/lvone")" "1"
else
    _tap_result 1 "lvdisplay VG/LV shows one LV"
fi
if run_ok "$SCRATCH/pvC" pvdisplay -C --noheadings -o pv_name --devices "$D01"; then
    test_eq "pvdisplay -C is the pvs report" "$(tr -d ' ' <"$SCRATCH/pvC")" "${P01[0]}"
else
    _tap_result 1 "pvdisplay -C is the pvs report"
fi

# ------------------------------------------------------------ vgcfgbackup

# The VG part of the file must be LVM2's own backup of the same VG (device hints aside:
# they name the devices of the moment).
vg_part() { sed -n '/^vg02 {/,$p' "$1" | grep -v '^[[:space:]]*device = '; }
if run_ok "$SCRATCH/bk.out" vgcfgbackup -f "$SCRATCH/bk-vg02.vg" vg02 --devices "$D02"; then
    test_eq "vgcfgbackup -f reports success" "$(cat "$SCRATCH/bk.out")" \
        '  Volume group "vg02" successfully backed up.'
    test_eq "backup file has LVM2's header and the command as description" \
        "$(grep -c -e '^contents = "Text Format Volume Group"$' \
            -e "^description = \"vgcfgbackup -f $SCRATCH/bk-vg02.vg vg02 --devices $D02\"\$" \
            "$SCRATCH/bk-vg02.vg")" "2"
    if diff <(vg_part "$LVX_ROOT/tests/fixtures/lvm2/p02_striped4_256k/backup-vg02.vg") \
        <(vg_part "$SCRATCH/bk-vg02.vg") >"$SCRATCH/bk.diff"; then
        _tap_result 0 "vgcfgbackup -f writes the VG as LVM2's vgcfgbackup did"
    else
        _tap_result 1 "vgcfgbackup -f writes the VG as LVM2's vgcfgbackup did"
        sed 's/^/#   /' "$SCRATCH/bk.diff" | head -40
    fi
else
    _tap_result 1 "vgcfgbackup -f reports success"
fi
both="$D01,$D02"
expect_error "vgcfgbackup -f without %s for two VGs: exit 5" 5 "different files" \
    vgcfgbackup -f "$SCRATCH/same.vg" --devices "$both"
if run_ok "$SCRATCH/bk2.out" vgcfgbackup -f "$SCRATCH/b-%s.vg" --devices "$both"; then
    test_eq "vgcfgbackup -f with %s writes one file per VG" \
        "$(ls "$SCRATCH"/b-vg01.vg "$SCRATCH"/b-vg02.vg 2>/dev/null | wc -l)" "2"
else
    _tap_result 1 "vgcfgbackup -f with %s writes one file per VG"
fi
mkdir -p "$SCRATCH/sysdir"
if LVM_SYSTEM_DIR="$SCRATCH/sysdir" run_ok "$SCRATCH/bk3.out" vgcfgbackup vg01 --devices "$D01"; then
    test_ok "vgcfgbackup without -f writes \$LVM_SYSTEM_DIR/backup/<vg>" \
        grep -q '^vg01 {' "$SCRATCH/sysdir/backup/vg01"
else
    _tap_result 1 "vgcfgbackup without -f writes \$LVM_SYSTEM_DIR/backup/<vg>"
fi

done_testing
