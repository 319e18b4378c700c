/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_SIGNER_POOLS_H
#define P256SIGND_SIGNER_POOLS_H

#include <stddef.h>
#include <stdint.h>

#include "keyset.h"

/*
 * Precomputed nonces: a key whose nonce mode is P256_NONCE_PRECOMPUTED gets a pool of
 * SIGNER_POOL_ENTRIES (about 40 KiB of locked memory), filled only in idle time,
 * SIGNER_POOL_REFILL entries at a time (about 90 us of work: the longest a request that
 * arrives during a refill waits for it), and not before SIGNER_REFILL_DELAY_US after the
 * signer's last answers: until then the parent is forwarding them, and on a machine with few
 * CPUs a refill at once would compete with that.
 */
#define SIGNER_POOL_ENTRIES 256
#define SIGNER_POOL_REFILL 8
#define SIGNER_REFILL_DELAY_US 100

/*
 * The signer's idle work, between reads: when nothing waits to be read on fd (a peek, not a
 * read) and the last answers were written at least SIGNER_REFILL_DELAY_US ago (at
 * quiet_since_us, clock_now_us), one refill of the first of the n pools (NULL entries skipped)
 * that is not full. Returns 1 when it did one or is waiting for the delay (it yields the CPU:
 * look again), 0 when a request waits or every pool is full. A pool that cannot be refilled is
 * freed and set to NULL (logged): its key signs on demand.
 */
int signer_refill_idle(int fd, struct p256_pool **pools, size_t n, uint64_t quiet_since_us);

/* A pool for every key of ks whose nonce mode is precomputed (NULL for the others), made before
 * the sandbox (which forbids mapping and locking them). 0, or -1 (logged; *out still to free). */
int signer_pools_new(const struct keyset *ks, struct p256_pool ***out);

/* Frees the pools of signer_pools_new (NULL: none). */
void signer_pools_free(const struct keyset *ks, struct p256_pool **pools);

#endif
