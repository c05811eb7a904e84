# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# tests/tools/sanlock_host.sh - "hosts" for the shared VG tests, sourced after
# tests/lib.sh.  A host is a private mount namespace with its own /run (a directory
# under $SCRATCH bound over it: sanlock's and lvmlockd's sockets, pid files, lock
# files) and its own /dev/mapper (a tmpfs), running a sanlock daemon without watchdog
# (-w 0, -l 0, -h 0) and, for an LVM2 host, lvmlockd; the loop devices are shared.
#   host_needs                           skip the test without loop devices, sanlock,
#                                        unshare, nsenter, cc or lvx
#   host_start NAME HOST_ID [lvmlockd]   start the host (lvmlockd with sanlock io timeout 5 s;
#                                        its lvm.conf: use_lvmlockd = 1,
#                                        activation off, the test's sandbox filter;
#                                        lvmlocal.conf host_id = HOST_ID)
#   host_run NAME CMD...                 run CMD inside the host, LVM_SYSTEM_DIR its own
#   host_link NAME LINK TARGET           /dev/mapper/LINK -> TARGET inside the host
#   hosts_stop                           stop every host's daemons (by their pids); with
#                                        LVX_SANLOCK_LOG_DIR set, their logs are kept there
# The sanlock daemon is started through tests/tools/sanlock_rlimit_shim.c (built into
# $SCRATCH): it cannot raise RLIMIT_MEMLOCK in a container without CAP_SYS_RESOURCE.

_HOSTS=()

host_needs() {
    need_loop
    need_cmd sanlock unshare nsenter cc
    need_lvx
}

_host_dir() { printf '%s\n' "$SCRATCH/host-$1"; }

host_start() {
    local name=$1 id=$2 with_lockd=${3:-} d shim
    d=$(_host_dir "$name")
    mkdir -p "$d/run" "$d/lvm"
    shim="$SCRATCH/sanlock_rlimit_shim.so"
    if [[ ! -e $shim ]]; then
        cc -shared -fPIC -O2 -o "$shim" "$LVX_ROOT/tests/tools/sanlock_rlimit_shim.c" -ldl ||
            return 1
    fi
    # the host's lvm.conf: the test's sandbox with lvmlockd on
    sed 's/^global {/global {\n    use_lvmlockd = 1/' "$SCRATCH/lvm/lvm.conf" >"$d/lvm/lvm.conf"
    printf 'local {\n    host_id = %d\n}\n' "$id" >"$d/lvm/lvmlocal.conf"
    _HOSTS+=("$name")
    unshare -m --propagation private bash -c '
        d=$1 shim=$2 lockd=$3
        mount --bind "$d/run" /run || exit 1
        # a machine without device-mapper has no /dev/mapper until LVM2 makes one
        mkdir -p /dev/mapper && mount -t tmpfs -o mode=0755 lvx-host-mapper /dev/mapper || exit 1
        mkdir -p /run/lvm /run/lock/lvm
        echo $$ >"$d/ns.pid"
        LD_PRELOAD=$shim sanlock daemon -D -w 0 -l 0 -h 0 -U root -G root \
            >"$d/sanlock.log" 2>&1 &
        echo $! >"$d/sanlock.pid"
        for _ in $(seq 100); do [[ -S /run/sanlock/sanlock.sock ]] && break; sleep 0.1; done
        if [[ -n $lockd ]]; then
            lvmlockd -f -o 5 >"$d/lvmlockd.log" 2>&1 &
            echo $! >"$d/lvmlockd.pid"
            for _ in $(seq 100); do [[ -S /run/lvm/lvmlockd.socket ]] && break; sleep 0.1; done
        fi
        echo ready >"$d/ready"
        wait' host "$d" "$shim" "$with_lockd" </dev/null >/dev/null 2>&1 &
    for _ in $(seq 200); do [[ -e $d/ready ]] && return 0; sleep 0.1; done
    return 1
}

host_run() {
    local d
    d=$(_host_dir "$1")
    shift
    nsenter -m -t "$(cat "$d/ns.pid")" env LVM_SYSTEM_DIR="$d/lvm" LVM_SUPPRESS_FD_WARNINGS=1 "$@"
}

host_link() {
    host_run "$1" ln -sfn "$3" "/dev/mapper/$2"
}

_host_kill() {  # _host_kill PIDFILE: TERM, then KILL after 10 s
    local pid
    [[ -s $1 ]] || return 0
    pid=$(cat "$1")
    kill "$pid" 2>/dev/null || return 0
    for _ in $(seq 100); do [[ -d /proc/$pid ]] || return 0; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null
}

hosts_stop() {
    local name d
    for name in "${_HOSTS[@]}"; do
        d=$(_host_dir "$name")
        _host_kill "$d/lvmlockd.pid"
        _host_kill "$d/sanlock.pid"
        _host_kill "$d/ns.pid"
        # LVX_SANLOCK_LOG_DIR: keep each host's sanlock log (debugging a lost lockspace)
        [[ -n ${LVX_SANLOCK_LOG_DIR:-} && -f $d/sanlock.log ]] &&
            cp "$d/sanlock.log" "$LVX_SANLOCK_LOG_DIR/$(basename "$0" .sh)-$name.log"
    done
    _HOSTS=()
}
