/* SPDX-License-Identifier: ISC */
/* Reply latency histograms per op (latency.h). */
#include "latency.h"

#include "proto.h"

/* Microseconds: from a PING's few (the loop's own cost) to a second (signers saturated). */
static const uint64_t bounds_us[LATENCY_BOUNDS] = {
	25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000, 1000000,
};

/* Request types 1 .. 9 are their own index; anything else is a frame's (0), as audit's op. */
static unsigned op_index(uint8_t type)
{
	return type < LATENCY_OPS && proto_type_name(type)[0] != 'u' ? type : 0;
}

static const char *op_name(unsigned i)
{
	return i == 0 ? "frame" : proto_type_name((uint8_t)i);
}

void latency_observe(struct latency *l, uint8_t type, uint64_t us, int error)
{
	struct latency_op *o = &l->op[op_index(type)];
	unsigned b = 0;

	while (b < LATENCY_BOUNDS && us > bounds_us[b])
		b++;
	o->buckets[b]++;
	o->sum_us += us;
	o->errors += error != 0;
}

static json_t *u64_array(const uint64_t *v, unsigned n)
{
	json_t *a = json_array();

	for (unsigned i = 0; a != NULL && i < n; i++) {
		if (json_array_append_new(a, json_integer((json_int_t)v[i])) != 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

json_t *latency_json(const struct latency *l)
{
	json_t *ops = json_object(), *doc;

	for (unsigned i = 0; ops != NULL && i < LATENCY_OPS; i++) {
		const struct latency_op *o = &l->op[i];

		/* json_object_set_new takes its value also when it fails; json_pack frees its o
		 * arguments when it fails. */
		if (json_object_set_new(ops, op_name(i), json_pack("{s:o, s:I, s:I}",
		    "buckets", u64_array(o->buckets, LATENCY_BOUNDS + 1),
		    "sum_us", (json_int_t)o->sum_us, "errors", (json_int_t)o->errors)) != 0) {
			json_decref(ops);
			return NULL;
		}
	}
	doc = json_pack("{s:o, s:o}", "bounds_us", u64_array(bounds_us, LATENCY_BOUNDS),
	    "ops", ops);
	return doc;
}
