/* SPDX-License-Identifier: ISC */
/* A signer's pools of precomputed nonces (signer-pools.h). */
#include "signer-pools.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"

/* 1 when the channel has something to read (a request, or its end), else 0. */
static int request_waiting(int fd)
{
	uint8_t b;
	ssize_t n = recv(fd, &b, 1, MSG_DONTWAIT | MSG_PEEK);

	return n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK);
}

int signer_refill_idle(int fd, struct p256_pool **pools, size_t n, uint64_t quiet_since_us)
{
	int r;

	for (size_t i = 0; i < n; i++) {
		if (pools[i] == NULL || p256_pool_missing(pools[i]) == 0)
			continue;
		if (request_waiting(fd))
			return 0;
		if (clock_now_us() - quiet_since_us < SIGNER_REFILL_DELAY_US) {
			(void)sched_yield();	/* always succeeds on Linux */
			return 1;
		}
		if ((r = p256_pool_refill(pools[i], SIGNER_POOL_REFILL)) != 0) {
			/* Without it the key signs on demand, as hedged keys do; no retry loop. */
			log_error("signer %d: key %zu's nonce pool cannot be refilled (%s): it signs on "
			    "demand from now on", (int)getpid(), i, p256_err_tag(r));
			p256_pool_free(pools[i]);
			pools[i] = NULL;
		}
		return 1;
	}
	return 0;
}

int signer_pools_new(const struct keyset *ks, struct p256_pool ***out)
{
	struct p256_pool **pools = calloc(ks->n, sizeof(*pools));
	int r;

	*out = pools;
	if (pools == NULL) {
		log_error("signer %d: out of memory", (int)getpid());
		return -1;
	}
	for (size_t i = 0; i < ks->n; i++) {
		if (ks->pub[i].nonce != P256_NONCE_PRECOMPUTED)
			continue;
		if ((r = p256_pool_new(&pools[i], &ks->priv[i], SIGNER_POOL_ENTRIES)) != 0) {
			log_error("signer %d: key %s: cannot make its nonce pool (%s): %s",
			    (int)getpid(), ks->pub[i].name, p256_err_tag(r), strerror(errno));
			return -1;
		}
	}
	return 0;
}

void signer_pools_free(const struct keyset *ks, struct p256_pool **pools)
{
	for (size_t i = 0; pools != NULL && i < ks->n; i++)
		p256_pool_free(pools[i]);
	free(pools);
}
