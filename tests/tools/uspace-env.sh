# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# tests/tools/uspace-env.sh - sourced by the tests, demo and benchmark of user-space
# activation (the lvx daemon: FUSE + loop devices).  Needs $LVX (the lvx binary).
#   uspace_env DIR DEV...   private daemon run dir (0700), lock dir and lvm.conf (seeing only
#                           DEV...) under DIR; user backend forced
#   uspace_daemon_pids      "supervisor worker" pids of the running daemon (or nothing)
#   uspace_kill_daemon      SIGKILL of the daemon's supervisor and worker (a crash), then
#                           waits up to 5 s for them to be gone
#   uspace_stop_daemon VG   a clean stop: VG deactivated, `lvx daemon stop`, waits up to
#                           10 s for the daemon to be gone (output in SCRATCH/stop.out)
#   uspace_cleanup          unmount DIR/mnt*, stop the daemon (forced), kill it by pid if
#                           it does not stop, unmount its FUSE mount; safe to call twice
#   uspace_leftovers        prints what is left (loop devices on the daemon's files,
#                           mounts, daemon processes); empty when clean
#   uspace_test_env VG DEV...  for tests (after lib.sh): uspace_env $SCRATCH/us DEV...,
#                           activation/monitoring = 0 (as LVM2's test suite's lvm.conf: no
#                           dmeventd-like repair of the legs a test fails on purpose, no
#                           autoextend behind its back), a private DM_DEV_DIR
#                           ($SCRATCH/dev), LVM2's sandbox, and an EXIT trap deactivating
#                           VG, cleaning up the daemon, then lib.sh's cleanup
#   uspace_activation LINE...  the lvm.conf's activation section made of LINE... (none:
#                           no section, LVM2's defaults): a test of the daemon's monitor
#                           turns it on with uspace_activation "monitoring = 1" (as LVM2's
#                           aux prepare_dmeventd)
#   uspace_test_loops VG N SIZE  the checks such a test needs, N loop devices of SIZE in
#                           DEVS, then uspace_test_env VG over them
#   uspace_run_ok DESC CMD...  TAP: ok when CMD exits 0 (its output shown otherwise)
#   uspace_need_host        skips the test unless the user backend can run here (loop
#                           devices, lvx, LVM2, /dev/fuse)
# For the tests that hand disk images to a kvm-dm-test guest (--disk-dir $DISKS):
#   uspace_need_guest       skips the test unless it can run (root, loop devices, lvx
#                           and its plain build, LVM2, QEMU, /dev/fuse; LVX_SKIP_KERNEL)
#   uspace_images L...      sparse 256 MiB images $DISKS/vdL.img (DISKS=$SCRATCH/disks)
#   uspace_attach L...      those images as loop devices, in D[] (skips the test when it
#                           cannot)
#   fsum FILE, lv_sum VG/LV  sha256 of a file, of an LV read through $DM_DEV_DIR (O_DIRECT)
#   field VG/LV FIELD       one lvs field of lvx's, blanks removed
#   uspace_hold NAME VG/LV  a background process keeps VG/LV's device open (read-only, not
#                           exclusive) until uspace_unhold NAME
#   fs_gone VG/LV           TAP check after a umount: the LV's device is open nowhere (the
#                           filesystem really ended); else the pids whose mount namespace
#                           still has it mounted

uspace_env() {
    local dir=$1 dev accept=""
    shift
    USPACE_DIR=$dir
    mkdir -p "$dir/etc" "$dir/lock"
    mkdir -p -m 0700 "$dir/run"   # lvx refuses a run directory others can enter
    for dev in "$@"; do accept+="\"a|^${dev}\$|\", "; done
    USPACE_ACCEPT=$accept
    uspace_activation
    export LVX_RUN_DIR=$dir/run LVX_LOCK_DIR=$dir/lock LVM_SYSTEM_DIR=$dir/etc
    export LVX_ACTIVATION_BACKEND=user
}

uspace_activation() {
    local line
    {
        printf 'devices {\n    global_filter = [ %s"r|.*|" ]\n}\n' "$USPACE_ACCEPT"
        printf 'backup {\n    backup = 0\n    archive = 0\n}\n'
        if [[ $# -gt 0 ]]; then
            printf 'activation {\n'
            for line in "$@"; do
                if [[ -n $line ]]; then printf '    %s\n' "$line"; fi
            done
            printf '}\n'
        fi
    } >"$USPACE_DIR/etc/lvm.conf.new"
    mv -f "$USPACE_DIR/etc/lvm.conf.new" "$USPACE_DIR/etc/lvm.conf"
}

uspace_daemon_pids() {
    local pidfile=$LVX_RUN_DIR/lvxd.pid sup
    [[ -f $pidfile ]] || return 0
    sup=$(cat "$pidfile" 2>/dev/null)
    [[ -n $sup && -d /proc/$sup ]] || return 0
    printf '%s %s\n' "$sup" "$(cat "/proc/$sup/task/$sup/children" 2>/dev/null)"
}

uspace_kill_daemon() {
    local sup worker
    read -r sup worker <<<"$(uspace_daemon_pids)"
    [[ -n $sup ]] && kill -9 "$sup" ${worker:+"$worker"}
    for _ in $(seq 50); do [[ -z $(uspace_daemon_pids) ]] && break; sleep 0.1; done
}

uspace_stop_daemon() {
    "$LVX" vgchange -an "$1" >"$SCRATCH/stop.out" 2>&1
    "$LVX" daemon stop >>"$SCRATCH/stop.out" 2>&1
    for _ in $(seq 100); do [[ -z $(uspace_daemon_pids) ]] && break; sleep 0.1; done
}

uspace_cleanup() {
    [[ -n ${USPACE_DIR:-} && -n ${LVX_RUN_DIR:-} ]] || return 0
    local m pids i
    for m in "$USPACE_DIR"/mnt*; do
        [[ -d $m ]] && mountpoint -q "$m" && { umount "$m" 2>/dev/null || umount -l "$m"; }
    done
    pids=$(uspace_daemon_pids)
    if [[ -n $pids ]]; then
        "$LVX" daemon stop -f >/dev/null 2>&1
        for i in $(seq 50); do
            [[ -z $(uspace_daemon_pids) ]] && break
            sleep 0.1
        done
        # shellcheck disable=SC2086
        [[ -n $(uspace_daemon_pids) ]] && kill -9 $pids 2>/dev/null
    fi
    # loop devices still bound to the daemon's files (a killed daemon)
    losetup -a 2>/dev/null | grep -F "$LVX_RUN_DIR/vol/" | cut -d: -f1 | while read -r m; do
        losetup -d "$m" 2>/dev/null
    done
    mountpoint -q "$LVX_RUN_DIR/vol" 2>/dev/null && umount -l "$LVX_RUN_DIR/vol"
    return 0
}

uspace_test_env() {
    USPACE_VG=$1
    shift
    trap _uspace_test_exit EXIT
    uspace_env "$SCRATCH/us" "$@"
    uspace_activation "monitoring = 0"
    export DM_DEV_DIR=$SCRATCH/dev
    mkdir -p "$DM_DEV_DIR"
    lvm_sandbox "$@"
}

# uspace_test_loops VG N SIZE: what a user-backend test over its own loop devices
# needs (root's loop devices, lvx, LVM2, dd, sha256sum, /dev/fuse: skipped otherwise),
# N loop devices of SIZE in DEVS, then uspace_test_env VG over them.
uspace_test_loops() {
    local i
    need_loop
    need_lvx
    need_cmd lvm dd sha256sum
    [[ -c /dev/fuse ]] || skip_all "no /dev/fuse"
    DEVS=()
    for ((i = 0; i < $2; i++)); do DEVS+=("$(make_loop "$3")"); done
    uspace_test_env "$1" "${DEVS[@]}"
}

_uspace_test_exit() {
    if [[ -n ${LVX_RUN_DIR:-} ]]; then
        "$LVX" vgchange -an "$USPACE_VG" >/dev/null 2>&1
        uspace_cleanup
    fi
    cleanup
}

uspace_run_ok() {
    local desc=$1 rc
    shift
    "$@" >"$SCRATCH/out" 2>&1
    rc=$?
    _tap_result $((rc != 0)) "$desc"
    ((rc == 0)) && return
    _diag_file "output" "$SCRATCH/out"
    # the daemon's side of a failure (a worker that stopped mid-request says why here)
    [[ -f $LVX_RUN_DIR/lvxd.log ]] && tail -n 15 "$LVX_RUN_DIR/lvxd.log" >"$SCRATCH/lvxd.tail" &&
        _diag_file "lvxd.log (last 15 lines)" "$SCRATCH/lvxd.tail"
    return 0
}

uspace_leftovers() {
    losetup -a 2>/dev/null | grep -F "$LVX_RUN_DIR/vol/"
    grep -F " $LVX_RUN_DIR/vol " /proc/self/mountinfo
    uspace_daemon_pids
}

# Disk speed limits with the cgroup v1 blkio throttle of the root cgroup (where the
# daemon's I/O to the PVs is charged): "MAJ:MIN BYTES" per device; 0 removes a rule.
USPACE_BLKIO=/sys/fs/cgroup/blkio
uspace_can_throttle() { [[ -w $USPACE_BLKIO/blkio.throttle.read_bps_device ]]; }
uspace_throttle() {  # uspace_throttle DEV MIB_PER_S (0: remove)
    local mm
    mm=$(lsblk -dno MAJ:MIN "$1" | tr -d ' ') || return 1
    echo "$mm $(($2 * 1048576))" >"$USPACE_BLKIO/blkio.throttle.read_bps_device" &&
        echo "$mm $(($2 * 1048576))" >"$USPACE_BLKIO/blkio.throttle.write_bps_device"
}
uspace_unthrottle() {  # uspace_unthrottle DEV...: remove the rules of DEV... (ignores errors)
    local d
    for d in "$@"; do uspace_throttle "$d" 0 2>/dev/null; done
    return 0
}

uspace_need_host() {
    need_loop
    need_lvx
    need_cmd lvm
    [[ -c /dev/fuse ]] || skip_all "no /dev/fuse"
}

uspace_need_guest() {
    [[ ${LVX_SKIP_KERNEL:-0} == 1 ]] && skip_all "LVX_SKIP_KERNEL=1"
    need_root
    need_loop
    need_lvx
    need_cmd lvm dd sha256sum qemu-system-x86_64
    [[ -c /dev/fuse ]] || skip_all "no /dev/fuse"
    [[ -x $LVX_PLAIN ]] || skip_all "no plain lvx build ($LVX_PLAIN)"
}

uspace_images() {
    DISKS=$SCRATCH/disks
    mkdir -p "$DISKS"
    local l
    for l in "$@"; do truncate -s 256M "$DISKS/vd$l.img"; done
}

uspace_attach() {
    D=()
    local l
    for l in "$@"; do D+=("$(attach_loop "$DISKS/vd$l.img")") || skip_all "cannot attach loop devices"; done
}

fsum() { sha256sum <"$1" | cut -d' ' -f1; }
lv_sum() { dd if="$DM_DEV_DIR/$1" bs=1M iflag=direct status=none | sha256sum | cut -d' ' -f1; }
field() { "$LVX" lvs --noheadings -o "$2" "$1" 2>/dev/null | tr -d ' '; }
# uspace_thin_snap SNAP DATA: thin snapshot SNAP of $VG/lv1, activated (-K), the file
# $SCRATCH/DATA written to it (one check)
uspace_thin_snap() {
    uspace_run_ok "$1 of lv1, activated (-K), $2 written to it" sh -c \
        "$LVX lvcreate -q -s -n $1 $VG/lv1 && $LVX lvchange -q -K -ay $VG/$1 &&
         dd if=$SCRATCH/$2 of=$DM_DEV_DIR/$VG/$1 bs=1M oflag=direct conv=fsync status=none"
}
uspace_hold() {
    : >"$SCRATCH/held.$1"
    python3 -c 'import os, sys, time; fd = os.open(sys.argv[1], os.O_RDONLY); print("held", flush=True); time.sleep(300)' \
        "$(readlink -f "$DM_DEV_DIR/$2")" >"$SCRATCH/held.$1" 2>&1 &
    eval "uspace_holder_$1=$!"
    for _ in $(seq 1 100); do grep -q held "$SCRATCH/held.$1" && break; sleep 0.05; done
}
uspace_unhold() { local p; eval "p=\$uspace_holder_$1"; kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; }
fs_gone() {
    local open dev mm pids
    open=$(field "$1" lv_device_open)
    _tap_result "$([[ -z $open ]]; echo $?)" "... the filesystem is gone: $1's device is open nowhere"
    [[ -z $open ]] && return 0
    dev=$(readlink -f "$DM_DEV_DIR/$1")
    mm=$(lsblk -dno MAJ:MIN "$dev" 2>/dev/null | tr -d ' ')
    pids=$(grep -l " $mm " /proc/[0-9]*/mountinfo 2>/dev/null | cut -d/ -f3 | paste -sd' ')
    diag "$dev ($mm) is still open: mounted in the mount namespace of pid(s) ${pids:-(none found)}"
}
