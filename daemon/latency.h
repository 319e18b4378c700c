/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_LATENCY_H
#define P256SIGND_LATENCY_H

#include <jansson.h>
#include <stdint.h>

/*
 * Reply latency per op, in fixed buckets (STATUS "latency", docs/protocol.md section 6): the
 * time from the frame taken to the reply handed out, as each audit record's `us`. Fixed bounds,
 * the same in every daemon, so that histograms of many hosts add up bucket by bucket.
 */

#define LATENCY_BOUNDS 14	/* upper bounds; one more bucket counts what is above the last */
#define LATENCY_OPS 10		/* the 9 request types, and "frame" for a frame without one */

struct latency_op {
	uint64_t buckets[LATENCY_BOUNDS + 1];
	uint64_t sum_us;
	uint64_t errors;	/* of the answers counted, the ERROR responses */
};

struct latency {
	struct latency_op op[LATENCY_OPS];
};

/* Counts one answer to a request of type (0 or an unknown type: "frame") that took us. */
void latency_observe(struct latency *l, uint8_t type, uint64_t us, int error);

/* STATUS's "latency" object. NULL when out of memory. */
json_t *latency_json(const struct latency *l);

#endif
