/* SPDX-License-Identifier: ISC */
/*
 * The audit gate (daemon/reply.c) between a real audit log on a temporary file and a transport of
 * the test's own: the test defines the server_conn_* calls the gate makes (server.h), so that
 * every byte the gate hands a connection, every hold and every close is seen. Checked: a
 * signature is held while its record is unwritten and released by the write; an error is never
 * held; a signature whose record could not be written (the file swapped for /dev/full) is
 * replaced by audit-unavailable with the same id, and never counted; a held reply for a
 * connection closed meanwhile is dropped with its hold; what replies_drop_held forgets is never
 * answered; an error that ends the connection closes it after the write; with an audit that does
 * not hold (fail_closed off) a signature leaves at once; and the counts of STATUS and LIST_KEYS.
 */
#include <event2/event.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include "scratch-dir.h"
#include "audit.h"
#include "keytab.h"
#include "proto.h"
#include "reply.h"
#include "server.h"

/* ---- the transport, as the gate sees it ---------------------------------------------------- */

struct conn {
	int open;
	unsigned holds;			/* server_conn_keep minus server_conn_release */
	int close_after_write;
	int woken;
	uint8_t out[4096];		/* what the gate sent it */
	size_t len;
	struct ucred peer;
	struct peer_identity identity;
};

void server_conn_keep(struct conn *c)
{
	c->holds++;
}

void server_conn_release(struct conn *c)
{
	CHECK(c->holds > 0);
	c->holds--;
}

int server_conn_send(struct conn *c, const uint8_t *bytes, size_t len)
{
	if (!c->open)
		return 0;
	CHECK(c->len + len <= sizeof(c->out));
	memcpy(c->out + c->len, bytes, len);
	c->len += len;
	return 0;
}

void server_conn_wake(struct conn *c)
{
	c->woken++;
}

void server_conn_close_after_write(struct conn *c)
{
	c->close_after_write = 1;
}

void server_conn_close(struct conn *c)
{
	c->open = 0;
}

int server_conn_open(const struct conn *c)
{
	return c->open;
}

const struct ucred *server_conn_peer(const struct conn *c)
{
	return &c->peer;
}

const struct peer_identity *server_conn_identity(const struct conn *c)
{
	return &c->identity;
}

unsigned long server_conn_number(const struct conn *c)
{
	return 1;
}

/* ---- the fixture: an audit log, a key table, the gate -------------------------------------- */

struct fixture {
	struct event_base *base;
	struct config_audit cfg;
	struct audit a;
	struct keytab kt;
	struct key_usage usage[1];
	struct replies *g;
	char dir[64], file[96];
};

static int seal_cb(void *arg, const struct ipc_audit_seal *m)
{
	return 0;	/* no seal is answered: these tests count no checkpoints */
}

static int wait_cb(void *arg, unsigned ms)
{
	return -1;
}

static void setup(struct fixture *f, int fail_closed)
{
	struct audit_callbacks cb = { .seal = seal_cb, .wait = wait_cb,
		.written = replies_audit_written };
	const struct config_key ck = { .name = "k", .purpose = POLICY_PURPOSE_ANY };
	uint8_t point[P256_POINT_LEN];
	uint8_t d[32] = { [31] = 7 };
	char err[256];

	memset(f, 0, sizeof(*f));
	snprintf(f->dir, sizeof(f->dir), "/tmp/p256sign-reply-XXXXXX");
	/* removed at exit too: test_fatal exits before teardown */
	if (scratch_dir(f->dir) != 0 || (f->base = event_base_new()) == NULL)
		test_fatal("set-up");
	snprintf(f->file, sizeof(f->file), "%s/audit.jsonl", f->dir);
	f->cfg = (struct config_audit){ .configured = 1, .file = f->file,
		.checkpoint_every = 1000000, .fail_closed = fail_closed };
	CHECK_INT(p256_public_from_private(d, point), 0);
	CHECK_INT(keytab_alloc(&f->kt, 1), 0);
	CHECK_INT(keytab_set_public(&f->kt.pub[0], &ck, point), 0);
	key_usage_reset(f->usage, &f->kt);
	if ((f->g = replies_new(&f->a, &f->kt, f->usage)) == NULL)
		test_fatal("replies_new");
	cb.arg = f->g;
	if (audit_init(&f->a, &f->cfg, err, sizeof(err)) != 0) {
		fprintf(stderr, "audit_init: %s\n", err);
		test_fatal("audit_init");
	}
	CHECK_INT(audit_start(&f->a, f->base, NULL, &cb), 0);
	replies_before_write(f->g);	/* the open record */
}

static void teardown(struct fixture *f)
{
	replies_free(f->g);
	audit_free(&f->a);
	keytab_free(&f->kt);
	event_base_free(f->base);
	CHECK_INT(scratch_dir_remove(f->dir), 0);
}

static struct conn *new_conn(void)
{
	struct conn *c = calloc(1, sizeof(*c));

	if (c == NULL)
		test_fatal("calloc");
	c->open = 1;
	c->peer.uid = 1000;
	return c;
}

/* A signature reply to SIGN request id, for the fixture's key. */
static void send_signature(struct fixture *f, struct conn *c, uint32_t id)
{
	const struct audit_subject subject = { .kind = AUDIT_SUBJECT_DIGEST, .len = 32 };
	const struct reply_to to = { .conn = c, .id = id, .type = PROTO_SIGN,
		.key = f->kt.pub[0].name, .key_id = f->kt.pub[0].id, .subject = &subject };
	struct proto_response resp = { .h = { .version = PROTO_VERSION,
		.type = PROTO_SIGN | PROTO_RESPONSE, .id = id }, .format = PROTO_FORMAT_RAW,
		.sig_len = P256_SIG_LEN };

	memset(resp.sig, 0x5a, P256_SIG_LEN);
	reply_send(f->g, &to, &resp);
}

/* The frame at *off of c's output is of type, for request id, with code when an ERROR. */
static void expect_frame(const struct conn *c, size_t *off, uint8_t type, uint32_t id,
	uint16_t code)
{
	struct proto_response resp;
	uint32_t len = 0;

	CHECK(c->len - *off >= PROTO_LEN_PREFIX);
	CHECK_INT(proto_frame_length(c->out + *off, &len), 0);
	CHECK_INT(proto_decode_response(c->out + *off + PROTO_LEN_PREFIX, len, &resp), 0);
	CHECK_INT(resp.h.type, type);
	CHECK_INT(resp.h.id, id);
	if (type == PROTO_ERROR)
		CHECK_INT(resp.error, code);
	*off += PROTO_LEN_PREFIX + len;
}

static uint64_t status_member(const struct replies *g, const char *name)
{
	json_t *st = json_object();
	uint64_t v;

	CHECK_INT(replies_status_add(g, st), 0);
	v = (uint64_t)json_integer_value(json_object_get(st, name));
	json_decref(st);
	return v;
}

/* Held until the write, released by it, counted then. */
static void held_then_released(void)
{
	struct fixture f;
	struct conn *c = new_conn();
	size_t off = 0;

	setup(&f, 1);
	send_signature(&f, c, 7);
	CHECK_INT(c->len, 0);			/* not before its record is written */
	CHECK_INT(c->holds, 1);			/* the connection stays while it is held */
	CHECK(c->woken > 0);			/* and is on the turn's write, which writes the record */
	CHECK_INT(status_member(f.g, "signatures"), 0);
	replies_before_write(f.g);
	expect_frame(c, &off, PROTO_SIGN | PROTO_RESPONSE, 7, 0);
	CHECK_INT(c->holds, 0);
	CHECK_INT(status_member(f.g, "signatures"), 1);
	CHECK_INT(status_member(f.g, "requests"), 1);
	CHECK_INT(f.usage[0].signatures, 1);
	teardown(&f);
	free(c);
}

/* An error is not held: it goes at once (its record is written with the turn's). */
static void errors_not_held(void)
{
	struct fixture f;
	struct conn *c = new_conn();
	const struct reply_to to = { .conn = c, .id = 3, .type = PROTO_SIGN };
	size_t off = 0;

	setup(&f, 1);
	reply_error(f.g, &to, PROTO_E_DENIED);
	expect_frame(c, &off, PROTO_ERROR, 3, PROTO_E_DENIED);
	CHECK_INT(c->holds, 0);
	CHECK_INT(c->close_after_write, 0);	/* denied keeps the connection */
	reply_error(f.g, &to, PROTO_E_BAD_FRAME);
	CHECK_INT(c->close_after_write, 1);	/* bad-frame ends it, once written */
	CHECK_INT(status_member(f.g, "requests"), 2);
	teardown(&f);
	free(c);
}

/* The record cannot be written: the signature never leaves, audit-unavailable goes instead. */
static void unwritten_replaced(void)
{
	struct fixture f;
	struct conn *c = new_conn();
	size_t off = 0;
	int full;

	setup(&f, 1);
	if ((full = open("/dev/full", O_WRONLY | O_CLOEXEC)) < 0 || dup2(full, f.a.fd) < 0)
		test_fatal("/dev/full");
	close(full);
	send_signature(&f, c, 9);
	replies_before_write(f.g);
	expect_frame(c, &off, PROTO_ERROR, 9, PROTO_E_AUDIT_UNAVAILABLE);
	CHECK_INT(off, c->len);			/* and nothing else: no signature */
	CHECK_INT(c->holds, 0);
	CHECK_INT(status_member(f.g, "signatures"), 0);
	CHECK_INT(f.usage[0].signatures, 0);
	CHECK_INT(status_member(f.g, "requests"), 1);	/* one request, one answer counted */
	teardown(&f);
	free(c);
}

/* A connection closed while its signature is held: nothing is sent, the hold is returned. */
static void closed_meanwhile(void)
{
	struct fixture f;
	struct conn *c = new_conn();

	setup(&f, 1);
	send_signature(&f, c, 11);
	c->open = 0;
	replies_before_write(f.g);
	CHECK_INT(c->len, 0);
	CHECK_INT(c->holds, 0);
	teardown(&f);
	free(c);
}

/* What replies_drop_held forgets (at exit) is never answered, even once its record is written. */
static void dropped_at_exit(void)
{
	struct fixture f;
	struct conn *c = new_conn();

	setup(&f, 1);
	send_signature(&f, c, 12);
	replies_drop_held(f.g);
	replies_before_write(f.g);
	CHECK_INT(c->len, 0);
	CHECK_INT(status_member(f.g, "signatures"), 0);
	teardown(&f);
	free(c);
}

/* An audit that does not hold replies (fail_closed off): a signature leaves at once. */
static void not_holding(void)
{
	struct fixture f;
	struct conn *c = new_conn();
	size_t off = 0;

	setup(&f, 0);
	send_signature(&f, c, 13);
	expect_frame(c, &off, PROTO_SIGN | PROTO_RESPONSE, 13, 0);
	CHECK_INT(c->holds, 0);
	CHECK_INT(status_member(f.g, "signatures"), 1);
	teardown(&f);
	free(c);
}

/* Refused connections are counted as answers with their error, as STATUS reports them. */
static void refusals_counted(void)
{
	struct fixture f;
	json_t *st = json_object();

	setup(&f, 1);
	replies_count_refusal(f.g);
	CHECK_INT(replies_status_add(f.g, st), 0);
	CHECK_INT(json_integer_value(json_object_get(st, "requests")), 1);
	CHECK_INT(json_integer_value(json_object_get(json_object_get(st, "errors"),
	    proto_error_tag(PROTO_E_TOO_MANY_CONNECTIONS))), 1);
	json_decref(st);
	teardown(&f);
}

int main(void)
{
	held_then_released();
	errors_not_held();
	unwritten_replaced();
	closed_meanwhile();
	dropped_at_exit();
	not_holding();
	refusals_counted();
	return test_done("test-reply");
}
