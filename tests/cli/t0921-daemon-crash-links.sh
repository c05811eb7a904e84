#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0921-daemon-crash-links: the /dev links of user-space-activated LVs after the whole
# lvx daemon (supervisor and worker) is killed.  Three LVs: "held" (writable, held
# open through /dev/VG/held with exec 3<>), "ro" (read-only, held open) and "idle"
# (not open; after the kill its loop device is freed and a foreign image is attached to
# that very device number, as anyone's `losetup -f` could).  After the restart
# (`lvx daemon start`, then the next lvx command):
#   - every /dev/VG/LV and /dev/mapper/VG-LV link points at the loop device whose
#     backing file (/sys/block/loopN/loop/backing_file) is that LV's FUSE file, the
#     one lvs reports (lv_kernel_minor), and data written before the kill reads back;
#   - "held" got a new loop device (its old one is held, bound to the dead daemon's
#     file); the old one is freed at the holder's last close and no link points at it;
#   - "ro" keeps its loop device (re-bound to the new file) where the kernel can, else
#     gets a new one like "held";
#   - the foreign device is left alone (still backed by the foreign image) and no link
#     points at it;
#   - while no daemon runs, a linked device is never freed (it stays bound to the dead
#     daemon's file even after its holder closes);
#   - an LV renamed while active keeps its device and links across a worker kill and
#     gets its links at its new name after a whole-daemon kill.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

need_loop
need_lvx
[[ -c /dev/fuse ]] || skip_all "no /dev/fuse"

VG=vgcl$$
t0921_cleanup() {
    exec 3>&- 4>&-
    if [[ -n ${LVX_RUN_DIR:-} ]]; then
        "$LVX" vgchange -an "$VG" >/dev/null 2>&1
        uspace_cleanup
    fi
    cleanup
}
trap t0921_cleanup EXIT
[[ -e /dev/$VG ]] && skip_all "/dev/$VG exists"

DEV=$(make_loop 300M)
uspace_env "$SCRATCH/us" "$DEV"
RUN=$LVX_RUN_DIR

test_ok "pvcreate" lvx pvcreate -q "$DEV"
test_ok "vgcreate $VG" lvx vgcreate -q "$VG" "$DEV"
test_ok "lvcreate held" lvx lvcreate -q -Zn -n held -L 16m "$VG"
test_ok "lvcreate idle" lvx lvcreate -q -Zn -n idle -L 16m "$VG"
test_ok "lvcreate ro (read-only)" lvx lvcreate -q -Zn -pr -n ro -L 16m "$VG"

backing() { cat "/sys/block/${1#/dev/}/loop/backing_file" 2>/dev/null; }
# links_ok LV: both links point at one loop device backed by the LV's FUSE file, the
# device lvs reports
links_ok() {
    local lv=$1 a b minor
    a=$(readlink "/dev/$VG/$lv") && b=$(readlink "/dev/mapper/$VG-$lv") || {
        echo "missing link(s) of $lv"; return 1; }
    [[ $a == "$b" && $a == /dev/loop* ]] || { echo "links of $lv: $a, $b"; return 1; }
    [[ $(backing "$a") == "$RUN/vol/$VG-$lv" ]] || {
        echo "$a of $lv is backed by '$(backing "$a")'"; return 1; }
    minor=$(lvx lvs --noheadings -o lv_kernel_minor "$VG/$lv" | tr -d ' ')
    [[ $minor == "${a#/dev/loop}" ]] || { echo "lvs says minor $minor, link $a"; return 1; }
}
# no link of the VG points at a device that is not backed by its LV's file
no_foreign_links() {
    local l t lv bad=0
    for l in "/dev/$VG"/* "/dev/mapper/$VG"-*; do
        [[ -L $l ]] || continue
        t=$(readlink "$l")
        lv=${l##*/}
        lv=${lv#"$VG"-}
        if [[ $(backing "$t") != "$RUN/vol/$VG-$lv" ]]; then
            echo "$l -> $t backed by '$(backing "$t")'"
            bad=1
        fi
    done
    return $bad
}

for lv in held idle ro; do test_ok "$lv: links point at its loop device" links_ok "$lv"; done
old_held=$(readlink "/dev/$VG/held")
old_idle=$(readlink "/dev/$VG/idle")
old_ro=$(readlink "/dev/$VG/ro")
head -c 1M /dev/urandom >"$SCRATCH/data"
test_ok "write 1 MiB through /dev/$VG/held" dd if="$SCRATCH/data" of="/dev/$VG/held" bs=1M \
    oflag=direct conv=fsync status=none

exec 3<>"/dev/$VG/held" 4<"/dev/$VG/ro"
read -r sup worker <<<"$(uspace_daemon_pids)"
test_ok "the daemon runs (supervisor and worker)" test -n "$sup" -a -n "$worker"
kill -9 "$sup" "$worker"
for i in $(seq 50); do [[ -z $(uspace_daemon_pids) ]] && break; sleep 0.1; done
test_ok "supervisor and worker are gone" test -z "$(uspace_daemon_pids)"

# the idle LV's device is freed and taken by someone else's image
truncate -s 8M "$SCRATCH/foreign.img"
foreign=""
if losetup -d "$old_idle" 2>/dev/null; then
    for i in $(seq 20); do [[ -z $(backing "$old_idle") ]] && break; sleep 0.1; done
    if losetup "$old_idle" "$SCRATCH/foreign.img" 2>/dev/null; then
        foreign=$old_idle
        echo "$foreign" >>"$SCRATCH/.loops"   # detached by cleanup
    fi
fi

test_ok "lvx daemon start after the kill" lvx daemon start
test_ok "a new daemon runs" test -n "$(uspace_daemon_pids)"
for lv in held idle ro; do test_ok "$lv: links point at its loop device after the restart" links_ok "$lv"; done
test_eq "/dev/$VG (made again by the daemon) is 0755 like LVM2's" "755" "$(stat -c %a "/dev/$VG")"
new_held=$(readlink "/dev/$VG/held")
test_ok "held: a new loop device ($new_held; the old $old_held is held)" test "$new_held" != "$old_held"
test_eq "held: its old device is still bound to the dead daemon's file" "/$VG-held" "$(backing "$old_held")"
new_ro=$(readlink "/dev/$VG/ro")
# LOOP_CHANGE_FD needs the dead file's size, which kernels from 6.16 on ask the dead
# FUSE connection for: then it gets a new device like a writable LV
diag "ro: $old_ro before the kill, $new_ro after ($([[ $old_ro == "$new_ro" ]] && echo re-bound || echo new device))"
if [[ -n $foreign ]]; then
    test_eq "the foreign device $foreign is left alone" "$SCRATCH/foreign.img" "$(backing "$foreign")"
    test_ok "idle: its links do not point at the foreign device" test "$(readlink "/dev/$VG/idle")" != "$foreign"
else
    test_skip "could not attach a foreign image to $old_idle (taken meanwhile)"
fi
test_eq "data written before the kill reads back through /dev/$VG/held" \
    "$(sha256sum <"$SCRATCH/data")" \
    "$(dd if="/dev/$VG/held" bs=1M count=1 iflag=direct status=none | sha256sum)"
test_ok "no link points at a device not backed by its LV's file" no_foreign_links

exec 3>&- 4>&-
# freed: no longer bound to the dead daemon's file (a busy machine may attach something
# else to it at once: that is exactly what no link may then point at)
freed_dev() { [[ $(backing "$1") != "/$VG-$2" ]]; }
for i in $(seq 50); do freed_dev "$old_held" held && break; sleep 0.1; done
test_ok "held's old device is freed at the holder's last close" freed_dev "$old_held" held
if [[ $new_ro != "$old_ro" ]]; then
    test_ok "ro's old device is freed at the holder's last close" freed_dev "$old_ro" ro
fi
freed="-e $old_held"
[[ $new_ro != "$old_ro" ]] && freed+=" -e $old_ro"
test_ok "no link points at a freed device" \
    sh -c "! readlink /dev/$VG/* /dev/mapper/$VG-* | grep -qx $freed"
test_ok "no link points at a device not backed by its LV's file (after the close)" no_foreign_links

# a second kill with held open; the holder closes before the restart: until a new
# daemon runs, the device the links point at stays bound to the dead daemon's file (never
# freed, so nobody else can take it); the next lvx command restarts the daemon
cur_held=$(readlink "/dev/$VG/held")
exec 3<>"/dev/$VG/held"
read -r sup worker <<<"$(uspace_daemon_pids)"
kill -9 "$sup" "$worker"
for i in $(seq 50); do [[ -z $(uspace_daemon_pids) ]] && break; sleep 0.1; done
exec 3>&-
sleep 0.3
test_eq "no daemon, holder closed: /dev/$VG/held still points at its old device" \
    "$cur_held" "$(readlink "/dev/$VG/held")"
test_eq "... which is still bound to the dead daemon's file (not freed)" \
    "$RUN/vol/$VG-held" "$(backing "$cur_held")"
test_ok "lvs after a second kill (restarts the daemon)" lvx lvs "$VG"
for lv in held idle ro; do test_ok "$lv: links point at its loop device after the second restart" links_ok "$lv"; done
test_ok "no link points at a device not backed by its LV's file (second restart)" no_foreign_links
[[ -n $foreign ]] && test_eq "the foreign device is still left alone" "$SCRATCH/foreign.img" "$(backing "$foreign")"

# a renamed active LV (the kernel keeps the old file name of its loop device): a worker
# kill, then a whole-daemon kill, still find its device by its backing file
test_ok "lvrename idle -> idle2 while active" lvx lvrename "$VG" idle idle2
ren=$(readlink "/dev/$VG/idle2")
test_ok "idle2: links point at the renamed LV's device" test -n "$ren" -a -b "/dev/$VG/idle2"
read -r sup worker <<<"$(uspace_daemon_pids)"
kill -9 "$worker"
for i in $(seq 50); do
    read -r sup2 worker2 <<<"$(uspace_daemon_pids)"
    [[ -n $worker2 && $worker2 != "$worker" ]] && break
    sleep 0.1
done
test_ok "worker killed: the supervisor started a new one" test -n "$worker2" -a "$worker2" != "$worker"
for i in $(seq 50); do lvx daemon status >/dev/null 2>&1 && break; sleep 0.1; done
test_eq "idle2 keeps its loop device and links after the worker restart" "$ren" "$(readlink "/dev/$VG/idle2")"
test_eq "... /dev/mapper too" "$ren" "$(readlink "/dev/mapper/$VG-idle2")"
read -r sup worker <<<"$(uspace_daemon_pids)"
kill -9 "$sup" "$worker"
for i in $(seq 50); do [[ -z $(uspace_daemon_pids) ]] && break; sleep 0.1; done
test_ok "lvs after killing the whole daemon" lvx lvs "$VG"
test_ok "idle2: links point at its loop device after the restart" links_ok idle2
test_ok "no link of the old name idle is left" test ! -e "/dev/$VG/idle" -a ! -L "/dev/mapper/$VG-idle"
test_ok "no link points at a device not backed by its LV's file (after the rename)" no_foreign_links

test_ok "vgchange -an" lvx vgchange -an "$VG"
test_ok "links are gone" test ! -e "/dev/$VG" -a ! -e "/dev/mapper/$VG-held"
test_ok "vgremove" lvx vgremove -q -f "$VG"
test_ok "lvx daemon stop" lvx daemon stop
for i in $(seq 50); do [[ -z $(uspace_daemon_pids) ]] && break; sleep 0.1; done
uspace_leftovers >"$SCRATCH/left" 2>&1
test_ok "no loop device, mount or daemon left behind" test ! -s "$SCRATCH/left"
_diag_file "left" "$SCRATCH/left"
done_testing
