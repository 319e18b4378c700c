/* SPDX-License-Identifier: ISC */
/* Unit test of the parent <-> worker message framing (daemon/ipc.c): every refusal of ipc_next,
 * partial messages, and several messages in one buffer, as a batch arrives. */
#include <string.h>

#include "testutil.h"
#include "ipc.h"

int main(void)
{
	uint8_t buf[4 * IPC_MSG_MAX], digest[P256_DIGEST_LEN];
	struct ipc_signature sig = { .result = P256_ERR_FAULT };
	struct ipc_header h;
	const uint8_t *body;
	size_t len = 0, used, off;

	memset(digest, 0xab, sizeof(digest));
	memset(sig.sig, 0x5c, sizeof(sig.sig));

	/* A batch: SIGN, PING, SELFTEST one after the other, read back in order. */
	CHECK_INT(ipc_put(buf, sizeof(buf), &len, IPC_SIGN, 7, 100, digest), 0);
	CHECK_INT(ipc_put(buf, sizeof(buf), &len, IPC_PING, 0, 101, NULL), 0);
	CHECK_INT(ipc_put(buf, sizeof(buf), &len, IPC_SELFTEST, 0, 102, NULL), 0);
	CHECK_INT(len, 3 * sizeof(struct ipc_header) + sizeof(struct ipc_sign));
	off = 0;
	CHECK_INT(ipc_next(buf, len, IPC_TO_WORKER, &h, &body, &used), 0);
	CHECK(h.type == IPC_SIGN && h.key == 7 && h.id == 100 && h.len == P256_DIGEST_LEN);
	CHECK_MEM(body, digest, P256_DIGEST_LEN);
	off += used;
	CHECK_INT(ipc_next(buf + off, len - off, IPC_TO_WORKER, &h, &body, &used), 0);
	CHECK(h.type == IPC_PING && h.id == 101 && used == sizeof(h));
	off += used;
	CHECK_INT(ipc_next(buf + off, len - off, IPC_TO_WORKER, &h, &body, &used), 0);
	CHECK(h.type == IPC_SELFTEST && h.id == 102);
	off += used;
	CHECK_INT(off, len);
	CHECK_INT(ipc_next(buf + off, len - off, IPC_TO_WORKER, &h, &body, &used), 1);

	/* Every split of a message is "partial", never an error and never a message. */
	len = 0;
	CHECK_INT(ipc_put(buf, sizeof(buf), &len, IPC_SIGNATURE, 3, 9, &sig), 0);
	for (size_t k = 0; k < len; k++)
		CHECK_INT(ipc_next(buf, k, IPC_TO_PARENT, &h, &body, &used), 1);
	CHECK_INT(ipc_next(buf, len, IPC_TO_PARENT, &h, &body, &used), 0);
	CHECK_MEM(body, &sig, sizeof(sig));

	/* The wrong direction, an unknown type, a length that is not the type's. */
	CHECK_INT(ipc_next(buf, len, IPC_TO_WORKER, &h, &body, &used), P256_ERR_LENGTH);
	memcpy(&h, buf, sizeof(h));
	h.len--;
	memcpy(buf, &h, sizeof(h));
	CHECK_INT(ipc_next(buf, len, IPC_TO_PARENT, &h, &body, &used), P256_ERR_LENGTH);
	for (unsigned t = 0; t < 0x10000; t += t < 16 ? 1 : 251) {
		struct ipc_header bad = { .type = (uint16_t)t };

		if (t >= IPC_SIGN && t <= IPC_PONG)
			continue;
		memcpy(buf, &bad, sizeof(bad));
		CHECK_INT(ipc_next(buf, sizeof(bad), IPC_TO_PARENT, &h, &body, &used),
		    P256_ERR_LENGTH);
		CHECK_INT(ipc_next(buf, sizeof(bad), IPC_TO_WORKER, &h, &body, &used),
		    P256_ERR_LENGTH);
	}

	/* ipc_put refuses an unknown type and a buffer without room. */
	len = 0;
	CHECK_INT(ipc_put(buf, sizeof(buf), &len, 0, 0, 1, NULL), P256_ERR_LENGTH);
	CHECK_INT(ipc_put(buf, sizeof(struct ipc_header) + 1, &len, IPC_SIGN, 0, 1, digest),
	    P256_ERR_BUFFER);
	CHECK_INT(len, 0);
	return test_done("ipc");
}
