#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0841-shell-protocol: the shell as programs drive it (lvm2-dbusd's shell mode,
# lvmdbusd/lvm_shell_proxy.py).
#  1. LVM_REPORT_FD with lvm2-dbusd's command profile (LVM_COMMAND_PROFILE=lvmdbusd):
#     the same command script through LVM2's shell and lvx's, what each wrote to the
#     report descriptor compared object by object (tests/tools/report_fd_norm.py: the
#     reports, the shell status entries without log_seq_num, the error messages; LVM2's
#     own extra items left out); without the profile (no command log) the report text
#     written there byte for byte, and nothing of it on stdout.
#  2. lvm_shell_proxy.LVMShellProxy itself driving lvx (tests/tools/shell_proxy_drive.py):
#     prompt, report FIFO, log_ret_code, lastlog's error message, changes.  LVM2 cannot be
#     driven so here: Debian's build (editline) prints no prompt on a pipe.
#  3. The "lvm> " prompt on a pipe when run as `lvm` or with LVM_REPORT_FD; none for
#     `lvx shell` without it (as LVM2); `lastlog` outside a shell as LVM2 (exit 5).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_loop
need_cmd lvm bash "$PYTHON"
need_lvx
plan_later

run_lvm() { LVM_SUPPRESS_FD_WARNINGS=1 lvm "$@"; }
D1=$(make_loop 64M) && D2=$(make_loop 64M) || { _tap_result 1 "attach two loop devices"; done_testing; }
lvm_sandbox "$D1" "$D2"
VG=shp$$
test_ok "LVM2 builds the VG" run_lvm vgcreate -q "$VG" "$D1" "$D2"
test_ok "LVM2 adds an LV" run_lvm lvcreate -q -an -Zn -L 8m -n l1 "$VG"
PROFILE=/etc/lvm/profile/lvmdbusd.profile

cat >"$SCRATCH/cmds" <<CMDS
vgs -o vg_name,vg_size --units b --nosuffix --reportformat json
lvs nosuchvg
lastlog
lvs -o lv_name,lv_size --units b --nosuffix --reportformat json $VG
fullreport -a --configreport vg -o vg_name --configreport pv -o pv_name --configreport lv -o lv_name --configreport seg -o segtype,seg_pe_ranges --configreport pvseg -o pvseg_start,pvseg_size --reportformat json
pvs -o pv_name,pv_size --reportformat json
vgs nosuchvg
lastlog
exit
CMDS

# run_shell BIN TAG [ENV...]: the script through BIN's shell, report descriptor 32
run_shell() {
    local bin=$1 tag=$2
    shift 2
    env LVM_SUPPRESS_FD_WARNINGS=1 LVM_REPORT_FD=32 "$@" bash -c \
        "'$bin' 32>'$SCRATCH/rep.$tag' <'$SCRATCH/cmds' >'$SCRATCH/out.$tag' 2>'$SCRATCH/err.$tag'"
}

if [[ -f $PROFILE ]]; then
    mkdir -p "$SCRATCH/lvm/profile" && cp "$PROFILE" "$SCRATCH/lvm/profile/"
    run_shell "$(command -v lvm)" lvm LVM_COMMAND_PROFILE=lvmdbusd
    run_shell "$LVX" lvx LVM_COMMAND_PROFILE=lvmdbusd
    "$PYTHON" "$LVX_ROOT/tests/tools/report_fd_norm.py" "$SCRATCH/rep.lvm" >"$SCRATCH/n.lvm"
    "$PYTHON" "$LVX_ROOT/tests/tools/report_fd_norm.py" "$SCRATCH/rep.lvx" >"$SCRATCH/n.lvx"
    test_eq "dbusd profile: LVM2 wrote one JSON object per command and lastlog" \
        "$(wc -l <"$SCRATCH/n.lvm")" 9
    if cmp -s "$SCRATCH/n.lvm" "$SCRATCH/n.lvx"; then
        _tap_result 0 "dbusd profile: lvx writes to LVM_REPORT_FD what LVM2 writes"
    else
        _tap_result 1 "dbusd profile: lvx writes to LVM_REPORT_FD what LVM2 writes"
        diff "$SCRATCH/n.lvm" "$SCRATCH/n.lvx" | cut -c1-300 | sed 's/^/#   /'
    fi
    test_ok "dbusd profile: no sanitizer report" bash -c "! grep -q Sanitizer '$SCRATCH/err.lvx'"
    test_eq "dbusd profile: the messages are in the log, not on stderr" \
        "$(grep -v 'Activation disabled' "$SCRATCH/err.lvx")" ""
    test_eq "dbusd profile: stdout has only the prompts" "$(cat "$SCRATCH/out.lvx")" \
        "$(printf 'lvm> %.0s' 1 2 3 4 5 6 7 8 9)"
    grep -q '"log_message":"Exiting."' "$SCRATCH/rep.lvx"
    test_eq "dbusd profile: exit is logged as LVM2 does" "$?" 0
else
    test_skip "dbusd profile comparisons" "$PROFILE not installed (lvm2-dbusd)"
fi

# without a command log: the report text goes to the descriptor as it is
cat >"$SCRATCH/cmds" <<CMDS
vgs -o vg_name,pv_count,lv_count
lvs -o lv_name,lv_size $VG
pvs --nameprefixes -o pv_name,vg_name
CMDS
run_shell "$(command -v lvm)" lvm
run_shell "$LVX" lvx
test_ok "no command log: the reports on LVM_REPORT_FD are LVM2's, byte for byte" \
    cmp "$SCRATCH/rep.lvm" "$SCRATCH/rep.lvx"
test_ok "no command log: LVM2 wrote reports there" grep -q "$VG" "$SCRATCH/rep.lvm"
test_eq "no command log: nothing but prompts and the end on stdout" \
    "$(cat "$SCRATCH/out.lvx")" "$(printf 'lvm> lvm> lvm> lvm> \n')"

# lvm2-dbusd's own proxy driving lvx
if [[ -f /usr/lib/python3/dist-packages/lvmdbusd/lvm_shell_proxy.py && -f $PROFILE ]]; then
    out=$(cd "$SCRATCH" && timeout 300 /usr/bin/python3 "$LVX_ROOT/tests/tools/shell_proxy_drive.py" \
        "$LVX" "$VG" "$D1" 2>"$SCRATCH/proxy.err")
    n=0
    while read -r line; do
        [[ $line == ok* || $line == "not ok"* ]] || continue
        n=$((n + 1))
        if [[ $line == ok* ]]; then _tap_result 0 "lvm_shell_proxy: ${line#ok }"
        else _tap_result 1 "lvm_shell_proxy: ${line#not ok }"; fi
    done <<<"$out"
    test_eq "lvm_shell_proxy: all 15 checks ran" "$n" 15 || _diag_file stderr "$SCRATCH/proxy.err"
else
    test_skip "lvm_shell_proxy drives lvx" "lvm2-dbusd not installed"
fi

# the prompt
mkdir -p "$SCRATCH/bin" && ln -sf "$LVX" "$SCRATCH/bin/lvm"
out=$(printf 'vgs -o vg_name %s\n' "$VG" | "$SCRATCH/bin/lvm" 2>/dev/null)
test_eq "run as lvm on a pipe: the 'lvm> ' prompt before each line" "$out" \
    "lvm> $(lvx vgs -o vg_name "$VG" 2>/dev/null)
lvm> "
out=$(printf 'vgs -o vg_name %s\n' "$VG" | lvx shell 2>/dev/null)
test_ok "lvx shell on a pipe without LVM_REPORT_FD: no prompt (as LVM2)" \
    bash -c "! grep -q 'lvm>' <<<'$out'"

lrc=0; xrc=0
lerr=$(run_lvm lastlog 2>&1 | grep -v 'Activation disabled') || true
run_lvm lastlog >/dev/null 2>&1 || lrc=$?
xerr=$(lvx lastlog 2>&1) || xrc=$?
test_eq "lastlog outside a shell: LVM2's exit status" "$xrc" "$lrc"
test_eq "lastlog outside a shell: LVM2's message" "$xerr" "$lerr"
done_testing
