#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0422-config-parse: malformed configuration text is refused before the command runs,
# as LVM2 does, compared with LVM2 on a vgcreate that would otherwise write:
#   --config: unterminated list, unterminated section, stray '}', missing value, bad
#             array commas, a section as a value, a name without '=', values that start
#             like numbers and are none (1; 1e5 0x10 1.2.3 --1), an empty text and one
#             of only comments: exit 3 (EINVALID_CMD_LINE), one lvx line, no write;
#   lvm.conf: the same kinds of damage: exit 4 (EINIT_FAILED), the file named, no write.
# lvx only: sections nested 5000 deep (--config) and 100000 deep (lvm.conf) are refused
# at the parser's depth limit (64) with exit 3 / 4 and no crash.  LVM2 accepts the 5000
# levels of --config (it recurses without a limit), so that exit code is not compared.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_loop
need_cmd lvm timeout
need_lvx
plan_later

D1=$(make_loop 64M) || skip_all "cannot make a loop device"
lvm_sandbox "$D1"
VG=vg422_$$
lx() { LVM_SYSTEM_DIR="${SYSDIR:-$SCRATCH/lvm}" timeout 60 "$LVX" "$@" --devices "$D1"; }
l2() { timeout 60 env LVM_SYSTEM_DIR="${SYSDIR:-$SCRATCH/lvm}" LVM_SUPPRESS_FD_WARNINGS=1 lvm "$@"; }

test_ok "setup: LVM2 pvcreate" lvm2 pvcreate "$D1"

# compare WHAT WANT_RC LVX_RE ARGS...: LVM2 and lvx both exit WANT_RC, lvx prints one
# line matching LVX_RE, the device is unchanged by either.
compare() {
    local what=$1 want=$2 re=$3 rc_lvx=0 rc_lvm=0
    shift 3
    sha_devs "$D1" >"$SCRATCH/sha.before"
    l2 "$@" >/dev/null 2>"$SCRATCH/lvm.err" || rc_lvm=$?
    lx "$@" >/dev/null 2>"$SCRATCH/lvx.err" || rc_lvx=$?
    test_eq "$what: LVM2 exits $want" "$rc_lvm" "$want"
    test_eq "$what: lvx exits as LVM2" "$rc_lvx" "$rc_lvm"
    if [[ $(grep -c '' "$SCRATCH/lvx.err") == 1 ]] && grep -Eq -- "$re" "$SCRATCH/lvx.err"; then
        _tap_result 0 "$what: one clear line"
    else
        _tap_result 1 "$what: one clear line"
        diag "want one line matching: $re"
        _diag_file "lvx stderr" "$SCRATCH/lvx.err"
    fi
    sanitizer_report "$SCRATCH/lvx.err" && _tap_result 1 "$what: sanitizer report"
    test_eq "$what: device unchanged" "$(sha_devs "$D1")" "$(cat "$SCRATCH/sha.before")"
}

# ---- --config
bad_config=(
    'devices { filter = [ "a|x|" '
    'global {'
    'a=1 }'
    'a='
    'a=[1,'
    'a=[1,,2]'
    'a=[,1]'
    'a=]'
    'a={}'
    'a{b=1'
    'a=1 b'
    'a 1'
    '='
    'a=b c'
    'a=[1 2]'
    'a=1;'
    'a=--1'
    'a=1.2.3'
    'a=1e5'
    'a=0x10'
)
for text in "${bad_config[@]}"; do
    compare "--config '$text'" 3 '^  --config: Parse error at line 1: ' \
        vgcreate --config "$text" "$VG" "$D1"
done
compare "--config ''" 3 '^  --config: the text holds no setting$' vgcreate --config '' "$VG" "$D1"
compare "--config '# only a comment'" 3 '^  --config: the text holds no setting$' \
    vgcreate --config '# only a comment' "$VG" "$D1"

deep=$(printf 'a{%.0s' $(seq 5000); printf '}%.0s' $(seq 5000))
sha_devs "$D1" >"$SCRATCH/sha.before"
rc=0
lx vgcreate --config "$deep" "$VG" "$D1" >/dev/null 2>"$SCRATCH/.err" || rc=$?
test_eq "--config nested 5000 deep: exit 3" "$rc" 3
test_eq "--config nested 5000 deep: the limit named" "$(cat "$SCRATCH/.err")" \
    "  --config: Parse error at line 1: nesting too deep (more than 64 levels)"
test_eq "--config nested 5000 deep: device unchanged" "$(sha_devs "$D1")" "$(cat "$SCRATCH/sha.before")"

# ---- lvm.conf
mkdir -p "$SCRATCH/bad"
bad_file() {  # bad_file DESCRIPTION TEXT-APPENDED-TO-THE-SANDBOX-LVM.CONF
    cp "$SCRATCH/lvm/lvm.conf" "$SCRATCH/bad/lvm.conf"
    printf '%s\n' "$2" >>"$SCRATCH/bad/lvm.conf"
    SYSDIR="$SCRATCH/bad" compare "lvm.conf $1" 4 "^  $SCRATCH/bad/lvm.conf: Parse error at line [0-9]+: " \
        vgcreate "$VG" "$D1"
}
bad_file "with an unterminated list" 'devices { filter = [ "a|x|" '
bad_file "with an unterminated section" 'log {'
bad_file "with a stray '}'" 'a = 1 }'
bad_file "with a missing value" 'log { verbose = }'
bad_file "with a name without '='" 'log { verbose 1 }'

python3 -c 'import sys; sys.stdout.write("a{" * 100000 + "}" * 100000 + "\n")' >"$SCRATCH/bad/lvm.conf"
sha_devs "$D1" >"$SCRATCH/sha.before"
rc=0
SYSDIR="$SCRATCH/bad" lx vgcreate "$VG" "$D1" >/dev/null 2>"$SCRATCH/.err" || rc=$?
test_eq "lvm.conf nested 100000 deep: exit 4 (no stack overflow)" "$rc" 4
test_eq "lvm.conf nested 100000 deep: the limit named" "$(cat "$SCRATCH/.err")" \
    "  $SCRATCH/bad/lvm.conf: Parse error at line 1: nesting too deep (more than 64 levels)"
test_eq "lvm.conf nested 100000 deep: device unchanged" "$(sha_devs "$D1")" "$(cat "$SCRATCH/sha.before")"

# controls: the same command with good configuration works, and `version` is not
# stopped by a bad lvm.conf (as LVM2)
test_ok "control: lvx version with a bad lvm.conf" env LVM_SYSTEM_DIR="$SCRATCH/bad" "$LVX" version
test_ok "control: vgcreate with a good --config" lx vgcreate --config 'log { verbose = 0 }' "$VG" "$D1"
test_ok "cleanup: vgremove" lx vgremove -f "$VG"
done_testing
