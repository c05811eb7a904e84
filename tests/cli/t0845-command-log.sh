#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0845-command-log: log/report_command_log = 1 for commands run on their own (not in
# the shell): LVM2's log report after the command's report, in JSON ("log" array in the
# report's object, or an object of its own) and in text ("Command Log" table, the
# report under its "Volume Group"-style heading), compared byte for byte with LVM2's
# stdout and exit code for reports, failures (unknown VG, LV, PV), changing commands
# (lvcreate, vgchange) and the selection "all" (the status line of every object).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_loop
need_cmd lvm
need_lvx
plan_later

D1=$(make_loop 64M) && D2=$(make_loop 64M) || { _tap_result 1 "attach two loop devices"; done_testing; }
lvm_sandbox "$D1" "$D2"
VG=clg$$
VG2=clh$$
test_ok "LVM2 builds the VGs" lvm2 vgcreate -q "$VG" "$D1"
test_ok "LVM2 adds LVs" bash -c "LVM_SYSTEM_DIR='$SCRATCH/lvm' LVM_SUPPRESS_FD_WARNINGS=1 lvm lvcreate -q -an -Zn -L 8m -n l1 $VG && LVM_SYSTEM_DIR='$SCRATCH/lvm' LVM_SUPPRESS_FD_WARNINGS=1 lvm lvcreate -q -an -Zn -L 4m -n l2 $VG"
test_ok "LVM2 builds the second VG" lvm2 vgcreate -q "$VG2" "$D2"

LOG='log/report_command_log=1'
ALL='log/report_command_log=1 log/command_log_selection="all"'

# same CONFIG ARGS...: lvx and LVM2 print the same stdout and exit with the same code
same() {
    local cfg=$1
    shift
    both "$@" --config "$cfg"
    local desc="$* [$cfg]: stdout and exit code as LVM2's"
    if cmp -s "$SCRATCH/l.out" "$SCRATCH/x.out" && cmp -s "$SCRATCH/l.rc" "$SCRATCH/x.rc"; then
        _tap_result 0 "$desc"
    else
        _tap_result 1 "$desc"
        diag "exit codes: LVM2 $(cat "$SCRATCH/l.rc"), lvx $(cat "$SCRATCH/x.rc")"
        diff "$SCRATCH/l.out" "$SCRATCH/x.out" | cut -c1-300 | sed 's/^/#   /' | head -20
    fi
    if sanitizer_report "$SCRATCH/x.err"; then
        _tap_result 1 "$*: no sanitizer report"
        diag "$(head -20 "$SCRATCH/x.err")"
    fi
}

for fmt in json basic; do
    for cmd in "vgs" "vgs $VG nosuch" "vgs nosuch $VG" "lvs" "lvs $VG/l1 $VG/nope" \
        "lvs nosuch/l1" "lvs $VG2" "pvs" "pvs $D1 /dev/nope" "pvs /dev/nope $D1" \
        "pvs --segments" "lvs --segments $VG" "fullreport $VG2" "fullreport nosuch" \
        "vgchange --addtag t1 nosuch" "lvcreate -an -Zn -L 4m -n x1 nosuch" \
        "lvcreate -an -Zn -L 4m -n l1 $VG" "lvcreate -an -Zn -L 400g -n big $VG" \
        "vgchange -an $VG" "lvchange -an $VG/l1"; do
        # shellcheck disable=SC2086
        same "$LOG" $cmd --reportformat "$fmt"
    done
done
# report options shape the log table as they shape the report
same "$LOG" vgs -o vg_name --separator , "$VG2" nosuch
same "$LOG" vgs --noheadings "$VG2"
same "$LOG" lvs --nameprefixes "$VG/l1" "$VG/nope"
# the selection "all": every object's status line, numbered in LVM2's order (VGs named;
# without names LVM2 walks the VGs in its cache's order, which lvx does not copy)
for cmd in "vgs $VG $VG2" "vgs nosuch $VG" "lvs $VG" "lvs $VG/l2 $VG/l1" "lvs -a $VG2 $VG"; do
    # shellcheck disable=SC2086
    same "$ALL" $cmd -o name --separator ,
    # shellcheck disable=SC2086
    same "$ALL" $cmd --reportformat json
done

# changing commands: LVM2 first (then its change undone), lvx the same on the same VG
# change_same DESC UNDO ARGS...
change_same() {
    local desc=$1 undo=$2 rc=0
    shift 2
    lvm2 "$@" --config "$LOG" >"$SCRATCH/l.out" 2>/dev/null || rc=$?
    echo "$rc" >"$SCRATCH/l.rc"
    # shellcheck disable=SC2086
    lvm2 $undo >/dev/null 2>&1
    rc=0
    lvx "$@" --config "$LOG" >"$SCRATCH/x.out" 2>"$SCRATCH/x.err" || rc=$?
    echo "$rc" >"$SCRATCH/x.rc"
    # shellcheck disable=SC2086
    lvm2 $undo >/dev/null 2>&1
    if cmp -s "$SCRATCH/l.out" "$SCRATCH/x.out" && cmp -s "$SCRATCH/l.rc" "$SCRATCH/x.rc"; then
        _tap_result 0 "$desc: stdout and exit code as LVM2's"
    else
        _tap_result 1 "$desc: stdout and exit code as LVM2's"
        diff "$SCRATCH/l.out" "$SCRATCH/x.out" | cut -c1-300 | sed 's/^/#   /' | head -20
    fi
    test_ok "$desc: the change was made" test "$(cat "$SCRATCH/x.rc")" = 0
}
for fmt in json basic; do
    change_same "lvcreate ($fmt)" "lvremove -y $VG/n1" lvcreate -an -Zn -L 4m -n n1 "$VG" \
        --reportformat "$fmt"
    change_same "vgchange --addtag ($fmt)" "vgchange --deltag t9 $VG" vgchange --addtag t9 "$VG" \
        --reportformat "$fmt"
    change_same "lvchange --addtag ($fmt)" "lvchange --deltag t9 $VG/l1" lvchange --addtag t9 \
        "$VG/l1" --reportformat "$fmt"
done
# lvremove: LVM2's lines name the removed LV without name or UUID; the LV's own status
# line (selection "all") carries its UUID, so each side removes an LV it made itself
for fmt in json basic; do
    lvm2 lvcreate -q -an -Zn -L 4m -n r1 "$VG" >/dev/null 2>&1
    rc=0
    lvm2 lvremove -y "$VG/r1" --reportformat "$fmt" --config "$LOG" >"$SCRATCH/l.out" 2>/dev/null || rc=$?
    echo "$rc" >"$SCRATCH/l.rc"
    lvm2 lvcreate -q -an -Zn -L 4m -n r1 "$VG" >/dev/null 2>&1
    rc=0
    lvx lvremove -y "$VG/r1" --reportformat "$fmt" --config "$LOG" >"$SCRATCH/x.out" 2>"$SCRATCH/x.err" || rc=$?
    echo "$rc" >"$SCRATCH/x.rc"
    test_ok "lvremove ($fmt): stdout and exit code as LVM2's" \
        bash -c "cmp '$SCRATCH/l.out' '$SCRATCH/x.out' && cmp '$SCRATCH/l.rc' '$SCRATCH/x.rc'"
done
same "$LOG" lvremove -y "$VG/nope" --reportformat json
same "$LOG" lvchange --addtag t9 nosuch/l1
grep -q '"log_message":"Logical volume \\"n1\\" created."' <(lvx lvcreate -an -Zn -L 4m -n n1 \
    "$VG" --config "$LOG" --reportformat json 2>/dev/null)
test_eq "the print of lvcreate is in the JSON log" "$?" 0
test_eq "... and not printed apart" "$(lvx lvremove -y "$VG/n1" --config "$LOG" 2>&1 | grep -c '^  Logical volume "n1" successfully removed')" 0

# without the setting nothing changes
both vgs nosuch --reportformat json
test_ok "no log without the setting: the error on stderr" grep -q 'Volume group "nosuch" not found' "$SCRATCH/x.err"
test_ok "no log without the setting: stdout as LVM2's" cmp "$SCRATCH/l.out" "$SCRATCH/x.out"

lvm2 vgremove -ff "$VG" "$VG2" >/dev/null 2>&1
done_testing
