# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# tests/tools/raid-reshaped.sh - sourced by the tests of RAID LVs that a reshape left
# behind or is in the middle of (t1091, t1105, t1107-t1110, t1112, t1114, t1115), after raid-pvread.sh: LV `r` of
# 5 images (raid5 or raid6) in VG, its superblocks and metadata given a reshape's marks on the PVs.
#   sb_set FIELD=VALUE... [legs=I,J]   superblock fields of every rmeta (or legs I,J)
#   reshaped_meta [STRIPE]             RESHAPE flags and reshape_count 1 in the metadata
#   reshaping_rows POS / reshaping_sb POS   md's state of raid5_ls -i4 r (images of 2
#                                      extents) going from 64k chunks at 8192 to 128k at 0,
#                                      recorded at LV sector POS: SCRATCH/d16 (16 MiB,
#                                      random) laid out on the PVs / the superblocks
#   in_sync / moving [LV] / pos_of I   r in sync (polled) / its reshape under way (lvs) /
#                                      image I's reshape_position
#   done_wait LV / sbs LV N FIELDS...  the walker's end in $LOG / the N superblocks' fields
#   rep_lvx / rep_lvm                  lvs -a (devices, data_stripes, reshape_len) by lvx /
#                                      by LVM2 with activation off
#   conv LV ARGS... / make_lv LV TYPE MIB [STRIPES]   lvconvert -y / a new LV with data
#   conv_refused DESC LV ARGS...       lvconvert refused: exit 5, the lines in $want, no write
#   new_r5_paced                       r made on DEVS: raid5_ls -i4 -I 64k -L 32m, in sync,
#                                      deactivated, --maxrecoveryrate 256k, sub-LVs reported
#   logged PATTERN / sb_fin_fields L.. PATTERN in the daemon's log (polled) / the
#                                      finished-state fields of those legs' superblocks
#   killed_resumed LV TOTAL DIR        LV flushed, the daemon SIGKILLed mid-walk, started
#                                      again: the walk resumes at image 0's record ($KILLED)
#   ended LV WHAT                      the walker's end, its log line "...: WHAT" checked
# M (a MiB) and LOG (the daemon's log) for the tests that source this file.
# MAXS, FIN: md's MaxSector as sb_field prints it; the superblock fields of md's finished
# state (sbs LV N "${FIN[@]}")
# shellcheck disable=SC2034  # used by the tests that source this file
MAXS=ffffffffffffffff
# shellcheck disable=SC2034
M=1048576
LOG=$LVX_RUN_DIR/lvxd.log
# shellcheck disable=SC2034
FIN=(devices level layout stripe flags reshape delta_disks array_sectors data_offset new_data_offset sectors recovery resync dirty)
# shellcheck disable=SC2317  # called through test_ok
# sb_set FIELD=VALUE... [legs=I,J]: the superblock fields of every rmeta (or of legs I,J)
# changed on the PVs (offsets of docs/dm-formats.md §2, §3); bit=N sets bitmap bit N
sb_set() {
    local legs="0 1 2 3 4" a i
    for a in "$@"; do [[ $a == legs=* ]] && legs=${a#legs=}; done
    for i in ${legs//,/ }; do
        pv_get "r_rmeta_$i" 0 $((12 * 1024)) "$SCRATCH/m.bin"
        "$PYTHON" - "$SCRATCH/m.bin" "$@" <<'PY' || return 1
import struct, sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
at = {"flags": (0x3C, "<I"), "reshape": (0x40, "<Q"), "delta_disks": (0x54, "<i"),
      "array_sectors": (0x58, "<Q"), "data_offset": (0x60, "<Q"), "new_data_offset": (0x68, "<Q"),
      "sectors": (0x70, "<Q"), "events": (0x10, "<Q"), "bm_sync_size": (4096 + 40, "<Q"), "new_stripe": (0x50, "<I"),
      "stripe": (0x38, "<I")}
for a in sys.argv[2:]:
    k, v = a.split("=")
    if k == "legs":
        continue
    if k == "bit":
        b[4096 + 256 + int(v) // 8] |= 1 << (int(v) % 8)
        continue
    off, fmt = at[k]
    struct.pack_into(fmt, b, off, int(v, 0))
open(p, "wb").write(bytes(b))
PY
        pv_put "r_rmeta_$i" 0 "$SCRATCH/m.bin"
    done
}
# reshaped_meta [STRIPE]: the metadata of an LVM2 reshape of r (raid4/5/6, any layout):
# RESHAPE flags, reshape_count 1 (one extent), the stripe size STRIPE sectors (B's) when given
# shellcheck disable=SC2317  # called through test_ok
reshaped_meta() {
    "$LVX" vgcfgbackup -q -f "$SCRATCH/vg.txt" "$VG" >/dev/null 2>&1 &&
        "$PYTHON" - "$SCRATCH/vg.txt" "${1:-}" <<'PY' &&
import re, sys
p = sys.argv[1]
t = re.sub(r'type = "(raid[456][a-z0-9_]*)"', r'type = "\1+RESHAPE+RESHAPE_DATA_OFFSET"', open(p).read(), count=1)
if sys.argv[2]:
    t = re.sub(r'(\n\t+stripe_size = )\d+', r'\g<1>' + sys.argv[2], t, count=1)
out, lv, n = [], None, 0
for line in t.split('\n'):
    m = re.match(r'\t\t(\S+) \{$', line)
    if m:
        lv = m.group(1)
    out.append(line)
    if re.match(r'\t+extent_count = \d+', line) and re.fullmatch(r'r(_rimage_\d+)?', lv or ''):
        out.append(line[:line.index('e')] + 'reshape_count = 1')
        n += 1
assert n == 6, n
open(p, 'w').write('\n'.join(out))
PY
        "$LVX" vgcfgrestore -q -f "$SCRATCH/vg.txt" "$VG" >/dev/null 2>&1
}
# shellcheck disable=SC2317  # called through test_ok
reshaping_rows() {
    local f i rows=$LVX_ROOT/tests/tools/reshape_rows.py
    head -c $((16 << 20)) /dev/urandom >"$SCRATCH/d16" || return 1
    IMGS=("$SCRATCH"/img{0,1,2,3,4})
    for f in "${IMGS[@]}"; do : >"$f"; truncate -s $((8 << 20)) "$f"; done
    "$PYTHON" "$rows" plant "$SCRATCH/d16" 32768 0 0 128 8192 "${IMGS[@]}" &&
        "$PYTHON" "$rows" plant "$SCRATCH/d16" "$1" 0 0 256 0 "${IMGS[@]}" &&
        "$PYTHON" "$rows" verify "$SCRATCH/d16" "$1" 128 8192 256 0 "${IMGS[@]}" || return 1
    for i in 0 1 2 3 4; do pv_put "r_rimage_$i" 0 "$SCRATCH/img$i"; done
}
# shellcheck disable=SC2317  # called through test_ok
reshaping_sb() {
    sb_set flags=1 reshape="$1" new_stripe=256 delta_disks=0 array_sectors=32768 \
        data_offset=8192 new_data_offset=0 sectors=16384 bm_sync_size=8192
}
# in_sync: polls lvx's lvs until r's sync_percent is 100.00 (~20 s at most)
# shellcheck disable=SC2317  # called through test_ok
in_sync() {
    for _ in $(seq 100); do
        [[ $("$LVX" lvs --noheadings -o sync_percent "$VG/r" 2>/dev/null | xargs) == 100.00 ]] &&
            return 0
        sleep 0.2
    done
    return 1
}
# moving [LV]: the walk of LV (default r) is under way: status reshape, 0 < sync_percent < 100
# shellcheck disable=SC2317  # called through test_ok
moving() {
    local a p
    read -r a p <<<"$("$LVX" lvs --noheadings -o raid_sync_action,sync_percent "$VG/${1:-r}" 2>/dev/null)"
    [[ $a == reshape ]] && awk -v p="$p" 'BEGIN { exit !(p > 0 && p < 100) }'
}
# done_wait LV: the walker's end logged in $LOG (60 s at most)
# shellcheck disable=SC2317  # called through test_ok
done_wait() {
    for _ in $(seq 300); do grep -q "$VG/$1: reshape done" "$LOG" && return 0; sleep 0.2; done
    return 1
}
# sbs LV N FIELDS...: the fields of the N superblocks of LV, the distinct lines
sbs() {
    local lv=$1 n=$2 i f
    shift 2
    for ((i = 0; i < n; i++)); do report "${lv}_rmeta_$i"; done
    for ((i = 0; i < n; i++)); do
        for f in "$@"; do printf '%s ' "$f=$(sb_field "${lv}_rmeta_$i" "$f")"; done
        echo
    done | sort -u
}
# rep_lvx / rep_lvm: lvs -a of the VG through lvx and through LVM2 (activation off),
# metadata fields (devices, data_stripes, reshape_len)
REPF=lv_name,segtype,stripes,data_stripes,stripesize,reshape_len_le,lv_size,devices
rep_lvx() { "$LVX" lvs -a --noheadings --separator ' ' -o $REPF "$VG" 2>/dev/null | sed 's/^ *//' | sort; }
rep_lvm() { lvm2 lvs -a --noheadings --separator ' ' -o $REPF "$VG" 2>/dev/null | sed 's/^ *//' | sort; }
# conv LV ARGS...: lvx lvconvert -y ARGS VG/LV, output in $SCRATCH/conv.out
# shellcheck disable=SC2317  # called through test_ok
conv() {
    local lv=$1
    shift
    "$LVX" lvconvert -y "$@" "$VG/$lv" >"$SCRATCH/conv.out" 2>&1 </dev/null
}
# conv_refused DESC LV CONVARGS...: lvconvert refused: exit 5, the lines in $want (joined
# with |, reshape-refused.sh's `lines`), the VG's seqno unchanged
conv_refused() {
    local d=$1 s0 rc=0
    shift
    s0=$(seqno)
    conv "$@" || rc=$?
    test_eq "$d: exit 5, the lines" "$rc $(lines <"$SCRATCH/conv.out")" "5 $want"
    test_eq "... the VG's seqno unchanged" "$(seqno)" "$s0"
}
# make_lv LV TYPE MIB [STRIPES]: -iSTRIPES (3) -I 64k, in sync, MIB of random data
# ($SCRATCH/ref) written
make_lv() {
    uspace_run_ok "$2 $1 (-i${4:-3} -I 64k -L $3m)" \
        lvx lvcreate -q -y -Zn --type "$2" -i"${4:-3}" -I 64k -L "$3m" -n "$1" "$VG"
    test_ok "$1 in sync" wait_synced "$1"
    head -c $(($3 * 1048576)) /dev/urandom >"$SCRATCH/ref"
    uspace_run_ok "$3 MiB of random data written to $1" \
        dd if="$SCRATCH/ref" of="$DM_DEV_DIR/$VG/$1" bs=1M oflag=direct conv=fsync status=none
}
# pos_of I: the reshape_position in image I's superblock (decimal)
pos_of() { printf '%d' "0x$(sb_field "r_rmeta_$1" reshape)"; }
# new_r5_paced: the PVs DEVS labelled, VG made, r = raid5_ls -i4 -I 64k -L 32m on them,
# in sync, deactivated, its walks paced at 256 KiB/s, its sub-LVs reported (t1107, t1112)
# shellcheck disable=SC2317  # called through uspace_run_ok
new_r5_paced() {
    local i
    "$LVX" pvcreate -q "${DEVS[@]}" && "$LVX" vgcreate -q "$VG" "${DEVS[@]}" &&
        "$LVX" lvcreate -q -y -Zn --type raid5 -i4 -I 64k -L 32m -n r "$VG" && in_sync &&
        "$LVX" lvchange -an "$VG/r" && "$LVX" lvchange --maxrecoveryrate 256k "$VG/r" || return 1
    for i in 0 1 2 3 4; do report "r_rimage_$i"; report "r_rmeta_$i"; done
}
# logged PATTERN: polled in the daemon's log $LOG (~10 s)
logged() {
    for _ in $(seq 50); do grep -q "$1" "$LOG" && return 0; sleep 0.2; done
    return 1
}
# sb_fin_fields LEGS...: the finished-state fields of r's legs' superblocks, one line per set
sb_fin_fields() {
    local i f
    for i in "$@"; do
        for f in devices level stripe flags reshape delta_disks data_offset new_data_offset sectors recovery resync; do
            printf '%s ' "$f=$(sb_field "r_rmeta_$i" $f)"
        done
        echo
    done | sort -u
}
# killed_resumed LV TOTAL DIR: LV flushed, the daemon SIGKILLed in the middle of LV's
# walk (TOTAL array sectors, DIR forward|backward), started again: the walk resumes
# from the position image 0's superblock records (KILLED)
killed_resumed() {
    uspace_run_ok "$1 flushed" dd if=/dev/null of="$DM_DEV_DIR/$VG/$1" conv=fsync,notrunc status=none
    uspace_kill_daemon
    test_ok "the daemon is gone (SIGKILL mid-walk)" test -z "$(uspace_daemon_pids)"
    report "$1_rmeta_0"
    KILLED=$(printf '%d' "0x$(sb_field "$1_rmeta_0" reshape)")
    test_ok "the record is mid-way (0 < $KILLED < $2)" test "$KILLED" -gt 0 -a "$KILLED" -lt "$2"
    : >"$LOG"
    uspace_run_ok "lvx daemon start (serves $1 again)" lvx daemon start
    test_ok "the walk resumed from the record ($KILLED, $3)" \
        grep -q "$VG/$1: reshape resumed at sector $KILLED of $2 ($3)" "$LOG"
}
# ended LV WHAT: the walker's end of LV (done_wait), its log line "reshape done after N
# steps: WHAT" shown when it differs
ended() {
    test_ok "the reshape ends (logged: $2)" done_wait "$1"
    grep -q "$VG/$1: reshape done after [0-9]* steps: $2" "$LOG" ||
        echo "# $(grep "$VG/$1: reshape done" "$LOG")"
}
