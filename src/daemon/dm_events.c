/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/dm_events.c - the thread that waits for the kernel's device-mapper events
 * while devices that device-mapper runs are watched (dm_watch.c), as LVM2's dmeventd
 * waits in DM_DEV_WAIT: it holds its own /dev/mapper/control open, arms it
 * (DM_DEV_ARM_POLL, Linux 4.13) and sleeps in poll() until any device-mapper event
 * (a target's: a thin pool past its low water mark, out of data space or metadata, a
 * snapshot invalidated; or a device created, resumed, renamed, removed), then asks
 * every watched device's event number (DM_DEV_STATUS, no status read) and kicks the
 * monitor when one moved (dm_watch.c marks it: its status is read at once).  Arming
 * before the asking means no event is lost between the two.  Unlike one DM_DEV_WAIT per
 * device it holds no reference on a device (a removal is never held up) and needs one
 * thread whatever the number of devices.  A kernel without DEV_ARM_POLL: the event
 * numbers are asked every poll_secs seconds instead.  Nothing watched: the thread
 * closes the control device and waits until an entry is added.  dm_watch.c wakes it
 * through an eventfd it polls next to the control device (lvxd_dm_events_wake()) when
 * an entry is added or dropped, so the last drop closes the control device at once,
 * not at the next device-mapper event.
 *
 * Entry points: lvxd_dm_events_start(), lvxd_dm_events_wake().
 */
#include "daemon/daemon_int.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "dev/dm_ioctl.h"

static _Atomic int wake_fd = -1;      /* eventfd: lvxd_dm_events_wake() adds 1 */
static int fallback_secs = 10;

void lvxd_dm_events_wake(void)
{
    uint64_t one = 1;
    int fd = wake_fd;
    if (fd >= 0 && write(fd, &one, sizeof(one)) < 0) {
        /* EAGAIN: the counter is full, a wake is pending anyway */
    }
}

/* Until lvxd_dm_events_wake() or fd (when >= 0) is readable, or secs pass (when secs >
 * 0; poll's timeout is relative: a step of the wall clock does not move it).  Reading
 * the eventfd clears the pending wakes. */
static void wait_wake(int fd, int secs)
{
    struct pollfd pf[2] = { { .fd = wake_fd, .events = POLLIN }, { .fd = fd, .events = POLLIN } };
    if (wake_fd < 0)                  /* no eventfd: nothing wakes us, so poll */
        secs = fallback_secs;
    while (poll(pf, fd >= 0 ? 2 : 1, secs > 0 ? secs * 1000 : -1) < 0 && errno == EINTR)
        ;
    uint64_t n;
    if (pf[0].revents & POLLIN && read(wake_fd, &n, sizeof(n)) < 0) {
        /* EAGAIN: taken meanwhile */
    }
}

static void *events_main(void *arg)
{
    (void)arg;
    struct lvx_ctx ctx;
    struct lvx_dm dm = { .fd = -1 };
    bool told = false;
    lvx_ctx_init(&ctx);
    for (;;) {
        if (dm.fd < 0 && lvxd_dm_watch_events(&ctx, NULL) < 0) {
            wait_wake(-1, 0);            /* nothing watched: control not even opened */
            continue;
        }
        if (dm.fd < 0 && lvx_dm_open(&ctx, &dm) < 0) {
            lvx_error_clear(&ctx);
            wait_wake(-1, fallback_secs);
            continue;
        }
        int armed = lvx_dm_arm_poll(&ctx, &dm);
        if (armed < 0 && !told) {
            lvxd_log("warning: device-mapper events cannot be polled here (%s): event "
                     "numbers asked every %d s.", ctx.errmsg[0] ? ctx.errmsg : strerror(-armed),
                     fallback_secs);
            told = true;
        }
        lvx_error_clear(&ctx);
        int marked = lvxd_dm_watch_events(&ctx, &dm);
        if (marked > 0)
            lvxd_monitor_kick();
        if (marked < 0) {                /* nothing watched: no descriptor kept */
            lvx_dm_close(&dm);
            wait_wake(-1, 0);
            continue;
        }
        if (armed < 0) {
            wait_wake(-1, fallback_secs);
            continue;
        }
        wait_wake(dm.fd, 0);             /* an event, or a watch added or dropped */
    }
    return NULL;
}

void lvxd_dm_events_start(int poll_secs)
{
    pthread_t th;
    pthread_attr_t attr;
    fallback_secs = poll_secs < 1 ? 1 : poll_secs;
    int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (fd < 0)      /* the thread still runs, waking every fallback_secs */
        lvxd_log("warning: device-mapper events looked at every %d s: eventfd: %s",
                 fallback_secs, strerror(errno));
    wake_fd = fd;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&th, &attr, events_main, NULL);
    pthread_attr_destroy(&attr);
    if (rc != 0)
        lvxd_log("warning: no device-mapper event thread: %s", strerror(rc));
}
