/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench/pvcreate-probe.c - the floor of pvcreate's signature check: libblkid's full
 * probe (superblocks with magic and bad-checksum reporting, partition tables), the one
 * lvx (dev/signature.c) and LVM2 (use_blkid_wiping) run on every device they
 * initialise, alone: no label, no metadata, no lock.  Built and run by bench/pvcreate.
 *   pvcreate-probe THREADS DEV...   probes every DEV, on THREADS threads (each takes
 *                                   the next device), prints "ms signatures"
 */
#include <blkid/blkid.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static char **devs;
static int ndevs;
static atomic_int next_dev, found;

static void probe(const char *path)
{
    blkid_probe pr = blkid_new_probe_from_filename(path);
    if (!pr) {
        fprintf(stderr, "pvcreate-probe: cannot probe %s\n", path);
        exit(1);
    }
    blkid_probe_enable_superblocks(pr, 1);
    blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_MAGIC |
                                          BLKID_SUBLKS_BADCSUM);
    blkid_probe_enable_partitions(pr, 1);
    blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC);
    while (blkid_do_probe(pr) == 0)
        atomic_fetch_add(&found, 1);
    blkid_free_probe(pr);
}

static void *worker(void *arg)
{
    (void)arg;
    int i;
    while ((i = atomic_fetch_add(&next_dev, 1)) < ndevs)
        probe(devs[i]);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: pvcreate-probe THREADS DEV...\n");
        return 3;
    }
    int nthreads = atoi(argv[1]);
    devs = argv + 2;
    ndevs = argc - 2;
    if (nthreads < 1)
        nthreads = 1;
    if (nthreads > ndevs)
        nthreads = ndevs;
    probe(devs[0]);   /* libblkid's one-time set-up, untimed (lvx does the same) */
    atomic_store(&found, 0);
    pthread_t *t = calloc((size_t)nthreads, sizeof(*t));
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int i = 0; i < nthreads; i++)
        if (pthread_create(&t[i], NULL, worker, NULL) != 0) {
            fprintf(stderr, "pvcreate-probe: cannot start a thread\n");
            return 5;
        }
    for (int i = 0; i < nthreads; i++)
        pthread_join(t[i], NULL);
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("%.1f %d\n", (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6,
           atomic_load(&found));
    free(t);
    return 0;
}
