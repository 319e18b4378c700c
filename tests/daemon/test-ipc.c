/* SPDX-License-Identifier: ISC */
/*
 * Unit test of the messages between the daemon's roles (daemon/ipc.c): every refusal of
 * ipc_next (unknown type, wrong sender or receiver, a length the table does not allow, flags),
 * partial messages, trailing bytes within their maximum, and several messages in one buffer, as
 * a batch arrives; and a signature's from_pool other than 0 or 1 (ipc_signature_check). And the
 * dispatcher (ipc_dispatch), as the parent hears the key-holder: a key set in order reaches its
 * handlers and a signer's descriptor its message; each message out of order by the state flags
 * (a key set's messages of another generation, anything inside a key set, a signer or a reload
 * answer before the first key set) is refused with IPC_ERR_STATE before its handler runs, as are
 * a wrong sender, a type the receiver has no handler for, a wrong length, a descriptor missing or
 * with the wrong message; at most `max` messages are handled; a handler's fault ends the dispatch
 * and leaves the state as it was.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

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

/* What the test's handlers saw. */
static struct {
	unsigned calls[IPC_TYPE_MAX];
	int fd;			/* the descriptor an IPC_FD message came with */
	int refuse;		/* the handlers answer this, once */
} seen;

static int record(void *ctx, struct ipc_msg *m)
{
	int r = seen.refuse;

	CHECK(ctx == &seen);
	seen.calls[m->h.type]++;
	if (m->fd >= 0)
		seen.fd = m->fd;	/* left to ipc_dispatch, which closes it */
	seen.refuse = 0;
	return r;
}

static const ipc_handler parent_handlers[IPC_TYPE_MAX] = {
	[IPC_KEY_PUBLIC] = record,
	[IPC_KEYS_READY] = record,
	[IPC_SIGNER_FD] = record,
	[IPC_SIGNER_EXIT] = record,
	[IPC_RELOAD_FAILED] = record,
	[IPC_AUDIT_SEALED] = record,
	[IPC_KEY_CERT] = record,
};

/* Appends one message of the key-holder's: type with generation gen (where its body has one). */
static void put_gen(uint8_t *buf, size_t cap, size_t *len, uint16_t type, uint32_t gen)
{
	struct ipc_key_public kp = { .generation = gen };
	struct ipc_keys_ready kr = { .generation = gen };
	struct ipc_signer sg = { .generation = gen };
	struct ipc_signer_exit ex = { .signer = 1 };
	struct ipc_audit_sealed as = { .result = 0 };

	switch (type) {
	case IPC_KEY_PUBLIC:
		CHECK_INT(ipc_put(buf, cap, len, type, 0, &kp, sizeof(kp)), 0);
		break;
	case IPC_KEYS_READY:
		CHECK_INT(ipc_put(buf, cap, len, type, 0, &kr, sizeof(kr)), 0);
		break;
	case IPC_SIGNER_FD:
		CHECK_INT(ipc_put(buf, cap, len, type, 0, &sg, sizeof(sg)), 0);
		break;
	case IPC_SIGNER_EXIT:
		CHECK_INT(ipc_put(buf, cap, len, type, 0, &ex, sizeof(ex)), 0);
		break;
	case IPC_AUDIT_SEALED:
		CHECK_INT(ipc_put(buf, cap, len, type, 0, &as, sizeof(as)), 0);
		break;
	case IPC_KEY_CERT: {
		/* the fixed part, then a few bytes of DER */
		uint8_t body[sizeof(struct ipc_key_cert) + 3] = { 0x30, 0x01, 0x00 };
		struct ipc_key_cert kc = { .generation = gen };

		memmove(body + sizeof(kc), body, 3);
		memcpy(body, &kc, sizeof(kc));
		CHECK_INT(ipc_put(buf, cap, len, type, 0, body, sizeof(body)), 0);
		break;
	}
	default:
		CHECK_INT(ipc_put(buf, cap, len, type, 0, "why", 3), 0);
	}
}

/* Dispatches one message (type, gen) to p with descriptor *fd; the result, and the handler's
 * calls of that type go up by one exactly when it is 0. */
static int one(struct ipc_peer *p, uint16_t type, uint32_t gen, int *fd)
{
	uint8_t buf[IPC_MSG_MAX];
	size_t len = 0, used = 99;
	unsigned before;
	int r;

	put_gen(buf, sizeof(buf), &len, type, gen);
	before = seen.calls[type];
	r = ipc_dispatch(p, buf, len, SIZE_MAX, fd, &used);
	CHECK_INT(seen.calls[type], before + (r == 0));
	CHECK_INT(used, r == 0 ? len : 0);
	return r;
}

/* A descriptor to pass: one end of a pipe (the other closed). */
static int some_fd(void)
{
	int p[2];

	if (pipe(p) != 0) {
		CHECK(!"pipe");
		return -1;
	}
	close(p[1]);
	return p[0];
}

static void dispatcher(void)
{
	struct ipc_peer p;
	uint8_t buf[8 * IPC_MSG_MAX];
	size_t len = 0, used;
	int fd = -1, passed;

	memset(&seen, 0, sizeof(seen));
	seen.fd = -1;
	ipc_peer_init(&p, PROC_KEYHOLDER, PROC_PARENT, parent_handlers, &seen);

	/* Before the first key set: nothing but its first key. */
	test_case = "dispatch: before any key set";
	CHECK_INT(one(&p, IPC_SIGNER_EXIT, 0, NULL), IPC_ERR_STATE);
	CHECK_INT(one(&p, IPC_RELOAD_FAILED, 0, NULL), IPC_ERR_STATE);
	CHECK_INT(one(&p, IPC_AUDIT_SEALED, 0, NULL), IPC_ERR_STATE);
	CHECK_INT(one(&p, IPC_KEYS_READY, 1, NULL), IPC_ERR_STATE);
	fd = some_fd();
	CHECK_INT(one(&p, IPC_SIGNER_FD, 0, &fd), IPC_ERR_STATE);
	CHECK_INT(one(&p, IPC_SIGNER_FD, 1, &fd), IPC_ERR_STATE);
	CHECK(fd >= 0);		/* refused: still the caller's */
	CHECK_INT(one(&p, IPC_KEY_PUBLIC, 2, NULL), IPC_ERR_STATE);	/* the first is 1 */
	CHECK_INT(one(&p, IPC_KEY_PUBLIC, 0, NULL), IPC_ERR_STATE);
	CHECK_INT(one(&p, IPC_KEY_CERT, 2, NULL), IPC_ERR_STATE);

	/* Key set 1: its keys, then nothing else until its end, of its own generation. */
	test_case = "dispatch: key set 1";
	CHECK_INT(one(&p, IPC_KEY_PUBLIC, 1, NULL), 0);
	CHECK_INT(one(&p, IPC_KEY_CERT, 1, NULL), 0);	/* its certificate */
	CHECK_INT(one(&p, IPC_KEY_PUBLIC, 1, NULL), 0);
	CHECK_INT(one(&p, IPC_KEY_PUBLIC, 2, NULL), IPC_ERR_STATE);
	CHECK_INT(one(&p, IPC_KEY_CERT, 2, NULL), IPC_ERR_STATE);
	CHECK_INT(one(&p, IPC_SIGNER_EXIT, 0, NULL), IPC_ERR_STATE);
	CHECK_INT(one(&p, IPC_SIGNER_FD, 1, &fd), IPC_ERR_STATE);
	CHECK_INT(one(&p, IPC_KEYS_READY, 2, NULL), IPC_ERR_STATE);
	/* A handler that refuses the end leaves the key set open. */
	seen.refuse = IPC_ERR_CONTENT;
	CHECK_INT(ipc_dispatch(&p, buf, (len = 0, put_gen(buf, sizeof(buf), &len, IPC_KEYS_READY, 1),
	    len), SIZE_MAX, NULL, &used), IPC_ERR_CONTENT);
	CHECK_INT(one(&p, IPC_SIGNER_EXIT, 0, NULL), IPC_ERR_STATE);
	CHECK_INT(one(&p, IPC_KEYS_READY, 1, NULL), 0);
	CHECK_INT(one(&p, IPC_KEYS_READY, 1, NULL), IPC_ERR_STATE);	/* ended already */
	CHECK_INT(one(&p, IPC_KEY_CERT, 1, NULL), IPC_ERR_STATE);	/* and its certificates */

	/* Its signers, with their descriptors; then the notices. */
	test_case = "dispatch: signers of key set 1";
	CHECK_INT(one(&p, IPC_SIGNER_FD, 1, NULL), IPC_ERR_FD);	/* none came with it */
	passed = fd;
	CHECK_INT(one(&p, IPC_KEY_PUBLIC, 2, &fd), IPC_ERR_FD);	/* one came with the wrong one */
	CHECK_INT(one(&p, IPC_SIGNER_FD, 2, &fd), IPC_ERR_STATE);
	CHECK_INT(one(&p, IPC_SIGNER_FD, 1, &fd), 0);
	CHECK_INT(fd, -1);
	CHECK_INT(seen.fd, passed);
	CHECK(fcntl(passed, F_GETFD) == -1 && errno == EBADF);	/* left by the handler: closed */
	CHECK_INT(one(&p, IPC_SIGNER_EXIT, 0, NULL), 0);
	CHECK_INT(one(&p, IPC_RELOAD_FAILED, 0, NULL), 0);
	CHECK_INT(one(&p, IPC_AUDIT_SEALED, 0, NULL), 0);

	/* A reload: key set 2 only (not 1 again, nor 3), and signers of 2 once it has ended. */
	test_case = "dispatch: key set 2";
	CHECK_INT(one(&p, IPC_KEY_PUBLIC, 1, NULL), IPC_ERR_STATE);
	CHECK_INT(one(&p, IPC_KEY_PUBLIC, 3, NULL), IPC_ERR_STATE);
	CHECK_INT(one(&p, IPC_KEY_PUBLIC, 2, NULL), 0);
	CHECK_INT(one(&p, IPC_AUDIT_SEALED, 0, NULL), IPC_ERR_STATE);
	CHECK_INT(one(&p, IPC_KEYS_READY, 2, NULL), 0);
	fd = some_fd();
	CHECK_INT(one(&p, IPC_SIGNER_FD, 1, &fd), IPC_ERR_STATE);	/* of the set before */
	CHECK_INT(one(&p, IPC_SIGNER_FD, 2, &fd), 0);

	/* Several in one buffer: handled in order up to the first fault, which *used stops before;
	 * and at most max. */
	test_case = "dispatch: batch";
	len = 0;
	put_gen(buf, sizeof(buf), &len, IPC_SIGNER_EXIT, 0);
	put_gen(buf, sizeof(buf), &len, IPC_KEY_PUBLIC, 3);
	used = len;
	put_gen(buf, sizeof(buf), &len, IPC_SIGNER_EXIT, 0);	/* inside key set 3 */
	put_gen(buf, sizeof(buf), &len, IPC_KEYS_READY, 3);
	memset(seen.calls, 0, sizeof(seen.calls));
	{
		size_t at = 0;

		CHECK_INT(ipc_dispatch(&p, buf, len, SIZE_MAX, NULL, &at), IPC_ERR_STATE);
		CHECK_INT(at, used);
	}
	CHECK_INT(seen.calls[IPC_SIGNER_EXIT], 1);
	CHECK_INT(seen.calls[IPC_KEY_PUBLIC], 1);
	len = 0;
	put_gen(buf, sizeof(buf), &len, IPC_KEY_PUBLIC, 3);
	put_gen(buf, sizeof(buf), &len, IPC_KEY_PUBLIC, 3);
	put_gen(buf, sizeof(buf), &len, IPC_KEYS_READY, 3);
	CHECK_INT(ipc_dispatch(&p, buf, len, 2, NULL, &used), 0);
	CHECK_INT(seen.calls[IPC_KEY_PUBLIC], 3);
	CHECK_INT(seen.calls[IPC_KEYS_READY], 0);
	CHECK_INT(ipc_dispatch(&p, buf + used, len - used, 2, NULL, &used), 0);
	CHECK_INT(seen.calls[IPC_KEYS_READY], 1);
	/* A partial message after whole ones is left for later, not a fault. */
	len = 0;
	put_gen(buf, sizeof(buf), &len, IPC_SIGNER_EXIT, 0);
	used = len;
	put_gen(buf, sizeof(buf), &len, IPC_SIGNER_EXIT, 0);
	{
		size_t at = 0;

		CHECK_INT(ipc_dispatch(&p, buf, len - 1, SIZE_MAX, NULL, &at), 0);
		CHECK_INT(at, used);
	}

	/* A wrong sender, a type without a handler, a wrong length: refused before a handler. */
	test_case = "dispatch: sender, handler, length";
	memset(seen.calls, 0, sizeof(seen.calls));
	{
		struct ipc_peer from_signer, partial;
		static const ipc_handler only_exit[IPC_TYPE_MAX] = { [IPC_SIGNER_EXIT] = record };
		struct ipc_header h;

		ipc_peer_init(&from_signer, PROC_SIGNER, PROC_PARENT, parent_handlers, &seen);
		CHECK_INT(one(&from_signer, IPC_SIGNER_EXIT, 0, NULL), IPC_ERR_ROUTE);
		ipc_peer_init(&partial, PROC_KEYHOLDER, PROC_PARENT, only_exit, &seen);
		partial.last_keyset = 1;
		CHECK_INT(one(&partial, IPC_SIGNER_EXIT, 0, NULL), 0);
		CHECK_INT(one(&partial, IPC_AUDIT_SEALED, 0, NULL), IPC_ERR_ROUTE);
		len = 0;
		put_gen(buf, sizeof(buf), &len, IPC_SIGNER_EXIT, 0);
		memcpy(&h, buf, sizeof(h));
		h.len--;
		memcpy(buf, &h, sizeof(h));
		CHECK_INT(ipc_dispatch(&p, buf, len, SIZE_MAX, NULL, &used), IPC_ERR_LENGTH);
		CHECK_INT(seen.calls[IPC_SIGNER_EXIT], 1);
	}

	/* Every fault has its own text. */
	test_case = "dispatch: texts";
	for (int a = IPC_ERR_TYPE; a >= IPC_ERR_CONTENT; a--)
		for (int b = a - 1; b >= IPC_ERR_CONTENT; b--)
			CHECK(strcmp(ipc_err_text(a), ipc_err_text(b)) != 0);
}

int main(void)
{
	uint8_t buf[4 * IPC_MSG_MAX];
	struct ipc_sign sign = { .key = 7 };
	struct ipc_signature sig = { .result = P256_ERR_FAULT };
	struct ipc_header h, bad;
	const uint8_t *body, *body_p;
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
	/* A certificate: up to IPC_CERT_MAX bytes of DER after its fixed part, in one message of at
	 * most IPC_MSG_MAX bytes. */
	{
		static uint8_t cert_buf[2 * IPC_MSG_MAX];
		static uint8_t der[sizeof(struct ipc_key_cert) + IPC_CERT_MAX + 1];

		len = 0;
		CHECK_INT(ipc_put(cert_buf, sizeof(cert_buf), &len, IPC_KEY_CERT, 0, der,
		    sizeof(der) - 1), 0);
		CHECK_INT(len, IPC_MSG_MAX);
		CHECK_INT(ipc_next(cert_buf, len, PROC_KEYHOLDER, PROC_PARENT, &h, &body_p, &used), 0);
		len = 0;
		CHECK_INT(ipc_put(cert_buf, sizeof(cert_buf), &len, IPC_KEY_CERT, 0, der,
		    sizeof(der)), IPC_ERR_LENGTH);
		len = 0;
		CHECK_INT(ipc_put(cert_buf, sizeof(cert_buf), &len, IPC_KEY_CERT, 0, der,
		    sizeof(struct ipc_key_cert) - 1), IPC_ERR_LENGTH);
	}
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

	/* The enum and the table come from one list: each type's name is its own. */
	test_case = "list";
	CHECK(strcmp(ipc_type_name(IPC_SIGN), "sign") == 0);
	CHECK(strcmp(ipc_type_name(IPC_AUDIT_SEALED), "audit-sealed") == 0);
	CHECK(strcmp(ipc_type_name(IPC_KEY_CERT), "key-cert") == 0);
	CHECK_INT(IPC_SIGN, 1);
	/* A new message goes at the end: the numbers of the others stay. */
	CHECK_INT(IPC_AUDIT_SEALED, 16);
	CHECK_INT(IPC_KEY_CERT, IPC_TYPE_MAX - 1);

	dispatcher();
	return test_done("ipc");
}
