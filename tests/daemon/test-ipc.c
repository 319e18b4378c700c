/* SPDX-License-Identifier: ISC */
/*
 * Unit test of the messages between the daemon's roles (daemon/ipc.c): every refusal of
 * ipc_next (unknown type, wrong sender or receiver, a length the table does not allow, flags),
 * partial messages, trailing bytes within their maximum, and several messages in one buffer, as
 * a batch arrives; and a signature's from_pool other than 0 or 1 (ipc_signature_check).
 */
#include <string.h>

#include "testutil.h"
#include "ipc.h"

/* Rewrites the header at buf and checks that ipc_next then refuses it with `want`. */
static void refused(uint8_t *buf, size_t len, const struct ipc_header *h, enum proc_role from,
	enum proc_role to, int want)
{
	struct ipc_header out;
	const uint8_t *body;
	size_t used;

	memcpy(buf, h, sizeof(*h));
	CHECK_INT(ipc_next(buf, len, from, to, &out, &body, &used), want);
}

int main(void)
{
	uint8_t buf[4 * IPC_MSG_MAX];
	struct ipc_sign sign = { .key = 7 };
	struct ipc_signature sig = { .result = P256_ERR_FAULT };
	struct ipc_header h, bad;
	const uint8_t *body;
	size_t len = 0, used, off;
	char text[IPC_TEXT_MAX + 1];

	memset(sign.digest, 0xab, sizeof(sign.digest));
	memset(sig.sig, 0x5c, sizeof(sig.sig));

	/* A batch: SIGN, PING, SELFTEST one after the other, read back in order. */
	test_case = "batch";
	CHECK_INT(ipc_put(buf, sizeof(buf), &len, IPC_SIGN, 100, &sign, sizeof(sign)), 0);
	CHECK_INT(ipc_put(buf, sizeof(buf), &len, IPC_PING, 101, NULL, 0), 0);
	CHECK_INT(ipc_put(buf, sizeof(buf), &len, IPC_SELFTEST, 102, NULL, 0), 0);
	CHECK_INT(len, 3 * sizeof(struct ipc_header) + sizeof(struct ipc_sign));
	off = 0;
	CHECK_INT(ipc_next(buf, len, PROC_PARENT, PROC_SIGNER, &h, &body, &used), 0);
	CHECK(h.type == IPC_SIGN && h.id == 100 && h.len == sizeof(sign) && h.flags == 0);
	CHECK_MEM(body, &sign, sizeof(sign));
	off += used;
	CHECK_INT(ipc_next(buf + off, len - off, PROC_PARENT, PROC_SIGNER, &h, &body, &used), 0);
	CHECK(h.type == IPC_PING && h.id == 101 && used == sizeof(h));
	off += used;
	CHECK_INT(ipc_next(buf + off, len - off, PROC_PARENT, PROC_SIGNER, &h, &body, &used), 0);
	CHECK(h.type == IPC_SELFTEST && h.id == 102);
	off += used;
	CHECK_INT(off, len);
	CHECK_INT(ipc_next(buf + off, len - off, PROC_PARENT, PROC_SIGNER, &h, &body, &used),
	    IPC_PARTIAL);

	/* Every split of a message is "partial", never an error and never a message. */
	test_case = "partial";
	len = 0;
	CHECK_INT(ipc_put(buf, sizeof(buf), &len, IPC_SIGNATURE, 9, &sig, sizeof(sig)), 0);
	for (size_t k = 0; k < len; k++)
		CHECK_INT(ipc_next(buf, k, PROC_SIGNER, PROC_PARENT, &h, &body, &used), IPC_PARTIAL);
	CHECK_INT(ipc_next(buf, len, PROC_SIGNER, PROC_PARENT, &h, &body, &used), 0);
	CHECK_MEM(body, &sig, sizeof(sig));

	/* Sender and receiver: a signature from anyone but a signer, or to anyone but the parent. */
	test_case = "route";
	CHECK_INT(ipc_next(buf, len, PROC_PARENT, PROC_SIGNER, &h, &body, &used), IPC_ERR_ROUTE);
	CHECK_INT(ipc_next(buf, len, PROC_KEYHOLDER, PROC_PARENT, &h, &body, &used),
	    IPC_ERR_ROUTE);
	CHECK_INT(ipc_next(buf, len, PROC_SIGNER, PROC_KEYHOLDER, &h, &body, &used),
	    IPC_ERR_ROUTE);

	/* A length one short or one long of a fixed body, and flags other than 0. */
	test_case = "length";
	memcpy(&bad, buf, sizeof(bad));
	bad.len = sizeof(sig) - 1;
	refused(buf, len, &bad, PROC_SIGNER, PROC_PARENT, IPC_ERR_LENGTH);
	bad.len = sizeof(sig) + 1;
	refused(buf, sizeof(buf), &bad, PROC_SIGNER, PROC_PARENT, IPC_ERR_LENGTH);
	bad.len = UINT32_MAX;	/* refused on the header alone: never waited for */
	refused(buf, sizeof(bad), &bad, PROC_SIGNER, PROC_PARENT, IPC_ERR_LENGTH);
	bad.len = sizeof(sig);
	bad.flags = 1;
	refused(buf, len, &bad, PROC_SIGNER, PROC_PARENT, IPC_ERR_LENGTH);

	/* Unknown types, in both directions. */
	test_case = "type";
	for (unsigned t = 0; t < 0x10000; t += t < 32 ? 1 : 251) {
		memset(&bad, 0, sizeof(bad));
		bad.type = (uint16_t)t;
		if (t >= IPC_SIGN && t < IPC_TYPE_MAX)
			continue;
		refused(buf, sizeof(bad), &bad, PROC_SIGNER, PROC_PARENT, IPC_ERR_TYPE);
		refused(buf, sizeof(bad), &bad, PROC_PARENT, PROC_SIGNER, IPC_ERR_TYPE);
		CHECK(strcmp(ipc_type_name((uint16_t)t), "unknown") == 0);
	}

	/* Trailing bytes: up to IPC_TEXT_MAX after RELOAD_FAILED's empty fixed part, not one more. */
	test_case = "trailing";
	memset(text, 'x', sizeof(text));
	len = 0;
	CHECK_INT(ipc_put(buf, sizeof(buf), &len, IPC_RELOAD_FAILED, 0, text, IPC_TEXT_MAX), 0);
	CHECK_INT(ipc_next(buf, len, PROC_KEYHOLDER, PROC_PARENT, &h, &body, &used), 0);
	CHECK_INT(h.len, IPC_TEXT_MAX);
	len = 0;
	CHECK_INT(ipc_put(buf, sizeof(buf), &len, IPC_RELOAD_FAILED, 0, text, IPC_TEXT_MAX + 1),
	    IPC_ERR_LENGTH);
	memcpy(&bad, buf, sizeof(bad));
	bad.len = IPC_TEXT_MAX + 1;
	refused(buf, sizeof(buf), &bad, PROC_KEYHOLDER, PROC_PARENT, IPC_ERR_LENGTH);
	/* A type without trailing bytes takes none. */
	len = 0;
	CHECK_INT(ipc_put(buf, sizeof(buf), &len, IPC_PING, 1, text, 1), IPC_ERR_LENGTH);

	/* Replies: the table's expected answer of each request type. */
	test_case = "replies";
	CHECK_INT(ipc_reply_type(IPC_SIGN), IPC_SIGNATURE);
	CHECK_INT(ipc_reply_type(IPC_SELFTEST), IPC_SELFTEST_RESULT);
	CHECK_INT(ipc_reply_type(IPC_PING), IPC_PONG);
	CHECK_INT(ipc_reply_type(IPC_SIGNATURE), 0);
	CHECK_INT(ipc_reply_type(IPC_TYPE_MAX), 0);
	CHECK(strcmp(ipc_type_name(IPC_SIGNER_FD), "signer-fd") == 0);

	/* A signature says it came from a key's pool (1) or not (0): anything else is refused. */
	test_case = "from_pool";
	CHECK_INT(ipc_signature_check(&sig), 0);
	sig.from_pool = 1;
	CHECK_INT(ipc_signature_check(&sig), 0);
	sig.from_pool = 2;
	CHECK_INT(ipc_signature_check(&sig), IPC_ERR_FIELD);
	sig.from_pool = UINT32_MAX;
	CHECK_INT(ipc_signature_check(&sig), IPC_ERR_FIELD);

	/* ipc_put refuses an unknown type and a buffer without room. */
	test_case = "put";
	len = 0;
	CHECK_INT(ipc_put(buf, sizeof(buf), &len, 0, 1, NULL, 0), IPC_ERR_TYPE);
	CHECK_INT(ipc_put(buf, sizeof(struct ipc_header) + 1, &len, IPC_SIGN, 1, &sign,
	    sizeof(sign)), IPC_ERR_SPACE);
	CHECK_INT(ipc_put(buf, sizeof(buf), &len, IPC_SIGN, 1, &sign, sizeof(sign) - 1),
	    IPC_ERR_LENGTH);
	CHECK_INT(len, 0);
	return test_done("ipc");
}
