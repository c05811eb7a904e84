# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# tests/clients/env.sh - sourced by tests/cli/t15xx-clients-*.sh after lib.sh:
#   clients_setup VG N    N loop devices of 64 MiB; LVM2's sandbox on them (activation
#                         off); lvx's daemon environment (tests/tools/uspace-env.sh:
#                         activation through the user-space daemon); $SCRATCH/bin-lvm2
#                         and $SCRATCH/bin-lvx, each with `lvm` and every LVM2 command
#                         name (as Debian installs them) linking to LVM2 / to $LVX
#   clients_run CLIENT[:MODE]...  tests/clients/compare.py for each: one TAP stream (the
#                         plans joined), tables in $SCRATCH/out; exits the test with
#                         its status (cleanup by the EXIT trap)
# shellcheck source=tests/tools/uspace-env.sh
. "$LVX_ROOT/tests/tools/uspace-env.sh"

clients_setup() {
    local vg=$1 n=$2 i lvm_bin name
    need_loop
    need_lvx
    need_cmd lvm
    [[ -c /dev/fuse ]] || skip_all "no /dev/fuse (lvx's user-space activation)"
    [[ -e /dev/$vg ]] && skip_all "/dev/$vg exists"
    CLIENTS_DEVS=()
    for ((i = 0; i < n; i++)); do CLIENTS_DEVS+=("$(make_loop 64M)"); done
    lvm_sandbox "${CLIENTS_DEVS[@]}"
    uspace_env "$SCRATCH/us" "${CLIENTS_DEVS[@]}"   # exports LVX_* and LVM_SYSTEM_DIR
    trap _clients_exit EXIT
    # lvm2-dbusd's shell runs `lvm` with LVM_COMMAND_PROFILE=lvmdbusd
    if [[ -f /etc/lvm/profile/lvmdbusd.profile ]]; then
        mkdir -p "$SCRATCH/lvm/profile" "$SCRATCH/us/etc/profile"
        cp /etc/lvm/profile/lvmdbusd.profile "$SCRATCH/lvm/profile/"
        cp /etc/lvm/profile/lvmdbusd.profile "$SCRATCH/us/etc/profile/"
    fi
    lvm_bin=$(command -v lvm)
    mkdir -p "$SCRATCH/bin-lvm2" "$SCRATCH/bin-lvx" "$SCRATCH/out"
    ln -s "$lvm_bin" "$SCRATCH/bin-lvm2/lvm"
    ln -s "$LVX" "$SCRATCH/bin-lvx/lvm"
    # every LVM2 command name that is a link to lvm (pvs, lvcreate, pvmove, ...)
    while read -r name; do
        [[ -e $SCRATCH/bin-lvm2/$name ]] && continue
        ln -s "$lvm_bin" "$SCRATCH/bin-lvm2/$name"
        ln -s "$LVX" "$SCRATCH/bin-lvx/$name"
    done < <(find /sbin /usr/sbin -maxdepth 1 -lname lvm -printf '%f\n' 2>/dev/null | sort -u)
    export CLIENTS_VG=$vg
    CLIENTS_DEVLIST=$(IFS=,; echo "${CLIENTS_DEVS[*]}")
    export CLIENTS_DEVLIST
    export LVM2_BIN=$SCRATCH/bin-lvm2 LVX_BIN=$SCRATCH/bin-lvx
    export LVM2_SYSDIR=$SCRATCH/lvm LVX_SYSDIR=$SCRATCH/us/etc CLIENTS_OUT=$SCRATCH/out
}

_clients_exit() {
    if [[ -n ${LVX_RUN_DIR:-} && -n ${CLIENTS_VG:-} ]]; then
        local vg
        for vg in "$CLIENTS_VG" "${CLIENTS_VG}r"; do
            LVM_SYSTEM_DIR=$LVX_SYSDIR "$LVX" vgchange -an "$vg" >/dev/null 2>&1
        done
        uspace_cleanup
    fi
    cleanup
}

clients_run() {
    local rc=0 spec st failed line
    for spec in "$@"; do
        # renumber each run's TAP lines after the previous ones, one plan at the end
        st=0
        "$PYTHON" "$LVX_ROOT/tests/clients/compare.py" "$spec" >"$SCRATCH/tap" 2>"$SCRATCH/tap.err" || st=$?
        failed=0
        while IFS= read -r line; do
            if [[ $line =~ ^(not\ )?ok\ [0-9]+(.*)$ ]]; then
                _T_NUM=$((_T_NUM + 1))
                printf '%sok %d%s\n' "${BASH_REMATCH[1]}" "$_T_NUM" "${BASH_REMATCH[2]}"
                [[ -n ${BASH_REMATCH[1]} && $line != *"# TODO"* ]] && failed=1
            elif [[ $line != 1..* ]]; then
                printf '%s\n' "$line"
            fi
        done <"$SCRATCH/tap"
        if ((st != 0)); then
            rc=1
            # compare.py itself failed (a crash, a client that timed out): never lost
            if ((failed == 0)); then
                _T_NUM=$((_T_NUM + 1))
                printf 'not ok %d - %s: compare.py exited with status %d without a failing check\n' \
                    "$_T_NUM" "$spec" "$st"
            fi
            sed 's/^/# /' "$SCRATCH/tap.err" | tail -n 20
        fi
    done
    [[ -n ${CLIENTS_KEEP:-} ]] && cp -r "$SCRATCH/out/." "$CLIENTS_KEEP/"
    printf '1..%d\n' "$_T_NUM"
    _T_DONE=1
    exit "$rc"
}
