#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0420-file-input: files lvx reads whole are bounded in type and size (util/file.h).
# Compared with LVM2 where it applies: vgcfgrestore -f and pvcreate --restorefile of
# /dev/zero, a directory, a FIFO and a missing file, and an lvm.conf that is a
# directory or a link to /dev/zero, each give LVM2's exit code and the same key phrase
# ("... is not a regular file", "stat failed"), return at once and write nothing.
# lvx only: a backup file over the 128 MiB cap is refused without being read; a device
# index that is a link to /dev/zero is ignored (the command still works); a shell script
# of /dev/zero ends with an error instead of growing memory.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_loop
need_cmd lvm timeout mkfifo
need_lvx
plan_later

D1=$(make_loop 64M) || skip_all "cannot make a loop device"
lvm_sandbox "$D1"
VG=vg420_$$
# every run under a timeout: a hang is exit 124, never an expected code
lx() { LVM_SYSTEM_DIR="$SCRATCH/lvm" timeout 60 "$LVX" "$@" --devices "$D1"; }
l2() { timeout 60 env LVM_SYSTEM_DIR="$SCRATCH/lvm" LVM_SUPPRESS_FD_WARNINGS=1 lvm "$@"; }

test_ok "setup: LVM2 pvcreate" lvm2 pvcreate "$D1"
test_ok "setup: lvx vgcreate" lx vgcreate "$VG" "$D1"
test_ok "setup: lvx vgcfgbackup" lx vgcfgbackup -f "$SCRATCH/good.vg" "$VG"
UUID=$(lx pvs --noheadings -o pv_uuid "$D1" | tr -d ' ')

# like_lvm2 DESCRIPTION PHRASE ARGS...: lvx and LVM2 exit with the same non-zero code,
# lvx prints exactly one line, both print PHRASE, the device is unchanged.
like_lvm2() {
    local what=$1 phrase=$2 rc_lvx=0 rc_lvm=0
    shift 2
    sha_devs "$D1" >"$SCRATCH/sha.before"
    l2 "$@" >"$SCRATCH/lvm.out" 2>"$SCRATCH/lvm.err" || rc_lvm=$?
    lx "$@" >"$SCRATCH/lvx.out" 2>"$SCRATCH/lvx.err" || rc_lvx=$?
    test_eq "$what: exit code as LVM2 ($rc_lvm)" "$rc_lvx" "$rc_lvm"
    if [[ $rc_lvm == 0 ]]; then
        _tap_result 1 "$what: LVM2 refuses it"
    else
        _tap_result 0 "$what: LVM2 refuses it"
    fi
    if [[ $(grep -c '' "$SCRATCH/lvx.err") == 1 ]] && grep -qF -- "$phrase" "$SCRATCH/lvx.err" &&
        grep -qF -- "$phrase" "$SCRATCH/lvm.err"; then
        _tap_result 0 "$what: one line, LVM2's words"
    else
        _tap_result 1 "$what: one line, LVM2's words"
        diag "want (in both): $phrase"
        _diag_file "lvx stderr" "$SCRATCH/lvx.err"
        _diag_file "LVM2 stderr" "$SCRATCH/lvm.err"
    fi
    sanitizer_report "$SCRATCH/lvx.err" && _tap_result 1 "$what: sanitizer report"
    sha_devs "$D1" >"$SCRATCH/sha.after"
    test_eq "$what: device unchanged" "$(cat "$SCRATCH/sha.after")" "$(cat "$SCRATCH/sha.before")"
}

mkfifo "$SCRATCH/fifo"
mkdir "$SCRATCH/adir"
like_lvm2 "vgcfgrestore -f /dev/zero" "/dev/zero is not a regular file" \
    vgcfgrestore -f /dev/zero "$VG"
like_lvm2 "vgcfgrestore -f DIRECTORY" "$SCRATCH/adir is not a regular file" \
    vgcfgrestore -f "$SCRATCH/adir" "$VG"
like_lvm2 "vgcfgrestore -f FIFO" "$SCRATCH/fifo is not a regular file" \
    vgcfgrestore -f "$SCRATCH/fifo" "$VG"
like_lvm2 "vgcfgrestore -f MISSING" "$SCRATCH/none: stat failed: No such file or directory" \
    vgcfgrestore -f "$SCRATCH/none" "$VG"
like_lvm2 "pvcreate --restorefile /dev/zero" "/dev/zero is not a regular file" \
    pvcreate -ff -y --restorefile /dev/zero --uuid "$UUID" "$D1"
like_lvm2 "pvcreate --restorefile MISSING" "$SCRATCH/none: stat failed: No such file or directory" \
    pvcreate -ff -y --restorefile "$SCRATCH/none" --uuid "$UUID" "$D1"

# over the cap (128 MiB): refused from its size, nothing read; LVM2 fails too (parse)
truncate -s 129M "$SCRATCH/big.vg"
sha_devs "$D1" >"$SCRATCH/sha.before"
rc_lvm=0
l2 vgcfgrestore -f "$SCRATCH/big.vg" "$VG" >/dev/null 2>&1 || rc_lvm=$?
rc=0
lx vgcfgrestore -f "$SCRATCH/big.vg" "$VG" >"$SCRATCH/.out" 2>"$SCRATCH/.err" || rc=$?
test_eq "vgcfgrestore of a 129 MiB file: exit code as LVM2" "$rc" "$rc_lvm"
test_eq "vgcfgrestore of a 129 MiB file: the cap named" "$(cat "$SCRATCH/.err")" \
    "  $SCRATCH/big.vg is larger than 134217728 bytes"
test_eq "vgcfgrestore of a 129 MiB file: device unchanged" "$(sha_devs "$D1")" "$(cat "$SCRATCH/sha.before")"
test_ok "control: the real backup restores" lx vgcfgrestore -f "$SCRATCH/good.vg" "$VG"

# lvm.conf that is not a regular file: exit 4 (EINIT_FAILED) before anything is scanned
conf_case() {  # conf_case DESCRIPTION (with $SCRATCH/bad/lvm.conf in place)
    local rc_lvm=0 rc=0
    LVM_SYSTEM_DIR="$SCRATCH/bad" LVM_SUPPRESS_FD_WARNINGS=1 timeout 60 lvm vgs \
        >/dev/null 2>"$SCRATCH/lvm.err" || rc_lvm=$?
    LVM_SYSTEM_DIR="$SCRATCH/bad" timeout 60 "$LVX" vgs --devices "$D1" \
        >/dev/null 2>"$SCRATCH/lvx.err" || rc=$?
    test_eq "$1: exit code as LVM2" "$rc" "$rc_lvm"
    test_eq "$1: exit code 4" "$rc" 4
    if grep -qF "$SCRATCH/bad/lvm.conf is not a regular file" "$SCRATCH/lvx.err" &&
        grep -qF "$SCRATCH/bad/lvm.conf is not a regular file" "$SCRATCH/lvm.err" &&
        [[ $(grep -c '' "$SCRATCH/lvx.err") == 1 ]]; then
        _tap_result 0 "$1: one line, LVM2's words"
    else
        _tap_result 1 "$1: one line, LVM2's words"
        _diag_file "lvx stderr" "$SCRATCH/lvx.err"
        _diag_file "LVM2 stderr" "$SCRATCH/lvm.err"
    fi
}
mkdir -p "$SCRATCH/bad/lvm.conf"
conf_case "lvm.conf is a directory"
rmdir "$SCRATCH/bad/lvm.conf"
ln -s /dev/zero "$SCRATCH/bad/lvm.conf"
conf_case "lvm.conf links to /dev/zero"

# the device index (lvx's own file) replaced by a link to /dev/zero: ignored
mkdir -p "$LVX_RUN_DIR"
rm -f "$LVX_RUN_DIR/index"
ln -s /dev/zero "$LVX_RUN_DIR/index"
test_ok "index linked to /dev/zero: vgs VG still works" lx vgs "$VG"
grep -q "$VG" "$SCRATCH/.out"
test_eq "index linked to /dev/zero: the VG is listed" "$?" 0

# a script of /dev/zero: one endless line, refused at the line cap
rc=0
LVM_SYSTEM_DIR="$SCRATCH/lvm" timeout 60 "$LVX" shell /dev/zero >/dev/null 2>"$SCRATCH/.err" || rc=$?
test_eq "lvx shell /dev/zero: exit 5 (not a hang, not out of memory)" "$rc" 5
test_eq "lvx shell /dev/zero: the line cap named" "$(cat "$SCRATCH/.err")" \
    "  Input line longer than 2097152 bytes: input ends here."

test_ok "cleanup: vgremove" lx vgremove -f "$VG"
done_testing
