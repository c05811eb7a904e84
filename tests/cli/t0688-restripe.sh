#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0688-restripe: `lvconvert --stripes N [-I SIZE] VG/LV` and `--type linear|striped`
# restriping linear and striped LVs (lvx's own: LVM2 reshapes RAID LVs only), in the
# user-space backend:
#   - inactive: linear -> 4 stripes -> 2 stripes -> linear, the data read back equal,
#     the layout the one a fresh LV of that shape has (LVM2's report), vgck accepts it;
#   - bad input: one line, exit 3 (invalid parameters) or 5, the metadata unchanged;
#   - SIGKILL (strace) between the last step's commit and the daemon's reload: the old
#     extents stay allocated until the rerun (an LV made on them refused), then the
#     restriped LV and an LV made on its old extents keep their own data;
#   - RUNS restripes SIGKILLed at a random point, then resumed (`lvconvert VG/LV`, or the
#     same command when the kill came before the setup), LVM2 reading the VG left by
#     each kill (vgck, lvs -a showing the reservation LV), the data unchanged;
#   - active, XFS mounted, fio --verify=crc32c writing and verifying in a loop: 1 -> 4
#     stripes (seen in `lvx jobs`), RUNS restripes 4 <-> 2 SIGKILLed and resumed, one
#     stopped by `lvx jobs --abort` and resumed, then --type linear; no fio error, the
#     reference file, fio's files and xfs_repair -n after a remount, LVM2's vgck.
#   Run in a mount namespace of its own: the umount ends XFS (checked) before xfs_repair.
# RUNS: $LVX_RESTRIPE_KILL_RUNS (default 4).  Cost: about 1-2 min (plain build).
source "$(dirname "$0")/../lib.sh"
own_mount_ns "$@"   # umount ends the filesystem before xfs_repair (lib.sh says why)
source "$LVX_ROOT/tests/tools/uspace-env.sh"
source "$LVX_ROOT/tests/tools/fio-loop.sh"

need_loop
need_lvx
need_cmd mkfs.xfs fio lvm mountpoint xfs_repair
[[ -c /dev/fuse ]] || skip_all "no /dev/fuse"

RUNS=${LVX_RESTRIPE_KILL_RUNS:-4}
VG=vgrs$$
D=()
for i in 0 1 2 3 4; do D+=("$(make_loop 384M)"); done
uspace_test_env "$VG" "${D[@]}"
MNT=$SCRATCH/us/mnt
mkdir -p "$MNT"

uspace_run_ok "pvcreate 5 disks" lvx pvcreate "${D[@]}"
uspace_run_ok "vgcreate -s 4m" lvx vgcreate -s 4m "$VG" "${D[@]}"

# the layout in LVM2's words: segment type, stripes, stripe size, segments
layout() {
    lvm2 lvs --noheadings --units k -o segtype,stripes,stripe_size "$VG/$1" 2>/dev/null |
        awk '{print $1, $2, $3} END {print NR " segment(s)"}' | paste -sd' '
}
free_count() { lvx vgs --noheadings -o vg_free_count "$VG" | tr -d ' '; }
seqno() { lvx vgs --noheadings -o vg_seqno "$VG" | tr -d ' '; }
lv_md5() {  # the LV's data (activated for the read, deactivated again)
    lvx lvchange -ay "$VG/$1" >/dev/null 2>&1
    echo 3 >/proc/sys/vm/drop_caches
    md5sum <"$DM_DEV_DIR/$VG/$1" | cut -d' ' -f1
    lvx lvchange -an "$VG/$1" >/dev/null 2>&1
}
in_progress() { lvx lvs -a --noheadings -o lv_name "$VG" | grep -c "_restripe" ; }
rand_delay() { awk -v s="$RANDOM" -v lo="$1" -v hi="$2" 'BEGIN { srand(s); printf "%.2f", lo + rand() * (hi - lo) }'; }

# fresh LVs of the shapes restriped to: what the restriped LV must look like
uspace_run_ok "a fresh 4-stripe LV (reference layout)" lvx lvcreate -an -Zn -n f4 -i 4 -I 64k -L 192m "$VG"
uspace_run_ok "a fresh 2-stripe LV (reference layout)" lvx lvcreate -an -Zn -n f2 -i 2 -I 64k -L 192m "$VG"
uspace_run_ok "a fresh linear LV (reference layout)" lvx lvcreate -an -Zn -n f1 -L 192m "$VG"
want4=$(layout f4) want2=$(layout f2) want1=$(layout f1)
uspace_run_ok "lvremove the references" lvx lvremove -y "$VG/f4" "$VG/f2" "$VG/f1"
uspace_run_ok "fresh 320m LVs, 4 and 2 stripes and linear" lvx lvcreate -an -Zn -n f4 -i 4 -I 64k -L 320m "$VG"
lvx lvcreate -an -Zn -n f2 -i 2 -I 64k -L 320m "$VG" >/dev/null 2>&1
lvx lvcreate -an -Zn -n f1 -L 320m "$VG" >/dev/null 2>&1
big4=$(layout f4) big2=$(layout f2) big1=$(layout f1)
uspace_run_ok "lvremove them" lvx lvremove -y "$VG/f4" "$VG/f2" "$VG/f1"

# ------------------------------------------------------------ inactive
uspace_run_ok "lvcreate a linear 192m LV on ${D[0]}" lvx lvcreate -Zn -n lv -L 192m "$VG" "${D[0]}"
head -c 192M /dev/urandom >"$SCRATCH/data"
dd if="$SCRATCH/data" of="$DM_DEV_DIR/$VG/lv" bs=1M oflag=direct status=none
sum0=$(md5sum <"$SCRATCH/data" | cut -d' ' -f1)
uspace_run_ok "lvchange -an" lvx lvchange -an "$VG/lv"
test_eq "the data written" "$sum0" "$(lv_md5 lv)"

free0=$(free_count)
uspace_run_ok "lvconvert --stripes 4 -I 64k (inactive)" lvx lvconvert --stripes 4 -I 64k "$VG/lv"
test_eq "... the layout of a fresh 4-stripe LV" "$want4" "$(layout lv)"
test_eq "... no reservation LV left" "0" "$(in_progress)"
test_eq "... the data unchanged" "$sum0" "$(lv_md5 lv)"
test_ok "... LVM2's vgck accepts the VG" lvm2 vgck "$VG"
test_eq "... the old extents are free again (VG free extents as before)" "$(free_count)" "$free0"

# ------------------------------------------------------------ bad input
s0=$(seqno)
bad() {  # bad WANT_RC DESC ARGS...
    local want=$1 desc=$2 rc=0
    shift 2
    lvx lvconvert "$@" >"$SCRATCH/bad.out" 2>"$SCRATCH/bad.err" || rc=$?
    test_eq "$desc: exit $want" "$rc" "$want" || _diag_file stderr "$SCRATCH/bad.err"
    test_eq "$desc: one error line" "1" "$(grep -vc 'WARNING\|Using default\|^ *$' "$SCRATCH/bad.err")" ||
        _diag_file stderr "$SCRATCH/bad.err"
}
bad 3 "--stripes 0" --stripes 0 "$VG/lv"
bad 3 "-I 3k" --stripes 2 -I 3k "$VG/lv"
bad 3 "--stripes with -m" --stripes 2 -m 1 "$VG/lv"
bad 3 "--type linear --stripes 2" --type linear --stripes 2 "$VG/lv"
bad 3 "--type striped without --stripes" --type striped "$VG/lv"
bad 5 "--stripes 5 (48 extents)" --stripes 5 "$VG/lv"
bad 5 "the same layout again" --stripes 4 -I 64k "$VG/lv"
bad 5 "3 stripes on 2 named PVs" --stripes 3 "$VG/lv" "${D[1]}" "${D[2]}"
bad 5 "2 stripes in 8 named extents (Insufficient free space)" --stripes 2 "$VG/lv" \
    "${D[1]}:88-91" "${D[2]}:88-91"
test_ok "... the allocator's words: Insufficient ..." grep -q "Insufficient" "$SCRATCH/bad.err"
bad 5 "an LV that does not exist" --stripes 2 "$VG/nolv"
rc=0
lvx lvconvert -i 2 "$VG/lv" >/dev/null 2>&1 || rc=$?
test_eq "lvconvert -i 2 (-i is --interval, not --stripes): refused, not restriped" \
    "$rc $(layout lv)" "3 $want4"
uspace_run_ok "lvconvert --test --stripes 2: exit 0" lvx lvconvert --test --stripes 2 "$VG/lv"
test_eq "no metadata written by the bad commands nor --test" "$(seqno)" "$s0"
test_eq "... no reservation LV" "$(in_progress)" "0"

# ------------------------------------------------------------ SIGKILL (inactive)
# kill_runs LABEL LO HI WANT2 WANT4 SUM: RUNS restripes alternating --stripes 2 and 4,
# each SIGKILLed after LO..HI s, then resumed (`lvconvert VG/LV` when the kill left a
# restripe in progress, else the same command again); LVM2 reads each VG left mid-way;
# the layout checked, and the data against SUM when one is given (inactive LV)
kill_runs() {
    local label=$1 lo=$2 hi=$3 w2=$4 w4=$5 sum=$6 target=2 kills=0 mid=0 lvm_ok=0 r pid want
    for ((r = 0; r < RUNS; r++)); do
        "$LVX" lvconvert --stripes "$target" "$VG/lv" >"$SCRATCH/k.out" 2>&1 &
        pid=$!
        sleep "$(rand_delay "$lo" "$hi")"
        kill -9 "$pid" 2>/dev/null && kills=$((kills + 1))
        wait "$pid" 2>/dev/null
        if [[ $(in_progress) != 0 ]]; then
            mid=$((mid + 1))
            lvm2 vgck "$VG" >/dev/null 2>&1 &&
                lvm2 lvs -a --noheadings -o lv_name "$VG" 2>/dev/null |
                grep -Eq "\[lv_restripe(_old)?\]" &&
                lvm_ok=$((lvm_ok + 1))
            lvx lvconvert "$VG/lv" >"$SCRATCH/r.out" 2>&1 || _diag_file resume "$SCRATCH/r.out"
        else
            lvx lvconvert --stripes "$target" "$VG/lv" >"$SCRATCH/r.out" 2>&1
        fi
        want=$w2
        ((target == 4)) && want=$w4
        test_eq "$label run $r: --stripes $target killed, resumed: the layout" "$(layout lv)" "$want"
        [[ -n $sum ]] && test_eq "$label run $r: the data unchanged" "$(lv_md5 lv)" "$sum"
        target=$((6 - target))
    done
    diag "$label: $RUNS runs, $kills killed while running, $mid left a restripe in progress"
    test_eq "$label: LVM2 read every VG left mid-restripe (vgck, lvs -a shows [lv_restripe(_old)])" \
        "$lvm_ok" "$mid"
}
kill_runs inactive 0.05 0.6 "$want2" "$want4" "$sum0"
uspace_run_ok "--type linear (inactive)" lvx lvconvert --type linear "$VG/lv"
test_eq "... the layout of a fresh linear LV" "$want1" "$(layout lv)"
test_eq "... the data unchanged" "$sum0" "$(lv_md5 lv)"
test_ok "... LVM2's vgck" lvm2 vgck "$VG"
uspace_run_ok "lvremove" lvx lvremove -y "$VG/lv"

# ------------------------------------------------------------ SIGKILL before the last reload
# lvconvert killed (strace: at the connect() of the reload that follows the last step's
# commit) leaves the daemon serving k on its previous model, which still reads and
# writes k's old extents: they stay allocated (k_restripe_old, k LOCKED) until a rerun
# has reloaded k, so no other LV gets them while the daemon uses them.  The trial on t
# finds which connect() that is.
if command -v strace >/dev/null 2>&1; then
    uspace_run_ok "lvcreate linear 32m LVs k on ${D[0]} and t on ${D[1]} (active)" \
        lvx lvcreate -Zn -n k -L 32m "$VG" "${D[0]}"
    lvx lvcreate -Zn -n t -L 32m "$VG" "${D[1]}" >/dev/null 2>&1
    # (the daemon client sends each request with one sendto(); write() is also matched)
    ASAN_OPTIONS=detect_leaks=0 strace -f -qq -s 80 -e trace=connect,write,sendto -o "$SCRATCH/trial.st" \
        "$LVX" lvconvert --stripes 2 "$VG/t" >/dev/null 2>&1
    K=$(awk '/connect\(/ { n++ } /(write|sendto)\(.*"rscopy [^"]* 1(\\n)?"/ { c = 1 }
             /(write|sendto)\(.*"reload / && c { k = n; c = 0 } END { print k + 0 }' "$SCRATCH/trial.st")
    head -c 32M /dev/urandom >"$SCRATCH/A"
    head -c 32M /dev/urandom >"$SCRATCH/B"
    dd if="$SCRATCH/A" of="$DM_DEV_DIR/$VG/k" bs=1M oflag=direct status=none
    (ASAN_OPTIONS=detect_leaks=0 strace -f -qq -o /dev/null -e trace=connect \
        -e inject=connect:signal=KILL:when="$K" "$LVX" lvconvert --stripes 2 "$VG/k" >/dev/null 2>&1; true) 2>/dev/null
    test_eq "lvconvert --stripes 2 killed at its connect() $K (the last reload): k has 2 stripes, its old extents held by k_restripe_old" \
        "$(field "$VG/k" stripes) $(lvx lvs -a --noheadings -o lv_name "$VG" | tr -d ' []' | grep -cx k_restripe_old)" "2 1"
    rc=0
    lvx lvcreate -Zn -n o -L 32m "$VG" "${D[0]}:0-7" >"$SCRATCH/o.out" 2>&1 || rc=$?
    test_eq "... an LV on k's old extents (${D[0]}:0-7) is refused meanwhile (exit 5)" "$rc" "5"
    uspace_run_ok "... the rerun (lvconvert VG/k) ends it" lvx lvconvert "$VG/k"
    test_eq "... then no k_restripe_old, k not LOCKED (lv_attr's policy letter not a capital)" \
        "$(lvx lvs -a --noheadings -o lv_name "$VG" | tr -d ' []' | grep -c restripe) $(field "$VG/k" lv_attr | cut -c3)" "0 i"
    [[ $rc == 0 ]] || uspace_run_ok "lvcreate o on k's old extents (${D[0]}:0-7)" \
        lvx lvcreate -Zn -n o -L 32m "$VG" "${D[0]}:0-7"
    dd if="$SCRATCH/B" of="$DM_DEV_DIR/$VG/o" bs=1M oflag=direct status=none
    dd if="$SCRATCH/A" of="$DM_DEV_DIR/$VG/k" bs=1M oflag=direct status=none
    test_eq "... k reads back its data, o its own (no extent used by both)" \
        "$(lv_sum "$VG/k") $(lv_sum "$VG/o")" "$(fsum "$SCRATCH/A") $(fsum "$SCRATCH/B")"
    uspace_run_ok "lvremove k, o, t" lvx lvremove -y "$VG/k" "$VG/o" "$VG/t"
else
    test_skip "SIGKILL before the last reload" "no strace"
fi

# ------------------------------------------------------------ active, mounted, fio
# (XFS needs 300 MiB)
uspace_run_ok "lvcreate a linear 320m LV on ${D[0]} (active)" lvx lvcreate -Zn -n lv -L 320m "$VG" "${D[0]}"
uspace_run_ok "mkfs.xfs" mkfs.xfs -f -q "$DM_DEV_DIR/$VG/lv"
uspace_run_ok "mount" mount "$DM_DEV_DIR/$VG/lv" "$MNT"
head -c 24M /dev/urandom >"$MNT/ref"
sync
ref_sum=$(md5sum <"$MNT/ref")
[[ -s $MNT/ref ]]
_tap_result $? "a reference file on the mounted LV"
fio_loop_start "$MNT" 32m
sleep 1

t0=$SECONDS
"$LVX" lvconvert --stripes 4 -I 64k "$VG/lv" >"$SCRATCH/on.out" 2>&1 &
pid=$!
seen_job=no
for _ in $(seq 400); do
    j=$(lvx jobs 2>/dev/null | awk -v vg="$VG" '$1 == vg {print $2, $3}')
    [[ $j == "lv stripes:4" ]] && seen_job=yes
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
done
wait "$pid"
rc=$?
test_eq "mounted, fio running: lvconvert --stripes 4 -I 64k ($((SECONDS - t0)) s)" "$rc" "0" ||
    _diag_file output "$SCRATCH/on.out"
test_eq "... lvx jobs showed it (VG lv stripes:4)" "$seen_job" "yes"
test_eq "... the layout of a fresh 4-stripe LV" "$big4" "$(layout lv)"
test_ok "... LVM2's vgck" lvm2 vgck "$VG"

kill_runs mounted 0.1 1.0 "$big2" "$big4" ""

# lvx jobs --abort stops the copier (SIGTERM: it ends at the next window); the restripe
# stays resumable
want=$big2
[[ $(layout lv) == "$big2" ]] && want=$big4
n=${want#striped }
n=${n%% *}
"$LVX" lvconvert --stripes "$n" "$VG/lv" >"$SCRATCH/ab.out" 2>&1 &
pid=$!
seen=no
for _ in $(seq 400); do
    [[ -n $(lvx jobs "$VG/lv" 2>/dev/null | awk -v vg="$VG" '$1 == vg') ]] && { seen=yes; break; }
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.02
done
rc=0
[[ $seen == yes ]] && { lvx jobs --abort "$VG/lv" >"$SCRATCH/ab2.out" 2>&1 || rc=$?; }
wait "$pid"
test_eq "lvx jobs --abort VG/lv during a restripe to $n stripes: the job seen, both exit 0" \
    "$seen $rc $?" "yes 0 0"
left=$(in_progress)
diag "after the abort: $left restripe LV(s) left ($(tail -1 "$SCRATCH/ab.out"))"
[[ $left != 0 ]] && uspace_run_ok "... resumed by lvconvert VG/LV" lvx lvconvert "$VG/lv"
test_eq "... the layout of a fresh $n-stripe LV" "$(layout lv)" "$want"
uspace_run_ok "mounted: --type linear" lvx lvconvert --type linear "$VG/lv"
test_eq "... the layout of a fresh linear LV" "$big1" "$(layout lv)"

fio_loop_stop
diag "fio runs: $(cat "$SCRATCH/fio.runs" 2>/dev/null)"
test_ok "fio ran on the mounted LV" mountpoint -q "$MNT"
test_eq "fio --verify=crc32c found no error during the restripes" "$(head -c 2000 "$SCRATCH/fio.fail")" ""
uspace_run_ok "umount" umount "$MNT"
fs_gone "$VG/lv"
echo 3 >/proc/sys/vm/drop_caches
uspace_run_ok "xfs_repair -n finds nothing" xfs_repair -n "$DM_DEV_DIR/$VG/lv"
uspace_run_ok "mount again" mount "$DM_DEV_DIR/$VG/lv" "$MNT"
test_eq "the reference file reads back" "$(md5sum <"$MNT/ref")" "$ref_sum"
uspace_run_ok "fio --verify_only of the last run's files" fio_verify_only "$MNT" 32m
uspace_run_ok "umount" umount "$MNT"
test_ok "LVM2's vgck accepts the VG" lvm2 vgck "$VG"
test_eq "LVM2 sees no LV but lv" "lv" "$(lvm2 lvs -a --noheadings -o lv_name "$VG" 2>/dev/null | tr -d ' ' | paste -sd' ')"
done_testing
