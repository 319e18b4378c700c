/* SPDX-License-Identifier: ISC */
/* The table of messages between the roles, and their framing (ipc.h). */
#include "ipc.h"

#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "cursor.h"

static const struct ipc_type_info {
	const char *name;
	enum proc_role from, to;
	uint32_t body;		/* fixed part */
	uint32_t trailing_max;	/* bytes that may follow it */
	uint16_t reply;		/* the type that answers it, or 0 */
	uint16_t flags;		/* enum ipc_flag */
} types[IPC_TYPE_MAX] = {
#define IPC_INFO(type, name, from, to, body, trailing, reply, flags) \
	[type] = { name, PROC_##from, PROC_##to, body, trailing, reply, flags },
	IPC_MESSAGES(IPC_INFO)
#undef IPC_INFO
};

/* The state flags read a key set's generation from the body's first member. */
_Static_assert(offsetof(struct ipc_key_public, generation) == 0, "generation first");
_Static_assert(offsetof(struct ipc_keys_ready, generation) == 0, "generation first");
_Static_assert(offsetof(struct ipc_signer, generation) == 0, "generation first");
_Static_assert(offsetof(struct ipc_key_cert, generation) == 0, "generation first");

static const struct ipc_type_info *info(uint16_t type)
{
	return type > 0 && type < IPC_TYPE_MAX ? &types[type] : NULL;
}

uint16_t ipc_reply_type(uint16_t type)
{
	const struct ipc_type_info *t = info(type);

	return t != NULL ? t->reply : 0;
}

const char *ipc_type_name(uint16_t type)
{
	const struct ipc_type_info *t = info(type);

	return t != NULL ? t->name : "unknown";
}

int ipc_signature_check(const struct ipc_signature *s)
{
	return s->from_pool <= 1 ? 0 : IPC_ERR_FIELD;
}

static int length_ok(const struct ipc_type_info *t, uint32_t len)
{
	return len >= t->body && len - t->body <= t->trailing_max;
}

int ipc_next(const uint8_t *buf, size_t len, enum proc_role from, enum proc_role to,
	struct ipc_header *h, const uint8_t **body, size_t *used)
{
	const struct ipc_type_info *t;
	struct cursor c;

	cursor_init(&c, buf, len);
	if (cursor_copy(&c, h, sizeof(*h)) != 0)
		return IPC_PARTIAL;
	if ((t = info(h->type)) == NULL)
		return IPC_ERR_TYPE;
	if (t->from != from || t->to != to)
		return IPC_ERR_ROUTE;
	if (h->flags != 0 || !length_ok(t, h->len))
		return IPC_ERR_LENGTH;
	if (cursor_get_bytes(&c, body, h->len) != 0)
		return IPC_PARTIAL;
	*used = sizeof(*h) + h->len;
	return 0;
}

int ipc_put(uint8_t *out, size_t cap, size_t *fill, uint16_t type, uint64_t id,
	const void *body, size_t len)
{
	const struct ipc_type_info *t = info(type);
	struct ipc_header h = { .type = type, .id = id };

	if (t == NULL)
		return IPC_ERR_TYPE;
	if (len > UINT32_MAX || !length_ok(t, (uint32_t)len))
		return IPC_ERR_LENGTH;
	if (*fill > cap || cap - *fill < sizeof(h) + len)
		return IPC_ERR_SPACE;
	h.len = (uint32_t)len;
	memcpy(out + *fill, &h, sizeof(h));
	if (len > 0)
		memcpy(out + *fill + sizeof(h), body, len);
	*fill += sizeof(h) + len;
	return 0;
}

void ipc_peer_init(struct ipc_peer *p, enum proc_role from, enum proc_role to,
	const ipc_handler handlers[IPC_TYPE_MAX], void *ctx)
{
	*p = (struct ipc_peer){ .from = from, .to = to, .handlers = handlers, .ctx = ctx };
}

/* 0 when the state allows a message of t with body now, else IPC_ERR_STATE. */
static int state_allows(const struct ipc_peer *p, const struct ipc_type_info *t,
	const uint8_t *body)
{
	uint32_t gen = 0;

	if (t->flags & (IPC_KEYSET | IPC_KEYSET_END | IPC_LAST_KEYSET))
		memcpy(&gen, body, sizeof(gen));	/* the table's body holds it (ipc.c) */
	if (t->flags & IPC_KEYSET)
		return gen == (p->keyset != 0 ? p->keyset : p->last_keyset + 1) ? 0 : IPC_ERR_STATE;
	if (p->keyset != 0)
		return t->flags & IPC_KEYSET_END && gen == p->keyset ? 0 : IPC_ERR_STATE;
	if (t->flags & IPC_KEYSET_END)
		return IPC_ERR_STATE;	/* no key set is being announced */
	if (t->flags & (IPC_LAST_KEYSET | IPC_AFTER_KEYS) && p->last_keyset == 0)
		return IPC_ERR_STATE;
	if (t->flags & IPC_LAST_KEYSET && gen != p->last_keyset)
		return IPC_ERR_STATE;
	return 0;
}

/* The state after a handled message of t with body. */
static void state_update(struct ipc_peer *p, const struct ipc_type_info *t, const uint8_t *body)
{
	if (t->flags & IPC_KEYSET)
		memcpy(&p->keyset, body, sizeof(p->keyset));
	if (t->flags & IPC_KEYSET_END) {
		p->last_keyset = p->keyset;
		p->keyset = 0;
	}
}

/* Checks one message against its flags and hands it to its handler: 0 or a fault. */
static int dispatch_one(struct ipc_peer *p, struct ipc_msg *m, int *fd)
{
	const struct ipc_type_info *t = info(m->h.type);
	ipc_handler fn = p->handlers[m->h.type];
	int r;

	if (fn == NULL)
		return IPC_ERR_ROUTE;
	if ((r = state_allows(p, t, m->body)) != 0)
		return r;
	m->fd = -1;
	if (t->flags & IPC_FD) {
		if (fd == NULL || *fd < 0)
			return IPC_ERR_FD;
		m->fd = *fd;
		*fd = -1;
	} else if (fd != NULL && *fd >= 0)
		return IPC_ERR_FD;	/* a descriptor travels alone with the message it belongs to */
	r = fn(p->ctx, m);
	if (m->fd >= 0)
		close(m->fd);
	if (r == 0)
		state_update(p, t, m->body);
	return r;
}

int ipc_dispatch(struct ipc_peer *p, const uint8_t *buf, size_t len, size_t max, int *fd,
	size_t *used)
{
	size_t n, one;
	int r = 0;

	*used = 0;
	for (n = 0; n < max; n++) {
		struct ipc_msg m;

		if ((r = ipc_next(buf + *used, len - *used, p->from, p->to, &m.h, &m.body, &one)) != 0)
			break;
		if ((r = dispatch_one(p, &m, fd)) != 0)
			return r;
		*used += one;
	}
	return r == IPC_PARTIAL ? 0 : r;
}

const char *ipc_err_text(int err)
{
	switch (err) {
	case IPC_ERR_TYPE: return "sent a message of an unknown type";
	case IPC_ERR_ROUTE: return "sent a message it may not send";
	case IPC_ERR_LENGTH: return "sent a message of a wrong length";
	case IPC_ERR_SPACE: return "sent a message too long for its buffer";
	case IPC_ERR_FIELD: return "sent a field out of its range";
	case IPC_ERR_STATE: return "sent a message out of order";
	case IPC_ERR_FD: return "sent a descriptor with the wrong message";
	case IPC_ERR_REPLY: return "sent a reply that matches no request";
	case IPC_ERR_CONTENT: return "sent a message its receiver refuses";
	default: return "broke the protocol";
	}
}
