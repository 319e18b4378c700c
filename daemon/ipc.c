/* SPDX-License-Identifier: ISC */
/* Framing of parent <-> worker messages (ipc.h). */
#include "ipc.h"

#include <stdint.h>
#include <string.h>

#include "cursor.h"

static const struct {
	size_t body;
	enum ipc_direction dir;
} types[] = {
	[IPC_SIGN] = { sizeof(struct ipc_sign), IPC_TO_WORKER },
	[IPC_SIGNATURE] = { sizeof(struct ipc_signature), IPC_TO_PARENT },
	[IPC_SELFTEST] = { 0, IPC_TO_WORKER },
	[IPC_SELFTEST_RESULT] = { sizeof(struct ipc_signature), IPC_TO_PARENT },
	[IPC_PING] = { 0, IPC_TO_WORKER },
	[IPC_PONG] = { 0, IPC_TO_PARENT },
};

#define NTYPES (sizeof(types) / sizeof(types[0]))

size_t ipc_body_len(uint16_t type)
{
	if (type == 0 || type >= NTYPES)
		return SIZE_MAX;
	return types[type].body;
}

int ipc_next(const uint8_t *buf, size_t len, enum ipc_direction dir, struct ipc_header *h,
	const uint8_t **body, size_t *used)
{
	struct cursor c;
	size_t want;

	cursor_init(&c, buf, len);
	/* The header is in host order (both ends are this machine): copied out as it is. */
	if (cursor_copy(&c, h, sizeof(*h)) != 0)
		return 1;
	want = ipc_body_len(h->type);
	if (want == SIZE_MAX || types[h->type].dir != dir || h->len != want)
		return P256_ERR_LENGTH;
	if (cursor_get_bytes(&c, body, want) != 0)
		return 1;
	*used = sizeof(*h) + want;
	return 0;
}

int ipc_put(uint8_t *out, size_t cap, size_t *len, uint16_t type, uint32_t key, uint64_t id,
	const void *body)
{
	struct ipc_header h = { .type = type, .key = key, .id = id };
	size_t n = ipc_body_len(type);

	if (n == SIZE_MAX)
		return P256_ERR_LENGTH;
	if (*len > cap || cap - *len < sizeof(h) + n)
		return P256_ERR_BUFFER;
	h.len = (uint16_t)n;
	memcpy(out + *len, &h, sizeof(h));
	if (n > 0)
		memcpy(out + *len + sizeof(h), body, n);
	*len += sizeof(h) + n;
	return 0;
}
