/* SPDX-License-Identifier: ISC */
/* The counts of an outage's dropped records and their `kinds` member (audit-drops.h). */
#include "audit-drops.h"

#include <stdio.h>
#include <string.h>

static const char *const OPS[AUDIT_DROPS_OPS] = { "ping", "sign", "sign-message", "pubkey",
	"verify", "list-keys", "status", "sign-tls", "certificate", "frame" };

void audit_drops_count(struct audit_drops *d, const struct audit_request_entry *q)
{
	d->records++;
	for (size_t op = 0; op < AUDIT_DROPS_OPS; op++)
		if (strcmp(q->op, OPS[op]) == 0 && q->error <= PROTO_E_MAX) {
			d->by[op][q->error]++;
			return;
		}
	d->other++;
}

/* Room kept at the end for ", other N" (N of 20 digits at most) and the NUL. */
#define OTHER_ROOM 29

void audit_drops_kinds(const struct audit_drops *d, char out[AUDIT_DROPS_KINDS_MAX])
{
	uint64_t other = d->other;
	size_t fill = 0;
	int n;

	out[0] = '\0';
	for (size_t op = 0; op < AUDIT_DROPS_OPS; op++)
		for (uint16_t e = 0; e <= PROTO_E_MAX; e++) {
			char kind[96];

			if (d->by[op][e] == 0)
				continue;
			n = snprintf(kind, sizeof(kind), "%s%s %s %llu", fill ? ", " : "", OPS[op],
			    e == 0 ? "ok" : proto_error_tag(e), (unsigned long long)d->by[op][e]);
			if (n < 0 || (size_t)n >= sizeof(kind) ||
			    fill + (size_t)n + OTHER_ROOM > AUDIT_DROPS_KINDS_MAX) {
				other += d->by[op][e];
				continue;
			}
			memcpy(out + fill, kind, (size_t)n + 1);
			fill += (size_t)n;
		}
	if (other > 0)
		snprintf(out + fill, AUDIT_DROPS_KINDS_MAX - fill, "%sother %llu", fill ? ", " : "",
		    (unsigned long long)other);
}
