# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# tests/tools/uspace-env.sh - sourced by the tests, demo and benchmark of user-space
# activation (the lvx daemon: FUSE + loop devices).  Needs $LVX (the lvx binary).
#   uspace_env DIR DEV...   private daemon run dir, lock dir and lvm.conf (seeing only
#                           DEV...) under DIR; user backend forced
#   uspace_daemon_pids      "supervisor worker" pids of the running daemon (or nothing)
#   uspace_cleanup          unmount DIR/mnt*, stop the daemon (forced), kill it by pid if
#                           it does not stop, unmount its FUSE mount; safe to call twice
#   uspace_leftovers        prints what is left (loop devices on the daemon's files,
#                           mounts, daemon processes); empty when clean

uspace_env() {
    local dir=$1 dev accept=""
    shift
    USPACE_DIR=$dir
    mkdir -p "$dir/etc" "$dir/lock" "$dir/run"
    for dev in "$@"; do accept+="\"a|^${dev}\$|\", "; done
    cat >"$dir/etc/lvm.conf" <<CONF
devices {
    global_filter = [ ${accept}"r|.*|" ]
}
backup {
    backup = 0
    archive = 0
}
CONF
    export LVX_RUN_DIR=$dir/run LVX_LOCK_DIR=$dir/lock LVM_SYSTEM_DIR=$dir/etc
    export LVX_ACTIVATION_BACKEND=user
}

uspace_daemon_pids() {
    local pidfile=$LVX_RUN_DIR/lvxd.pid sup
    [[ -f $pidfile ]] || return 0
    sup=$(cat "$pidfile" 2>/dev/null)
    [[ -n $sup && -d /proc/$sup ]] || return 0
    printf '%s %s\n' "$sup" "$(cat "/proc/$sup/task/$sup/children" 2>/dev/null)"
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
