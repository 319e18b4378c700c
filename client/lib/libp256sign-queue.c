/* SPDX-License-Identifier: ISC */
/*
 * The handle's queues: byte buffers, pending requests and ready results. The bottom of the
 * library: it calls no other file of it, so connection and framing code may both use it.
 */
#include <stdlib.h>
#include <string.h>

#include "libp256sign-private.h"

/* The first size of a buffer; it doubles from there (the read side up to one whole frame). */
#define BUF_INITIAL 4096

int queue_buf_reserve(struct buf *b, size_t more)
{
	size_t cap;
	uint8_t *p;

	if (b->head > 0 && b->head == b->len)
		b->head = b->len = 0;
	if (b->cap - b->len >= more)
		return 0;
	if (b->head > 0) {	/* slide the waiting bytes to the front before growing */
		memmove(b->data, b->data + b->head, b->len - b->head);
		b->len -= b->head;
		b->head = 0;
		if (b->cap - b->len >= more)
			return 0;
	}
	cap = b->cap ? b->cap : BUF_INITIAL;
	while (cap - b->len < more)
		cap *= 2;
	if ((p = realloc(b->data, cap)) == NULL)
		return P256SIGN_E_NOMEM;
	b->data = p;
	b->cap = cap;
	return 0;
}

void queue_buf_free(struct buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

void p256sign_result_clear(struct p256sign_result *res)
{
	if (res == NULL)
		return;
	free(res->json);
	free(res->certificate);
	memset(res, 0, sizeof(*res));
}

int queue_push_result(struct p256sign *h, struct p256sign_result *res)
{
	struct p256sign_result *p;
	size_t cap;

	if (h->ready_head > 0 && h->n_ready == h->cap_ready) {
		memmove(h->ready, h->ready + h->ready_head,
			(h->n_ready - h->ready_head) * sizeof(*h->ready));
		h->n_ready -= h->ready_head;
		h->ready_head = 0;
	}
	if (h->n_ready == h->cap_ready) {
		cap = h->cap_ready ? h->cap_ready * 2 : 16;
		if ((p = realloc(h->ready, cap * sizeof(*p))) == NULL) {
			p256sign_result_clear(res);
			return P256SIGN_E_NOMEM;
		}
		h->ready = p;
		h->cap_ready = cap;
	}
	h->ready[h->n_ready++] = *res;
	return 0;
}

void queue_remove_pending(struct p256sign *h, size_t i)
{
	memmove(h->pending + i, h->pending + i + 1, (h->n_pending - i - 1) * sizeof(*h->pending));
	h->n_pending--;
}

int queue_fail_pending(struct p256sign *h, size_t i, int err)
{
	struct p256sign_result res = { .id = h->pending[i].id, .op = h->pending[i].op, .error = err };

	queue_remove_pending(h, i);
	return queue_push_result(h, &res);
}
