#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0800-shell: `lvx shell` runs LVM2-syntax command lines in one process.
#  1. A script of 60+ mixed commands (reports, displays, PV/VG/LV changes, failing and
#     unknown commands, comments, blank lines, the "lvx " prefix) run through the
#     shell gives the same stdout, the same stderr and the same exit statuses
#     (--status-fd) as the same commands run one by one, from the same start state
#     (UUIDs and times masked: they are new on each run).
#  2. Fed through a FIFO, the shell sees changes made by the real LVM2 between two of
#     its commands, and its own changes are seen by LVM2 (nothing overwritten).
#  3. The scan cache is reused when unchanged, and dropped when LVM2 changed the disks;
#     the shell's own writes keep it, LVM2 writing between two shell writes is seen and
#     nothing of it is overwritten (seqno continues, LVM2's LV stays).
#  4. quit/exit, end of input, parse errors, `lvx shell FILE`, no-argument start.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_loop
need_cmd lvm mkfifo
need_lvx
plan_later

D=()
for _ in 0 1 2 3; do D+=("$(make_loop 64M)") || skip_all "cannot make loop devices"; done
d0=${D[0]} d1=${D[1]} d2=${D[2]} d3=${D[3]}
lvm_sandbox "${D[@]}"
export LVM_SYSTEM_DIR=$SCRATCH/lvm LVM_SUPPRESS_FD_WARNINGS=1
VA=shA$$ VB=shB$$

wipe() {
    local d
    for d in "${D[@]}"; do dd if=/dev/zero of="$d" bs=1M count=4 conv=fsync status=none; done
}

# The script: one command per line, LVM2 syntax.
cat >"$SCRATCH/script" <<CMDS
# set up
pvcreate -y $d0 $d1 $d2 $d3
pvs -o pv_name,vg_name,pv_size,pv_free
vgcreate -s 1m $VA $d0 $d1

vgcreate $VB $d2
vgs -o vg_name,pv_count,lv_count,vg_size,vg_free $VA $VB
lvx vgs --noheadings -o vg_name,vg_extent_size $VA
lvcreate -an -Zn -n l1 -L 8m $VA
lvcreate -an -Zn -n l2 -l 3 $VA
lvcreate -an -Zn -n l3 -L 4m -i 2 -I 64k $VA
lvs -o lv_name,lv_size,seg_count,lv_attr $VA
lvs --segments -o lv_name,segtype,stripes,seg_size $VA
lvs -a -o lv_name,devices $VA
lvcreate -an -Zn -n l1 -L 8m $VA
lvcreate -an -Zn -n big -L 900m $VA
lvcreate -an -Zn -L 4m nosuchvg
vgs nosuchvg
lvs $VA/nosuch
pvs -o nosuchfield
frobnicate $VA
vgs --bogus
lvextend -L +4m $VA/l1
lvextend -l +2 $VA/l2
lvs -o lv_name,lv_size $VA
lvreduce -f -L 8m $VA/l1
lvresize -L 6m $VA/l2
lvs --noheadings -o lv_name,lv_size --units m $VA
lvrename $VA l2 l2b
lvrename $VA/l2b $VA/l2
lvchange --addtag tagA $VA/l1
lvs -o lv_name,lv_tags $VA
lvchange --deltag tagA $VA/l1
lvchange -p r $VA/l3
lvs -o lv_name,lv_attr $VA
vgchange --addtag vtag $VA
vgs -o vg_name,vg_tags $VA
vgchange --deltag vtag $VA
vgs -o vg_name,vg_tags,vg_attr $VA
vgextend $VB $d3
vgs -o vg_name,pv_count $VB
pvs -o pv_name,vg_name,pv_pe_count,pv_pe_alloc_count
vgreduce $VB $d3
pvchange -x n $d1
pvs -o pv_name,pv_attr $d1
pvchange -x y $d1
pvs --segments -o pv_name,pvseg_start,pvseg_size $d0
vgdisplay -s
vgdisplay $VB
lvdisplay $VA/l1
pvdisplay $d2
lvdisplay -c $VA
vgck $VA
vgs -o vg_name,vg_seqno --reportformat json $VA
lvs --nameprefixes --noheadings -o lv_name,lv_size $VA/l1
lvs -S 'lv_size>5m' -o lv_name $VA
lvs -O -lv_name -o lv_name $VA
lvs --units s --nosuffix -o lv_name,lv_size $VA/l2
vgrename $VB ${VB}x
vgs -o vg_name ${VB}x
vgrename ${VB}x $VB
lvremove -f $VA/l3
lvremove -f $VA/l3
lvremove -f $VA
lvs $VA
vgremove -f $VB
vgremove -f $VA
vgs
pvremove $d0 $d1 $d2 $d3
pvs
version
help vgs
CMDS

n_cmds=$(grep -cv '^[[:space:]]*\(#.*\)\?$' "$SCRATCH/script")
test_ok "the script has at least 60 commands ($n_cmds)" test "$n_cmds" -ge 60

mask() {  # UUIDs and dates differ between runs
    sed -E -e 's/[A-Za-z0-9]{6}(-[A-Za-z0-9]{4}){5}-[A-Za-z0-9]{6}/<uuid>/g' \
        -e 's/[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}( [+-][0-9]{4})?/<time>/g' "$1"
}

# --- 1. the shell vs separate commands --------------------------------------------
wipe
"$LVX" shell --status-fd 3 "$SCRATCH/script" >"$SCRATCH/sh.out" 2>"$SCRATCH/sh.err" \
    3>"$SCRATCH/sh.status"
test_eq "lvx shell FILE exits 0" "$?" 0
sanitizer_report "$SCRATCH/sh.err" && _tap_result 1 "no sanitizer report from the shell"

wipe
: >"$SCRATCH/one.out"
: >"$SCRATCH/one.err"
: >"$SCRATCH/one.status"
while IFS= read -r line; do
    [[ $line =~ ^[[:space:]]*(#.*)?$ ]] && continue
    rc=0
    eval "\"\$LVX\" ${line#lvx }" >>"$SCRATCH/one.out" 2>>"$SCRATCH/one.err" || rc=$?
    echo "$rc" >>"$SCRATCH/one.status"
done <"$SCRATCH/script"

test_eq "one exit status per command" "$(wc -l <"$SCRATCH/sh.status")" "$n_cmds"
if ! test_eq "exit statuses equal those of separate commands" \
        "$(tr '\n' ' ' <"$SCRATCH/sh.status")" "$(tr '\n' ' ' <"$SCRATCH/one.status")"; then
    diag "$(paste "$SCRATCH/sh.status" "$SCRATCH/one.status" | grep -nv $'^\\(.*\\)\t\\1$' | head)"
fi
ok_some=$(grep -c '^0$' "$SCRATCH/sh.status")
bad_some=$(grep -vc '^0$' "$SCRATCH/sh.status")
test_ok "the script has successes ($ok_some) and failures ($bad_some)" \
    test "$ok_some" -gt 30 -a "$bad_some" -ge 8
# the shell adds one line at the end of input (a newline, as LVM2's shell)
head -c -1 "$SCRATCH/sh.out" >"$SCRATCH/sh.out.trim"
test_eq "the shell ends its output with one newline at the end of input" \
    "$(tail -c 1 "$SCRATCH/sh.out" | od -An -c | tr -d ' ')" '\n'
if ! test_ok "stdout equals that of separate commands" \
        cmp -s <(mask "$SCRATCH/sh.out.trim") <(mask "$SCRATCH/one.out"); then
    diag "$(diff <(mask "$SCRATCH/sh.out.trim") <(mask "$SCRATCH/one.out") | head -20)"
fi
if ! test_ok "stderr equals that of separate commands" \
        cmp -s <(mask "$SCRATCH/sh.err") <(mask "$SCRATCH/one.err"); then
    diag "$(diff <(mask "$SCRATCH/sh.err") <(mask "$SCRATCH/one.err") | head -20)"
fi
test_ok "an unknown command is reported and the shell goes on" \
    grep -q "No such command 'frobnicate'" "$SCRATCH/sh.err"

# --- 2. interleaving with LVM2 through a FIFO -----------------------------------------
wipe
lvm2 pvcreate -y "${D[@]}" >/dev/null 2>&1
lvm2 vgcreate "$VA" "${D[@]}" >/dev/null 2>&1
mkfifo "$SCRATCH/fifo"
"$LVX" shell --status-fd 3 <"$SCRATCH/fifo" >"$SCRATCH/f.out" 2>"$SCRATCH/f.err" \
    3>"$SCRATCH/f.status" &
shell_pid=$!
exec 4>"$SCRATCH/fifo"

# send CMD: write one line and wait until the shell reported its status
sent=0
send() {
    local i
    printf '%s\n' "$1" >&4
    sent=$((sent + 1))
    for ((i = 0; i < 600; i++)); do
        [[ $(wc -l <"$SCRATCH/f.status") -ge $sent ]] && return 0
        sleep 0.05
    done
    return 1
}
last_status() { tail -n 1 "$SCRATCH/f.status"; }

send "vgs --noheadings -o vg_name,vg_tags $VA"
test_eq "shell: first vgs ok" "$(last_status)" 0
lvm2 vgchange --addtag fromlvm "$VA" >/dev/null 2>&1
: >"$SCRATCH/f.out.mark"; cp "$SCRATCH/f.out" "$SCRATCH/f.out.mark"
send "vgs --noheadings -o vg_tags $VA"
test_eq "shell sees the tag LVM2 added between two commands" \
    "$(diff "$SCRATCH/f.out.mark" "$SCRATCH/f.out" | sed -n 's/^> *//p')" "fromlvm"

send "lvcreate -an -Zn -n fromshell -L 8m $VA"
test_eq "shell: lvcreate ok" "$(last_status)" 0
test_eq "LVM2 sees the shell's LV and keeps its own tag" \
    "$(lvm2 vgs --noheadings -o vg_tags,lv_count "$VA" 2>/dev/null | xargs)" "fromlvm 1"
lvm2 lvcreate -an -Zn -y -n fromlvm -L 4m "$VA" >/dev/null 2>&1
cp "$SCRATCH/f.out" "$SCRATCH/f.out.mark"
send "lvs --noheadings -o lv_name $VA"
test_eq "shell sees the LV LVM2 created" \
    "$(diff "$SCRATCH/f.out.mark" "$SCRATCH/f.out" | sed -n 's/^> *//p' | sort | xargs)" \
    "fromlvm fromshell"
send "lvremove -f $VA/fromlvm"
test_eq "shell removes LVM2's LV" "$(last_status)" 0
lvm2 vgchange --deltag fromlvm --addtag again "$VA" >/dev/null 2>&1
send "lvcreate -an -Zn -n second -L 4m $VA"
test_eq "LVM2 and the shell agree after interleaved changes" \
    "$(lvm2 vgs --noheadings -o vg_tags,lv_count "$VA" 2>/dev/null | xargs)" "again 2"
test_ok "LVM2's vgck accepts the VG" lvm2 vgck "$VA"
send "exit"
exec 4>&-
wait "$shell_pid"
test_eq "shell exits 0 after exit" "$?" 0
test_eq "exit prints Exiting. on stderr" "$(tail -n 1 "$SCRATCH/f.err")" "  Exiting."
sanitizer_report "$SCRATCH/f.err" && _tap_result 1 "no sanitizer report (fifo session)"

# --- 3. the scan cache -------------------------------------------------------------------
# (debug lines of meta/cache.c: a second read-only command reuses the scan after checking
# it; a change by LVM2 in between makes it scan again, and the change is seen)
out=$( { printf 'vgs -d %s\nvgs -d %s\n' "$VA" "$VA"; sleep 1
         lvm2 vgchange --addtag cachetest "$VA" >/dev/null 2>&1
         printf 'vgs -d --noheadings -o vg_tags %s\n' "$VA"; } | "$LVX" shell 2>&1)
test_ok "the second command reuses the checked scan" grep -q 'Scan cache: reusing' <<<"$out"
test_ok "a change by LVM2 in between is detected" \
    grep -q 'Scan cache: devices changed on disk' <<<"$out"
test_ok "... and seen" grep -q 'cachetest' <<<"$out"
out=$(printf 'vgs -d %s\nvgs -d %s\n' "$VA" "$VA" | "$LVX" shell --no-cache 2>&1)
test_ok "--no-cache: no scan cache" bash -c "! grep -q 'Scan cache' <<<\"\$1\"" _ "$out"

# --- 3b. the scan kept across the shell's own commits ------------------------------------
# (a commit through the cached scan keeps it: the next write reuses it after checking the
# headers; LVM2 writing in between makes that check fail, the shell reads LVM2's version
# and its next write continues LVM2's seqno, keeping LVM2's LV)
mkfifo "$SCRATCH/fifo2"
"$LVX" shell --status-fd 3 <"$SCRATCH/fifo2" >"$SCRATCH/g.out" 2>"$SCRATCH/g.err" \
    3>"$SCRATCH/g.status" &
shell_pid=$!
exec 4>"$SCRATCH/fifo2"
sent=0
send_g() {
    local i
    printf '%s\n' "$1" >&4
    sent=$((sent + 1))
    for ((i = 0; i < 600; i++)); do
        [[ $(wc -l <"$SCRATCH/g.status") -ge $sent ]] && return 0
        sleep 0.05
    done
    return 1
}
send_g "lvcreate -an -Zn -n keep1 -L 4m $VA"
: >"$SCRATCH/g.err.mark"; cp "$SCRATCH/g.err" "$SCRATCH/g.err.mark"
send_g "lvcreate -d -an -Zn -n keep2 -L 4m $VA"
test_eq "shell: two lvcreates ok" "$(tr '\n' ' ' <"$SCRATCH/g.status")" "0 0 "
test_ok "the write after a write reuses the scan the first one kept" \
    bash -c 'diff "$1" "$2" | grep -q "Scan cache: reusing"' _ "$SCRATCH/g.err.mark" "$SCRATCH/g.err"
seq_before=$(lvm2 vgs --noheadings -o vg_seqno "$VA" 2>/dev/null | xargs)
lvm2 lvcreate -an -Zn -y -n bylvm2 -L 4m "$VA" >/dev/null 2>&1
test_eq "LVM2 wrote one version after the shell's" \
    "$(lvm2 vgs --noheadings -o vg_seqno "$VA" 2>/dev/null | xargs)" "$((seq_before + 1))"
cp "$SCRATCH/g.err" "$SCRATCH/g.err.mark"
send_g "lvcreate -d -an -Zn -n keep3 -L 4m $VA"
test_eq "shell: lvcreate after LVM2's ok" "$(tail -n 1 "$SCRATCH/g.status")" 0
test_ok "LVM2's write between two shell writes is detected" \
    bash -c 'diff "$1" "$2" | grep -q "Scan cache: devices changed on disk"' _ \
    "$SCRATCH/g.err.mark" "$SCRATCH/g.err"
test_eq "the shell's write continues LVM2's seqno" \
    "$(lvm2 vgs --noheadings -o vg_seqno "$VA" 2>/dev/null | xargs)" "$((seq_before + 2))"
test_eq "LVM2's LV and the shell's LVs are all there (LVM2's view)" \
    "$(lvm2 lvs --noheadings -o lv_name "$VA" 2>/dev/null | grep -E 'keep|bylvm2' | sort | xargs)" \
    "bylvm2 keep1 keep2 keep3"
cp "$SCRATCH/g.out" "$SCRATCH/g.out.mark"
send_g "lvremove -f $VA/keep1 $VA/bylvm2"
send_g "lvs --noheadings -o lv_name $VA"
test_eq "the shell's own view after its removes" \
    "$(diff "$SCRATCH/g.out.mark" "$SCRATCH/g.out" | sed -n 's/^> *//p' | awk '{$1 = $1; print}' | grep -xE 'keep[0-9]|bylvm2' | sort | xargs)" \
    "keep2 keep3"
test_eq "LVM2 agrees" \
    "$(lvm2 lvs --noheadings -o lv_name "$VA" 2>/dev/null | grep -E 'keep|bylvm2' | sort | xargs)" \
    "keep2 keep3"
test_ok "LVM2's vgck accepts the VG" lvm2 vgck "$VA"
send_g "exit"
exec 4>&-
wait "$shell_pid"
sanitizer_report "$SCRATCH/g.err" && _tap_result 1 "no sanitizer report (kept-scan session)"

# --- 3c. the VG kept across LV commands -------------------------------------------------
# (an LV command whose last step was a successful commit leaves its in-memory VG to the
# next LV command; a failing command, a --test run, another kind of command or a change
# on disk in between must not leave anything stale: the metadata written by the shell
# equals that written by the same commands run one by one)
cat >"$SCRATCH/keptvg" <<CMDS
lvcreate -an -Zn -n k1 -L 8m $VA
lvcreate -d -an -Zn -n k2 -L 4m -i 2 -I 64k $VA
lvcreate --test -an -Zn -n ktest -L 8m $VA
lvcreate -an -Zn -n kbig -L 100g $VA
lvcreate -an -Zn -n k1 -L 4m $VA
lvextend -L +4m $VA/k1
lvs -o lv_name,lv_size $VA
lvreduce -f -L 4m $VA/k1
lvrename $VA k1 k1b
lvchange -p r $VA/k2
vgchange --addtag vt $VA
lvchange --addtag t1 $VA/k1b
lvcreate -an -Zn -n k3 -l 1 $VA
lvremove -f $VA/k2
lvextend --test -L +4m $VA/k3
lvcreate -an -Zn -n k4 -L 4m $VA
lvremove -f $VA/nosuch
lvcreate -an -Zn -n k5 -l 2 $VA
lvextend -d -l +1 $VA/k5
CMDS
meta_of() {   # the VG's metadata, ids, times and host masked
    "$LVX" vgcfgbackup -f "$SCRATCH/meta.$2" "$1" >/dev/null 2>&1 || return 1
    sed -E -e '/^[[:space:]]*(id|creation_time|creation_host|description) = /d' \
        -e '/^#/d' -e '/^(contents|version|creation_time|creation_host|description) /d' \
        "$SCRATCH/meta.$2"
}
fresh_va() {
    wipe
    "$LVX" pvcreate -y "$d0" "$d1" >/dev/null 2>&1 && "$LVX" vgcreate -s 1m "$VA" "$d0" "$d1" >/dev/null 2>&1
}
fresh_va
"$LVX" shell --status-fd 3 "$SCRATCH/keptvg" >"$SCRATCH/k.out" 2>"$SCRATCH/k.err" 3>"$SCRATCH/k.status"
meta_of "$VA" shell >"$SCRATCH/k.meta.shell"
fresh_va
: >"$SCRATCH/k1.status"
while IFS= read -r line; do
    rc=0
    eval "\"\$LVX\" $line" >/dev/null 2>&1 || rc=$?
    echo "$rc" >>"$SCRATCH/k1.status"
done <"$SCRATCH/keptvg"
meta_of "$VA" one >"$SCRATCH/k.meta.one"
test_eq "kept VG: exit statuses equal those of separate commands" \
    "$(tr '\n' ' ' <"$SCRATCH/k.status")" "$(tr '\n' ' ' <"$SCRATCH/k1.status")"
test_ok "kept VG: the shell reused the VG its previous LV command committed" \
    grep -q "Scan cache: reusing VG $VA as the previous command committed it" "$SCRATCH/k.err"
test_eq "kept VG: reused by both -d commands that followed an LV commit" \
    "$(grep -c "reusing VG $VA as the previous" "$SCRATCH/k.err")" 2
# seqno 14: vgcreate and the 13 commands that succeed without --test
test_ok "kept VG: the metadata has the LVs (k1b k3 k4 k5, not k2) and seqno 14" \
    bash -c 'grep -q "k1b {" "$1" && grep -q "k5 {" "$1" && ! grep -q "k2 {" "$1" && grep -q "seqno = 14" "$1"' _ "$SCRATCH/k.meta.shell"
if ! test_ok "kept VG: the shell wrote the same metadata as separate commands" \
        cmp -s "$SCRATCH/k.meta.shell" "$SCRATCH/k.meta.one"; then
    diag "$(diff "$SCRATCH/k.meta.shell" "$SCRATCH/k.meta.one" | head -20)"
fi
sanitizer_report "$SCRATCH/k.err" && _tap_result 1 "no sanitizer report (kept-VG session)"

# --- 4. odds and ends ---------------------------------------------------------------------
out=$(printf 'vgs '"'"'unterminated\nversion\n' | "$LVX" 2>&1)
test_ok "a parse error is reported and the shell goes on (stdin pipe, no arguments)" \
    grep -q 'Parse error' <<<"$out"
test_ok "... and runs the next line" grep -q 'lvx version' <<<"$out"
out=$(printf 'vgs --bogus\n' | "$LVX" shell --status-fd 3 3>&1 >/dev/null 2>/dev/null)
test_eq "status of an invalid command line is 3" "$out" 3
out=$(printf 'frobnicate\n' | "$LVX" shell --status-fd 3 3>&1 >/dev/null 2>/dev/null)
test_eq "status of an unknown command is 2" "$out" 2
test_fail "lvx shell with a missing file fails" "$LVX" shell "$SCRATCH/nonexistent"
test_fail "lvx with no command and stdin /dev/null is a usage error" \
    bash -c '"$LVX" </dev/null'

done_testing
