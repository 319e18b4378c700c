/* SPDX-License-Identifier: ISC */
/* The table of messages between the roles, and their framing (ipc.h). */
#include "ipc.h"

#include <string.h>

#include "cursor.h"

static const struct ipc_type_info {
	const char *name;
	enum proc_role from, to;
	uint32_t body;		/* fixed part */
	uint32_t trailing_max;	/* bytes that may follow it */
	uint16_t reply;		/* the type that answers it, or 0 */
} types[IPC_TYPE_MAX] = {
#define T(type, name, from, to, body, trailing, reply) \
	[type] = { name, from, to, body, trailing, reply }
	T(IPC_SIGN, "sign", PROC_PARENT, PROC_SIGNER, sizeof(struct ipc_sign), 0, IPC_SIGNATURE),
	T(IPC_SIGNATURE, "signature", PROC_SIGNER, PROC_PARENT, sizeof(struct ipc_signature), 0, 0),
	T(IPC_SELFTEST, "selftest", PROC_PARENT, PROC_SIGNER, 0, 0, IPC_SELFTEST_RESULT),
	T(IPC_SELFTEST_RESULT, "selftest-result", PROC_SIGNER, PROC_PARENT,
	    sizeof(struct ipc_signature), 0, 0),
	T(IPC_PING, "ping", PROC_PARENT, PROC_SIGNER, 0, 0, IPC_PONG),
	T(IPC_PONG, "pong", PROC_SIGNER, PROC_PARENT, 0, 0, 0),
	T(IPC_KEY_PUBLIC, "key-public", PROC_KEYHOLDER, PROC_PARENT,
	    sizeof(struct ipc_key_public), 0, 0),
	T(IPC_KEYS_READY, "keys-ready", PROC_KEYHOLDER, PROC_PARENT,
	    sizeof(struct ipc_keys_ready), 0, 0),
	T(IPC_SIGNER_FD, "signer-fd", PROC_KEYHOLDER, PROC_PARENT, sizeof(struct ipc_signer), 0, 0),
	T(IPC_SIGNER_EXIT, "signer-exit", PROC_KEYHOLDER, PROC_PARENT,
	    sizeof(struct ipc_signer_exit), 0, 0),
	T(IPC_SIGNER_RESTART, "signer-restart", PROC_PARENT, PROC_KEYHOLDER,
	    sizeof(struct ipc_signer), 0, 0),
	T(IPC_RELOAD, "reload", PROC_PARENT, PROC_KEYHOLDER, 0, 0, 0),
	T(IPC_RELOAD_FAILED, "reload-failed", PROC_KEYHOLDER, PROC_PARENT, 0, IPC_TEXT_MAX, 0),
	T(IPC_SIGN_TLS, "sign-tls", PROC_PARENT, PROC_SIGNER, sizeof(struct ipc_sign_tls), 0,
	    IPC_SIGNATURE),
	T(IPC_AUDIT_SEAL, "audit-seal", PROC_PARENT, PROC_KEYHOLDER, sizeof(struct ipc_audit_seal),
	    0, IPC_AUDIT_SEALED),
	T(IPC_AUDIT_SEALED, "audit-sealed", PROC_KEYHOLDER, PROC_PARENT,
	    sizeof(struct ipc_audit_sealed), 0, 0),
#undef T
};

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
