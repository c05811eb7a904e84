# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/tools/fuse-conn.sh - helpers for tests of the daemon's FUSE connection
# (t0933, t0994), sourced after tests/lib.sh and tests/tools/uspace-env.sh:
#   conn_of_mount             the connection of the daemon's mount as fusectl names it
#   abort_conn                abort connection $CONN through fusectl (mounted for it
#                             when it is not: FUSECTL_MOUNTED=1, to unmount at exit)
#   wait_log PATTERN SECONDS  the daemon log ($LOG) has a line matching PATTERN

# The kernel's dev_t of the mount: major << 20 | minor.
conn_of_mount() {
    local mm
    mm=$(awk -v m="$LVX_RUN_DIR/vol" '$5 == m {print $3}' /proc/self/mountinfo | tail -1)
    [[ -n $mm ]] && echo $(((${mm%%:*} << 20) | ${mm##*:}))
}

abort_conn() {
    [[ -n ${CONN:-} ]] || return 0
    if [[ ! -d /sys/fs/fuse/connections/$CONN ]] && ! mountpoint -q /sys/fs/fuse/connections; then
        mount -t fusectl none /sys/fs/fuse/connections && FUSECTL_MOUNTED=1
    fi
    [[ -e /sys/fs/fuse/connections/$CONN/abort ]] &&
        echo 1 >"/sys/fs/fuse/connections/$CONN/abort" && diag "aborted FUSE connection $CONN"
}

wait_log() {
    local i
    for ((i = 0; i < $2 * 10; i++)); do
        grep -q -- "$1" "$LOG" 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}
