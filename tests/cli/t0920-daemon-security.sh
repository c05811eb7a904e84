#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0920-daemon-security: who may use a user-space-activated LV and the lvx daemon
# (docs/design.md "User-space activation", security model).  A non-root user made by
# the test (removed on exit) and an LV active through the daemon; the directories
# above the run directory are left traversable, so only lvx's own protections count:
#   - modes: run directory 0700 root; control.sock, state, lvxd.log, lvxd.pid 0600
#     root; the FUSE mount's root 0700 and its file 0600; the loop device (the LV's
#     block device, /dev/VG/LV) root:disk 0660 like LVM2's nodes;
#   - the user can neither read nor write /dev/VG/LV, the loop device, the FUSE file,
#     the state or log file, nor connect to the control socket; the LV's data is
#     unchanged;
#   - with CAP_DAC_OVERRIDE (the kernel's mode checks bypassed) but not root, the daemon
#     itself refuses the user: control requests (SO_PEERCRED) get "err 13", the FUSE
#     file does not open (fuse_in_header uid), and the refusals are logged;
#   - a run directory others can enter or change (a pre-existing 0755 one, 0750,
#     1777, owned by the user, inside a world-writable directory, a symlink) is refused
#     with one line naming it and its mode, by `lvx daemon start`, activation and
#     `lvx daemon run`, and no daemon file is written into it; made 0700 it works;
#   - the device index kept in the run directory is 0600 and is not written into a
#     directory others can change;
#   - a running daemon whose run directory becomes 0755 refuses requests (client and
#     daemon side) until it is 0700 again.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

need_loop
need_lvx
need_cmd useradd userdel runuser setpriv
[[ -c /dev/fuse ]] || skip_all "no /dev/fuse"

VG=vgsec$$
U=lvxsec$$
t0920_cleanup() {
    if [[ -n ${LVX_RUN_DIR:-} ]]; then
        chmod 0700 "$LVX_RUN_DIR" 2>/dev/null
        "$LVX" vgchange -an "$VG" >/dev/null 2>&1
        uspace_cleanup
    fi
    id "$U" >/dev/null 2>&1 && userdel "$U" 2>/dev/null
    cleanup
}
trap t0920_cleanup EXIT
[[ -e /dev/$VG ]] && skip_all "/dev/$VG exists"
id "$U" >/dev/null 2>&1 && skip_all "user $U exists"
useradd -M -N -s /usr/sbin/nologin "$U" || skip_all "cannot create a user"
UID_U=$(id -u "$U")
GID_U=$(id -g "$U")
as_user() { runuser -u "$U" -- "$@"; }
as_user_dac() {   # uid U, no groups, CAP_DAC_OVERRIDE only
    setpriv --reuid="$UID_U" --regid="$GID_U" --clear-groups --inh-caps=+dac_override \
        --ambient-caps=+dac_override "$@"
}

DEV=$(make_loop 200M)
uspace_env "$SCRATCH/us" "$DEV"
RUN=$LVX_RUN_DIR
chmod 0711 "$SCRATCH" "$SCRATCH/us"   # traversable: the run directory must protect itself

test_ok "pvcreate" lvx pvcreate -q "$DEV"
test_ok "vgcreate $VG" lvx vgcreate -q "$VG" "$DEV"
test_ok "lvcreate lv1 (activated by the daemon)" lvx lvcreate -q -Zn -n lv1 -L 16m "$VG"
LOOP=$(readlink "/dev/$VG/lv1")
FILE=$RUN/vol/$VG-lv1
head -c 1M /dev/urandom >"$SCRATCH/data"
chmod 0600 "$SCRATCH/data"
test_ok "root writes 1 MiB through /dev/$VG/lv1" dd if="$SCRATCH/data" of="/dev/$VG/lv1" bs=1M \
    oflag=direct conv=fsync status=none
sum=$(sha256sum <"$SCRATCH/data")

# ------------------------------------------------------------ modes
test_eq "run directory: 0700 root" "700 root" "$(stat -c '%a %U' "$RUN")"
for f in control.sock state lvxd.log lvxd.pid; do
    test_eq "$f: 0600 root" "600 root" "$(stat -c '%a %U' "$RUN/$f")"
done
test_eq "FUSE mount root: 0700 root" "700 root" "$(stat -c '%a %U' "$RUN/vol")"
test_eq "FUSE file: 0600 root" "600 root" "$(stat -c '%a %U' "$FILE")"
test_eq "the loop device: root:disk 0660" "root disk 660" "$(stat -L -c '%U %G %a' "/dev/$VG/lv1")"
test_eq "/dev/mapper/$VG-lv1 is the same device" "$LOOP" "$(readlink "/dev/mapper/$VG-lv1")"

# ------------------------------------------------------------ a plain user
for dev in "/dev/$VG/lv1" "$LOOP" "$FILE"; do
    test_fail "$U cannot read $dev" as_user dd if="$dev" of=/dev/null bs=4k count=1 status=none
    test_fail "$U cannot write $dev" as_user dd if=/dev/zero of="$dev" bs=4k count=1 \
        conv=notrunc status=none
done
for f in state lvxd.log lvxd.pid; do
    test_fail "$U cannot read $f" as_user cat "$RUN/$f"
done
test_fail "$U cannot list the run directory" as_user ls "$RUN"
SOCK_PY='
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    s.connect(sys.argv[1])
except OSError as e:
    print("connect:", e.strerror); sys.exit(1)
s.sendall(sys.argv[2].encode() + b"\n")
s.shutdown(socket.SHUT_WR)
print(s.makefile().read().strip())
'
test_fail "$U cannot connect to the control socket" as_user "$PYTHON" -c "$SOCK_PY" "$RUN/control.sock" list
as_user "$LVX" daemon status >"$SCRATCH/out" 2>&1
rc=$?
test_ok "lvx daemon status as $U fails" test "$rc" -ne 0
test_ok "... saying permission is denied" grep -q "Permission denied" "$SCRATCH/out"

# ------------------------------------------------------------ the daemon's own checks
test_ok "with CAP_DAC_OVERRIDE the modes are bypassed (the state file reads)" \
    as_user_dac cat "$RUN/state"
reply=$(as_user_dac "$PYTHON" -c "$SOCK_PY" "$RUN/control.sock" list 2>&1)
test_eq "... but the daemon refuses its control request (SO_PEERCRED)" "err 13" "${reply:0:6}"
reply=$(as_user_dac "$PYTHON" -c "$SOCK_PY" "$RUN/control.sock" "deactivate $VG lv1 1" 2>&1)
test_eq "... also a deactivation" "err 13" "${reply:0:6}"
test_eq "lv1 is still active" "active" "$(lvx lvs --noheadings -o lv_active "$VG/lv1" | tr -d ' ')"
OPEN_PY='
import errno, os, sys
try:
    os.close(os.open(sys.argv[1], os.O_RDONLY))
    print("opened")
except OSError as e:
    print(errno.errorcode[e.errno])
'
test_eq "... and the FUSE file does not open for it (fuse_in_header uid)" "EACCES" \
    "$(as_user_dac "$PYTHON" -c "$OPEN_PY" "$FILE")"
test_ok "the refusals are logged with the caller's uid" \
    grep -q "refused .* from uid $UID_U " "$RUN/lvxd.log"
reply=$("$PYTHON" -c "$SOCK_PY" "$RUN/control.sock" ping)
test_eq "root's requests are answered" "ok" "${reply:0:2}"
test_eq "the LV's data is unchanged" "$sum" \
    "$(dd if="/dev/$VG/lv1" bs=1M count=1 iflag=direct status=none | sha256sum)"

# ------------------------------------------------------------ unsafe run directories
# refused RUNDIR MODE-TEXT DESCRIPTION: lvx daemon start, activation and lvx daemon run
# fail with one line naming RUNDIR (and MODE-TEXT); no daemon file is written into
# RUNDIR (the device index, 0600, may be: it only needs a directory nobody else can
# change)
daemon_files() { ls -A "$1" 2>/dev/null | grep -v '^index' | sort | tr '\n' ' '; }
refused() {
    local dir=$1 text=$2 desc=$3 before after rc
    before=$(daemon_files "$dir")
    LVX_RUN_DIR=$dir lvx daemon start >"$SCRATCH/out" 2>&1
    rc=$?
    test_eq "$desc: lvx daemon start fails (5)" "5" "$rc"
    test_ok "... with one line naming $dir${text:+ and $text}" \
        sh -c "test \$(wc -l <'$SCRATCH/out') -eq 1 && grep -qF '$dir' '$SCRATCH/out' && grep -qF -- '$text' '$SCRATCH/out'"
    _diag_file "output" "$SCRATCH/out"
    LVX_RUN_DIR=$dir lvx lvchange -ay "$VG/lv2" >"$SCRATCH/out" 2>&1
    test_ok "$desc: activation fails, naming $dir" \
        sh -c "test $? -ne 0 && grep -qF '$dir' '$SCRATCH/out'"
    LVX_RUN_DIR=$dir timeout 20 "$LVX" daemon run >"$SCRATCH/out" 2>&1
    test_ok "$desc: lvx daemon run fails, naming $dir" \
        sh -c "test $? -ne 0 -a $? -ne 124 && grep -qF '$dir' '$SCRATCH/out'"
    after=$(daemon_files "$dir")
    test_eq "$desc: no daemon file written into it" "$before" "$after"
    test_ok "$desc: an index file there is 0600" \
        sh -c "! find '$dir/' -maxdepth 1 -name 'index*' ! -perm 0600 | grep -q ."
}
test_ok "lvcreate lv2 (not activated)" lvx lvcreate -q -an -Zn -n lv2 -L 8m "$VG"
R2=$SCRATCH/us/run2
mkdir -m 0755 "$R2"
refused "$R2" "mode 0755" "a pre-existing 0755 run directory"
test_fail "... no daemon answers there" test -e "$R2/control.sock"
test_ok "... no loop device on its files" sh -c "! losetup -a | grep -qF '$R2/'"
chmod 0750 "$R2"
refused "$R2" "mode 0750" "a 0750 run directory"
rm -f "$R2"/index*
chmod 1777 "$R2"
refused "$R2" "mode 1777" "a 1777 run directory"
test_fail "... no device index written into it (others can change it)" \
    sh -c "ls -A '$R2' | grep -q '^index'"
chmod 0700 "$R2"
chown "$U" "$R2"
refused "$R2" "uid $UID_U" "a run directory of $U"
chown root "$R2"
mkdir -m 0777 "$SCRATCH/us/open"
mkdir -m 0700 "$SCRATCH/us/open/run"
refused "$SCRATCH/us/open/run" "$SCRATCH/us/open" "a run directory inside a 0777 directory"
test_fail "... no device index written into it" sh -c "ls -A '$SCRATCH/us/open/run' | grep -q ."
ln -s "$R2" "$SCRATCH/us/link"
refused "$SCRATCH/us/link" "symbolic link" "a symlink as run directory"
test_ok "made 0700, the run directory is used" env LVX_RUN_DIR="$R2" "$LVX" daemon start
test_ok "... its daemon answers" env LVX_RUN_DIR="$R2" "$LVX" daemon status
test_ok "... and stops" env LVX_RUN_DIR="$R2" "$LVX" daemon stop
for i in $(seq 50); do [[ -e $R2/lvxd.pid ]] || break; sleep 0.1; done

# ------------------------------------------------------------ a run directory made unsafe later
chmod 0755 "$RUN"
lvx daemon status >"$SCRATCH/out" 2>&1
rc=$?
test_ok "run directory made 0755: lvx daemon status refuses" \
    sh -c "test $rc -ne 0 && grep -qF '$RUN has mode 0755' '$SCRATCH/out'"
reply=$("$PYTHON" -c "$SOCK_PY" "$RUN/control.sock" list)
test_ok "... and so does the daemon (\"${reply:0:40}...\")" \
    sh -c "echo '$reply' | grep -q '^err .*has mode 0755'"
chmod 0700 "$RUN"
test_ok "0700 again: lvx daemon status works" lvx daemon status

# ------------------------------------------------------------ cleanup
test_ok "vgchange -an" lvx vgchange -an "$VG"
test_ok "vgremove" lvx vgremove -q -f "$VG"
test_ok "lvx daemon stop" lvx daemon stop
for i in $(seq 50); do [[ -z $(uspace_daemon_pids) ]] && break; sleep 0.1; done
uspace_leftovers >"$SCRATCH/left" 2>&1
test_ok "no loop device, mount or daemon left behind" test ! -s "$SCRATCH/left"
_diag_file "left" "$SCRATCH/left"
done_testing
