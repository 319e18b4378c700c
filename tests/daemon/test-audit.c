/* SPDX-License-Identifier: ISC */
/*
 * Unit test of the audit log (daemon/audit/audit.c) over files of its own and a journal of its
 * own (test-audit-ns.h), with the server's part played here: each request's reply is held by its
 * ticket until the `written` callback releases or withholds it, and every release is checked
 * against the file, which must then hold the request's record whole (fail closed: no signature
 * leaves before its record is written). After each case the file is read back and its chain
 * checked line by line (seq one more, prev the SHA-256 of the line before).
 *
 * The cases: a write cut short mid-line (RLIMIT_FSIZE), then finished; a full disk (a small
 * tmpfs filled up), then room again; fail open; journald's queue full (a datagram socket nobody
 * reads): records wait without failing, then go once it drains, and are lost past the bound on
 * how many wait or how long; a second log on the same file continuing the chain, checkpoints
 * included, and a file whose last line is cut refused; the timer armed only while something is
 * due, a `time` checkpoint when it fires, and no timer once every record is sealed. An outage
 * with the server's gate played in full (a withheld signature answered audit-unavailable, and
 * that answer recorded): the records of the answers given meanwhile are queued and written in order once there is room, the cut
 * `ok` line of a withheld signature is followed by its audit-unavailable record; past the
 * queue's bound a `dropped` record counts the rest by op and result; a reopen puts the new
 * file's open record before the queue; with the journal on, each record reaches it once.
 */
#include <errno.h>
#include <event2/event.h>
#include <jansson.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"
#include "test-audit-ns.h"
#include "audit.h"
#include "audit-time.h"
#include "sha256.h"

#define TICKETS 32768		/* more than any case appends */
#define FULL_DIR "/run/full"

struct fixture {
	struct config_audit cfg;
	struct audit a;
	struct event_base *base;
	/* The server's part: the replies held, by ticket, and what became of them. */
	uint8_t held[TICKETS];
	uint32_t id_of[TICKETS];	/* the request id of a ticket's record */
	uint64_t released, withheld, last_tried;
	uint32_t next_id;
	/* The gate's audit-unavailable answer to each signature withheld, and its record. */
	int gate;
	uint8_t was_withheld[TICKETS];	/* by request id */
	/* The key-holder's part: a seal asked for and not answered yet. */
	int seal_out;
	unsigned seals;
};

/* What a file holds, read back whole. */
struct log {
	size_t lines;
	uint64_t last_seq;
	uint8_t last_hash[32];
	int chain_ok;			/* every seq one more, every prev the line before's hash */
	int cut;			/* bytes after the last newline */
	uint8_t *has_id;		/* request ids whose record is a whole line (TICKETS of them) */
	json_t *last;			/* the last record */
};

/* A string member of a record, "" when it has none. */
static const char *member_text(const json_t *o, const char *name)
{
	const char *s = json_string_value(json_object_get(o, name));

	return s != NULL ? s : "";
}

static void read_log(const char *path, struct log *out)
{
	uint8_t prev[32] = { 0 };
	char *buf = NULL, hex[65];
	size_t len = 0, start = 0;
	FILE *f = fopen(path, "r");

	json_decref(out->last);
	free(out->has_id);
	memset(out, 0, sizeof(*out));
	out->chain_ok = 1;
	if ((out->has_id = calloc(TICKETS, 1)) == NULL)
		test_fatal("out of memory");
	if (f == NULL || (buf = malloc(1 << 24)) == NULL)
		test_fatal("cannot read the audit file back");
	len = fread(buf, 1, 1 << 24, f);
	fclose(f);
	for (size_t i = 0; i < len; i++) {
		json_t *rec, *id;

		if (buf[i] != '\n')
			continue;
		rec = json_loadb(buf + start, i - start, 0, NULL);
		hex_encode(prev, 32, hex);
		if (!json_is_object(rec) ||
		    json_integer_value(json_object_get(rec, "seq")) != (json_int_t)out->last_seq + 1 ||
		    strcmp(member_text(rec, "prev"), hex) != 0)
			out->chain_ok = 0;
		out->last_seq++;
		id = json_object_get(rec, "id");
		if (strcmp(member_text(rec, "type"), "request") == 0 &&
		    json_integer_value(id) > 0 && json_integer_value(id) < TICKETS)
			out->has_id[json_integer_value(id)] = 1;
		CHECK(sha256(buf + start, i - start, prev) == 0);
		json_decref(out->last);
		out->last = rec;
		out->lines++;
		start = i + 1;
	}
	memcpy(out->last_hash, prev, 32);
	out->cut = start < len;
	free(buf);
}

static void free_log(struct log *l)
{
	json_decref(l->last);
	free(l->has_id);
	memset(l, 0, sizeof(*l));
}

static const struct ucred peer = { .pid = 4242, .uid = 1000, .gid = 1000 };

/* A record of an answer that is no signature: op, the error answered (0: ok), a new id. */
static uint32_t answer(struct fixture *f, const char *op, uint16_t error, uint32_t id)
{
	struct audit_request r = { .peer = &peer, .op = op, .id = id ? id : f->next_id++,
		.error = error, .us = 5, .conn = 1 };

	CHECK(audit_request(&f->a, &r) > 0);
	return r.id;
}

/* As the gate answers a signature withheld (reply.c, release): audit-unavailable, recorded. */
static void answer_instead(struct fixture *f, uint32_t id)
{
	f->was_withheld[id] = 1;
	answer(f, "sign", PROTO_E_AUDIT_UNAVAILABLE, id);
}

/* The server's release: a signature goes out only when its record is in the file, whole. */
static void written_cb(void *arg, uint64_t ok_through, uint64_t tried_through)
{
	struct fixture *f = arg;
	struct log l = { 0 };

	CHECK(tried_through >= f->last_tried);
	CHECK(ok_through <= tried_through);
	f->last_tried = tried_through;
	if (f->cfg.file != NULL && access(f->cfg.file, F_OK) == 0)	/* not in a rotation */
		read_log(f->cfg.file, &l);
	for (uint64_t t = 1; t <= tried_through && t < TICKETS; t++) {
		if (!f->held[t])
			continue;
		f->held[t] = 0;
		if (t <= ok_through) {
			CHECK(l.has_id != NULL && l.has_id[f->id_of[t]]);	/* its record is written */
			f->released++;
		} else {
			f->withheld++;
			if (f->gate)
				answer_instead(f, f->id_of[t]);
		}
	}
	free_log(&l);
}

static int seal_cb(void *arg, const struct ipc_audit_seal *m)
{
	struct fixture *f = arg;

	CHECK(!f->seal_out);	/* one seal out at a time */
	f->seal_out = 1;
	return 0;
}

/* The key-holder's answer: its time and a signature (not checked here: audit-verify's job). */
static void answer_seal(struct fixture *f)
{
	struct ipc_audit_sealed m = { .result = 0, .sig = { 0x51, 0xa1 } };

	if (!f->seal_out)
		return;
	f->seal_out = 0;
	f->seals++;
	CHECK(audit_time_now(m.time) == 0);
	audit_sealed(&f->a, &m);
}

static int wait_cb(void *arg, unsigned ms)
{
	answer_seal(arg);
	return 0;
}

static void setup(struct fixture *f, const char *file, int journal, int fail_closed)
{
	static const struct audit_key key = { .name = "audit", .id = { 0xa0, [31] = 0x0a },
		.point = { 4, 1, 2, [64] = 3 } };
	const struct audit_callbacks cb = { .seal = seal_cb, .wait = wait_cb, .written = written_cb,
		.arg = f };
	char err[256];

	memset(f, 0, sizeof(*f));
	f->cfg = (struct config_audit){ .configured = 1, .journal = journal, .file = (char *)file,
		.key = "audit", .fail_closed = fail_closed };
	f->next_id = 1;
	if ((f->base = event_base_new()) == NULL)
		test_fatal("event_base_new");
	if (audit_init(&f->a, &f->cfg, err, sizeof(err)) != 0) {
		fprintf(stderr, "audit_init: %s\n", err);
		test_fatal("audit_init");
	}
	CHECK(audit_start(&f->a, f->base, &key, &cb) == 0);
}

static void teardown(struct fixture *f)
{
	audit_free(&f->a);
	event_base_free(f->base);
	f->base = NULL;
}

/* A signed request, its reply held by its ticket as the server holds it. */
static void request(struct fixture *f)
{
	static const uint8_t sig[64] = { 7 };
	struct audit_request r = { .peer = &peer, .op = "sign", .id = f->next_id, .sig = sig,
		.sig_len = sizeof(sig), .us = 3, .conn = 1 };
	uint64_t t = audit_request(&f->a, &r);

	CHECK(t > 0 && t < TICKETS);
	if (t == 0 || t >= TICKETS)
		return;
	f->held[t] = 1;
	f->id_of[t] = f->next_id++;
}

static void requests(struct fixture *f, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		request(f);
}

static uint64_t held_count(const struct fixture *f)
{
	uint64_t n = 0;

	for (size_t t = 0; t < TICKETS; t++)
		n += f->held[t];
	return n;
}

/* STATUS's audit state, "ok" or "failing". */
static int state_is(const struct audit *a, const char *want)
{
	json_t *o = audit_status_json(a);
	int r = strcmp(member_text(o, "state"), want) == 0;

	json_decref(o);
	return r;
}

static off_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_size : -1;
}

static void set_file_limit(rlim_t bytes)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_FSIZE, &rl) != 0)
		test_fatal("getrlimit");
	rl.rlim_cur = bytes;
	if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
		test_fatal("setrlimit");
}

/* A write cut short mid-line: the record is not released, the rest of the line is written
 * first once writes go again, and the chain goes on over it. */
static void test_short_write(void)
{
	static struct fixture f;
	struct log l = { 0 };
	off_t size;

	test_case = "short write";
	setup(&f, "/run/short.log", 0, 1);
	requests(&f, 2);
	audit_flush(&f.a);
	CHECK_INT(f.released, 2);
	size = file_size(f.cfg.file);
	/* The next write stops 100 bytes into the first line (a record is a few hundred). */
	set_file_limit((rlim_t)size + 100);
	requests(&f, 3);
	audit_flush(&f.a);
	CHECK_INT(f.released, 2);
	CHECK_INT(f.withheld, 3);
	CHECK_INT(file_size(f.cfg.file), size + 100);
	CHECK(!audit_available(&f.a));
	CHECK(state_is(&f.a, "failing"));
	/* Still no room: a new record is withheld too, the cut line stays unfinished. */
	request(&f);
	audit_flush(&f.a);
	CHECK_INT(f.withheld, 4);
	CHECK(!audit_available(&f.a));
	/* Room again: the line is finished, then what comes next is written after it. */
	set_file_limit(RLIM_INFINITY);
	audit_flush(&f.a);
	CHECK(audit_available(&f.a));
	CHECK(state_is(&f.a, "ok"));
	requests(&f, 2);
	audit_flush(&f.a);
	CHECK_INT(f.released, 4);
	CHECK_INT(held_count(&f), 0);
	read_log(f.cfg.file, &l);
	CHECK(l.chain_ok);
	CHECK(!l.cut);
	CHECK_INT(l.lines, 1 + 2 + 1 + 2);	/* open, 2, the cut one finished, 2 */
	CHECK_INT(f.a.seq, l.last_seq);
	CHECK_MEM(f.a.hash, l.last_hash, 32);
	free_log(&l);
	teardown(&f);
}

/* Fills the file system of dir: the filler's path. */
static void fill_up(const char *filler)
{
	static const char block[4096];
	int fd = open(filler, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ssize_t n;

	if (fd < 0)
		test_fatal("cannot make the filler");
	while ((n = write(fd, block, sizeof(block))) > 0)
		;
	while ((n = write(fd, block, 1)) > 0)
		;
	if (errno != ENOSPC)
		test_fatal("the filler did not fill the file system");
	close(fd);
}

/* A full disk (a small tmpfs): records are withheld, the log fails closed; once there is room
 * again the log goes on, its chain whole. */
static void test_full_disk(void)
{
	static struct fixture f;
	const off_t page = sysconf(_SC_PAGESIZE);	/* tmpfs allocates by the page */
	struct log l = { 0 };
	uint64_t released;
	off_t size;
	json_t *o;

	test_case = "full disk";
	if (mkdir(FULL_DIR, 0755) != 0 || mount("tmpfs", FULL_DIR, "tmpfs", 0, "size=64k") != 0)
		test_fatal("cannot mount a small tmpfs");
	setup(&f, FULL_DIR "/audit.log", 0, 1);
	requests(&f, 2);
	audit_flush(&f.a);
	CHECK_INT(f.released, 2);
	size = file_size(f.cfg.file);
	fill_up(FULL_DIR "/filler");
	/* More than the room left in the file's last page, all the file system has: the lines
	 * that fit are written and released, the one cut at the page's end and those after it
	 * are withheld. */
	requests(&f, 40);
	audit_flush(&f.a);
	CHECK_INT(file_size(f.cfg.file), (size + page - 1) / page * page);
	CHECK(f.withheld > 0);
	CHECK_INT(f.released + f.withheld, 42);
	CHECK(!audit_available(&f.a));
	o = audit_status_json(&f.a);
	CHECK(strstr(member_text(o, "error"),
	    strerror(ENOSPC)) != NULL);
	json_decref(o);
	CHECK(unlink(FULL_DIR "/filler") == 0);
	audit_flush(&f.a);	/* the timer's retry */
	CHECK(audit_available(&f.a));
	released = f.released;
	requests(&f, 3);
	audit_flush(&f.a);
	CHECK_INT(f.released, released + 3);
	CHECK_INT(held_count(&f), 0);
	read_log(f.cfg.file, &l);
	CHECK(l.chain_ok);
	CHECK(!l.cut);
	CHECK_INT(f.a.seq, l.last_seq);
	free_log(&l);
	teardown(&f);
	CHECK(umount2(FULL_DIR, 0) == 0);
	CHECK(rmdir(FULL_DIR) == 0);
}

/* fail_closed off: a failing log does not stop signing, and nothing is held. */
static void test_fail_open(void)
{
	static struct fixture f;

	test_case = "fail open";
	setup(&f, "/run/open.log", 0, 0);
	CHECK(!audit_holds(&f.a));
	set_file_limit((rlim_t)file_size(f.cfg.file) + 10);
	requests(&f, 2);
	audit_flush(&f.a);
	CHECK(state_is(&f.a, "failing"));
	CHECK(audit_available(&f.a));
	set_file_limit(RLIM_INFINITY);
	teardown(&f);
}

/* Datagrams waiting in the journal's queue: how many, taken out. */
static size_t drain(int fd)
{
	static char dgram[4096];
	size_t n = 0;

	while (recv(fd, dgram, sizeof(dgram), MSG_DONTWAIT) >= 0)
		n++;
	return n;
}

/* Requests 50 at a time until journald's queue is full and records wait for it. */
static void fill_journal(struct fixture *f)
{
	for (int i = 0; i < 200 && held_count(f) == 0; i++) {
		requests(f, 50);
		audit_flush(&f->a);
	}
	CHECK(held_count(f) > 0);
}

/* The loop runs until the replies held are released (the journal drained meanwhile). */
static size_t run_until_released(struct fixture *f, int jfd)
{
	size_t got = 0;

	for (int i = 0; i < 10000 && held_count(f) > 0; i++) {
		got += drain(jfd);
		CHECK(event_base_loop(f->base, EVLOOP_ONCE) == 0);
	}
	CHECK_INT(held_count(f), 0);
	return got + drain(jfd);
}

/* journald busy (its queue full): records and their replies wait, the log does not fail, and
 * once it reads again everything goes; past the bounds (how many wait, how long without
 * progress) the records are lost and the log fails closed. */
static void test_journal_busy(void)
{
	static struct fixture f;
	struct log l = { 0 };
	size_t got;
	int jfd;

	test_case = "journald busy";
	if ((jfd = journal_bind()) < 0)
		test_fatal("cannot bind the journal's socket");
	setup(&f, "/run/journal.log", 1, 1);
	CHECK(f.a.journal);
	fill_journal(&f);
	CHECK(audit_available(&f.a));
	CHECK(state_is(&f.a, "ok"));
	CHECK_INT(f.withheld, 0);
	/* What waits for journald is in neither destination: the file has what it took. */
	read_log(f.cfg.file, &l);
	got = drain(jfd);
	CHECK_INT(l.lines, got);
	CHECK_INT(l.lines, f.released + 1);	/* and the open record */
	got += run_until_released(&f, jfd);
	CHECK_INT(f.withheld, 0);
	read_log(f.cfg.file, &l);
	CHECK_INT(l.lines, got);
	CHECK_INT(l.lines, f.released + 1);
	CHECK(l.chain_ok);

	/* More waiting than the bound allows: lost, and signing refused. */
	test_case = "journald busy, too many waiting";
	fill_journal(&f);
	requests(&f, AUDIT_JOURNAL_WAIT_MAX + 1);
	audit_flush(&f.a);
	CHECK_INT(held_count(&f), 0);
	CHECK(f.withheld > AUDIT_JOURNAL_WAIT_MAX);
	CHECK(!audit_available(&f.a));
	CHECK(state_is(&f.a, "failing"));
	drain(jfd);
	CHECK(event_base_loop(f.base, EVLOOP_ONCE) == 0);	/* room: the journal takes again */
	request(&f);
	audit_flush(&f.a);
	CHECK_INT(held_count(&f), 0);
	CHECK(audit_available(&f.a));

	/* Waiting longer than the bound without progress: lost. The sleep makes sure of it. */
	test_case = "journald busy, too long";
	drain(jfd);
	fill_journal(&f);
	usleep((AUDIT_JOURNAL_BUSY_MS + 100) * 1000);
	audit_flush(&f.a);
	CHECK_INT(held_count(&f), 0);
	CHECK(!audit_available(&f.a));
	read_log(f.cfg.file, &l);
	CHECK(l.chain_ok);
	CHECK(!l.cut);
	CHECK_INT(f.a.seq, l.last_seq);
	free_log(&l);
	teardown(&f);
	close(jfd);
	CHECK(unlink(TEST_JOURNAL_SOCKET) == 0);
}

/* A second log on the same file continues the chain from its last record, a checkpoint here;
 * a file whose last line is cut is refused. */
static void test_restart(void)
{
	static struct fixture f;
	struct log l = { 0 };
	char err[256];
	FILE *cut;

	test_case = "restart";
	setup(&f, "/run/restart.log", 0, 1);
	requests(&f, 3);
	audit_flush(&f.a);
	audit_stop(&f.a);	/* the stop checkpoint, answered while it waits */
	CHECK_INT(f.seals, 1);
	read_log(f.cfg.file, &l);
	CHECK_INT(l.lines, 1 + 3 + 1);
	CHECK(strcmp(member_text(l.last, "type"), "checkpoint") == 0);
	CHECK_INT(json_integer_value(json_object_get(l.last, "covers_seq")), 4);
	teardown(&f);

	setup(&f, "/run/restart.log", 0, 1);
	CHECK_INT(f.a.seq, 1 + 3 + 1 + 1);	/* its own open record follows the checkpoint */
	requests(&f, 2);
	audit_flush(&f.a);
	CHECK_INT(f.released, 2);
	read_log(f.cfg.file, &l);
	CHECK(l.chain_ok);
	CHECK_INT(l.lines, 5 + 1 + 2);
	CHECK_INT(f.a.seq, l.last_seq);
	CHECK_MEM(f.a.hash, l.last_hash, 32);
	teardown(&f);

	test_case = "restart on a cut line";
	if ((cut = fopen("/run/restart.log", "a")) == NULL)
		test_fatal("cannot append to the log");
	fputs("{\"v\":1,\"seq\":9", cut);
	fclose(cut);
	memset(&f, 0, sizeof(f));
	f.cfg = (struct config_audit){ .configured = 1, .file = "/run/restart.log" };
	CHECK(audit_init(&f.a, &f.cfg, err, sizeof(err)) == -1);
	CHECK(strstr(err, "not a whole audit record") != NULL);
	audit_free(&f.a);
	free_log(&l);
}

/* The server's flush before it writes a turn's replies (replies_before_write): the turn's
 * records, then those of the answers given instead of signatures withheld. */
static void turn(struct fixture *f)
{
	audit_flush(&f->a);
	audit_flush(&f->a);
}

/* STATUS's audit member name, as a number. */
static json_int_t status_number(const struct audit *a, const char *name)
{
	json_t *o = audit_status_json(a);
	json_int_t v = json_integer_value(json_object_get(o, name));

	json_decref(o);
	return v;
}

/* Every whole line of the file, as records in order. */
static json_t *load_records(const char *path)
{
	json_t *all = json_array();
	char line[8192];
	FILE *fp = fopen(path, "r");

	if (fp == NULL || all == NULL)
		test_fatal("cannot read the audit file back");
	while (fgets(line, sizeof(line), fp) != NULL) {
		json_t *rec = json_loads(line, 0, NULL);

		CHECK(rec != NULL);
		if (rec != NULL)
			json_array_append_new(all, rec);
	}
	fclose(fp);
	return all;
}

/*
 * What the file says of every answer, checked against what was answered: the requests in the
 * order they were answered (ids increasing), each once but for a signature withheld, whose
 * record is its audit-unavailable one, after its cut `ok` line when that was written. Returns
 * how many such cut `ok` lines it found.
 */
static unsigned check_answers(const struct fixture *f, json_t *recs)
{
	static uint8_t seen_instead[TICKETS];
	uint32_t last = 0;
	unsigned cut_ok = 0;
	size_t i;
	json_t *r;

	memset(seen_instead, 0, sizeof(seen_instead));
	json_array_foreach(recs, i, r) {
		uint32_t id = (uint32_t)json_integer_value(json_object_get(r, "id"));
		const char *result = member_text(r, "result");

		if (strcmp(member_text(r, "type"), "request") != 0 || id == 0 || id >= TICKETS)
			continue;
		if (f->was_withheld[id] && strcmp(result, "audit-unavailable") == 0) {
			CHECK(!seen_instead[id]);
			seen_instead[id] = 1;
			continue;
		}
		CHECK(id > last);	/* in order, once each */
		last = id;
		if (f->was_withheld[id]) {
			/* a withheld signature's cut line, before the record of its answer */
			CHECK(strcmp(result, "ok") == 0);
			CHECK(!seen_instead[id]);
			cut_ok++;
		}
	}
	for (uint32_t id = 1; id < f->next_id; id++)
		if (f->was_withheld[id])
			CHECK(seen_instead[id]);	/* every answer given instead is recorded */
	return cut_ok;
}

static void mount_small(const char *dir)
{
	if (mkdir(dir, 0755) != 0 || mount("tmpfs", dir, "tmpfs", 0, "size=64k") != 0)
		test_fatal("cannot mount a small tmpfs");
}

static void unmount_small(const char *dir)
{
	CHECK(umount2(dir, 0) == 0);
	CHECK(rmdir(dir) == 0);
}

/*
 * A full disk under signing load, the gate played in full: answers of every kind go on during
 * the outage (refusals of signing, pings, a denial), their records wait in the queue, and once
 * there is room they are written in the order they were answered; the signature whose line the
 * disk cut is followed by its audit-unavailable record. No checkpoint while records wait.
 */
static void test_outage_queue(void)
{
	static struct fixture f;
	uint64_t queued;
	json_t *recs;
	struct log l = { 0 };

	test_case = "outage queue";
	mount_small("/run/outage");
	setup(&f, "/run/outage/audit.log", 0, 1);
	f.gate = 1;
	requests(&f, 2);
	turn(&f);
	CHECK_INT(f.released, 2);
	fill_up("/run/outage/filler");
	/* Signatures until the file's last page is full and writes fail: the line cut at its end
	 * is a signature's. */
	for (int i = 0; i < 100 && audit_available(&f.a); i++) {
		requests(&f, 3);
		turn(&f);
	}
	CHECK(!audit_available(&f.a));
	CHECK(f.withheld > 0);
	/* The outage: signing refused (request.c), others answered; all of it queued. */
	queued = (uint64_t)status_number(&f.a, "queued");
	CHECK(queued >= f.withheld);	/* at least the answers given instead */
	for (int i = 0; i < 20; i++) {
		answer(&f, "sign", PROTO_E_AUDIT_UNAVAILABLE, 0);
		answer(&f, "ping", 0, 0);
		answer(&f, "sign-message", PROTO_E_DENIED, 0);
		turn(&f);
	}
	CHECK_INT(status_number(&f.a, "queued"), queued + 60);
	CHECK_INT(status_number(&f.a, "lost"), 0);
	CHECK(state_is(&f.a, "failing"));
	f.a.last_plain_seq = f.a.seq + 1;	/* a time checkpoint would be due */
	f.a.time_due_us = 1;
	event_active(f.a.timer, EV_TIMEOUT, 0);	/* the timer fires */
	CHECK(event_base_loop(f.base, EVLOOP_NONBLOCK) == 0);
	CHECK(!f.seal_out);		/* none while the log is failing */
	/* Room again: the queue is written first, in order, then what comes next. */
	CHECK(unlink("/run/outage/filler") == 0);
	audit_flush(&f.a);	/* the timer's retry */
	CHECK(audit_available(&f.a));
	CHECK(state_is(&f.a, "ok"));
	CHECK_INT(status_number(&f.a, "queued"), 0);
	requests(&f, 2);
	answer(&f, "pubkey", 0, 0);
	turn(&f);
	CHECK_INT(held_count(&f), 0);
	read_log(f.cfg.file, &l);
	CHECK(l.chain_ok);
	CHECK(!l.cut);
	CHECK_INT(f.a.seq, l.last_seq);
	recs = load_records(f.cfg.file);
	CHECK_INT(json_array_size(recs), l.lines);
	/* The signature's line cut at the page's end, finished: its ok, then its answer's. */
	CHECK_INT(check_answers(&f, recs), 1);
	CHECK(strcmp(member_text(json_array_get(recs, json_array_size(recs) - 1), "op"),
	    "pubkey") == 0);
	json_decref(recs);
	free_log(&l);
	teardown(&f);
	unmount_small("/run/outage");
}

/* The requests of the queue, as they are written once there is room: ops and results. */
static void check_kinds_line(json_t *rec, json_int_t records, const char *kinds)
{
	CHECK(strcmp(member_text(rec, "type"), "dropped") == 0);
	CHECK_INT(json_integer_value(json_object_get(rec, "records")), records);
	CHECK(strcmp(member_text(rec, "kinds"), kinds) == 0);
	if (strcmp(member_text(rec, "kinds"), kinds) != 0)
		fprintf(stderr, "kinds: %s, expected %s\n", member_text(rec, "kinds"), kinds);
}

/*
 * The queue's bound: a write cuts a signature's line, then more answers than the queue keeps;
 * those past it are dropped and counted by op and result in one `dropped` record after the
 * queue, and the answer given instead of the cut signature is kept past the bound, so that
 * its record still follows the cut ok line. The counts start again after the record.
 */
static void test_queue_bound(void)
{
	static struct fixture f;
	struct log l = { 0 };
	json_t *recs, *r;
	uint32_t cut_id, first_ping;
	size_t n, i, cut_at = 0, instead_at = 0;
	off_t size;

	test_case = "queue bound";
	setup(&f, "/run/bound.log", 0, 1);
	f.gate = 1;
	turn(&f);
	size = file_size(f.cfg.file);
	set_file_limit((rlim_t)size + 100);	/* the next line is cut 100 bytes in */
	cut_id = f.next_id;
	request(&f);
	first_ping = f.next_id;
	for (unsigned k = 0; k < AUDIT_QUEUE_MAX + 7; k++)
		answer(&f, "ping", 0, 0);
	for (unsigned k = 0; k < 5; k++)
		answer(&f, "sign-tls", PROTO_E_AUDIT_UNAVAILABLE, 0);
	answer(&f, "frame", PROTO_E_BAD_FRAME, 0);
	turn(&f);
	CHECK_INT(f.withheld, 1);
	CHECK(f.was_withheld[cut_id]);
	/* the queue: its bound, the dropped record, and the answer owed to the cut signature */
	CHECK_INT(status_number(&f.a, "queued"), AUDIT_QUEUE_MAX + 2);
	CHECK_INT(status_number(&f.a, "lost"), 7 + 5 + 1);
	answer(&f, "verify", 0, 0);	/* the queue is full: dropped too */
	turn(&f);
	CHECK_INT(status_number(&f.a, "lost"), 14);
	set_file_limit(RLIM_INFINITY);
	audit_flush(&f.a);
	CHECK(state_is(&f.a, "ok"));
	answer(&f, "ping", 0, 0);	/* after the outage */
	turn(&f);
	read_log(f.cfg.file, &l);
	CHECK(l.chain_ok);
	CHECK(!l.cut);
	recs = load_records(f.cfg.file);
	n = json_array_size(recs);
	CHECK_INT(n, 1 + 1 + AUDIT_QUEUE_MAX + 1 + 1 + 1);	/* open, cut, queue, dropped, ... */
	json_array_foreach(recs, i, r) {
		uint32_t id = (uint32_t)json_integer_value(json_object_get(r, "id"));

		if (id == cut_id && strcmp(member_text(r, "result"), "ok") == 0)
			cut_at = i;
		if (id == cut_id && strcmp(member_text(r, "result"), "audit-unavailable") == 0)
			instead_at = i;
	}
	CHECK_INT(cut_at, 1);		/* the cut line, finished first */
	CHECK_INT(json_integer_value(json_object_get(json_array_get(recs, 2), "id")), first_ping);
	CHECK_INT(json_integer_value(json_object_get(json_array_get(recs, 1 + AUDIT_QUEUE_MAX),
	    "id")), first_ping + AUDIT_QUEUE_MAX - 1);
	check_kinds_line(json_array_get(recs, 2 + AUDIT_QUEUE_MAX), 14,
	    "ping ok 7, verify ok 1, sign-tls audit-unavailable 5, frame bad-frame 1");
	CHECK_INT(instead_at, 3 + AUDIT_QUEUE_MAX);	/* past the bound, after its ok line */
	CHECK(strcmp(member_text(json_array_get(recs, n - 1), "op"), "ping") == 0);
	CHECK(check_answers(&f, recs) == 1);
	json_decref(recs);

	/* The next outage's dropped record counts its own drops only. */
	test_case = "queue bound, a second outage";
	set_file_limit((rlim_t)file_size(f.cfg.file));
	for (unsigned k = 0; k < AUDIT_QUEUE_MAX + 2; k++)
		answer(&f, "status", 0, 0);
	turn(&f);
	CHECK_INT(status_number(&f.a, "lost"), 16);
	set_file_limit(RLIM_INFINITY);
	audit_flush(&f.a);
	recs = load_records(f.cfg.file);
	check_kinds_line(json_array_get(recs, json_array_size(recs) - 1), 2, "status ok 2");
	json_decref(recs);
	free_log(&l);
	teardown(&f);
}

/*
 * The file failing, the journal not: each record goes to the journal once, not once a retry,
 * and a signature withheld whose ok record the journal took is in the file too once there is
 * room, followed by the record of its answer, as in the journal.
 */
static void test_journal_outage(void)
{
	static struct fixture f;
	json_t *recs;
	size_t got;
	int jfd;

	test_case = "file outage, journal on";
	if ((jfd = journal_bind()) < 0)
		test_fatal("cannot bind the journal's socket");
	setup(&f, "/run/jfail.log", 1, 1);
	f.gate = 1;
	turn(&f);
	drain(jfd);
	set_file_limit((rlim_t)file_size(f.cfg.file));
	request(&f);
	for (int k = 0; k < 5; k++) {
		for (int i = 0; i < 5; i++)	/* within the journal's queue of 10 datagrams */
			answer(&f, "ping", 0, 0);
		turn(&f);
		got = drain(jfd);
		CHECK_INT(got, k == 0 ? 1 + 5 + 1 : 5);	/* the sign, its answer, pings */
	}
	CHECK_INT(f.withheld, 1);
	CHECK_INT(status_number(&f.a, "queued"), 1 + 1 + 25);
	set_file_limit(RLIM_INFINITY);
	audit_flush(&f.a);
	CHECK(state_is(&f.a, "ok"));
	CHECK_INT(drain(jfd), 0);	/* nothing sent twice */
	recs = load_records(f.cfg.file);
	CHECK_INT(json_array_size(recs), 1 + 1 + 1 + 25);
	CHECK_INT(check_answers(&f, recs), 1);	/* its ok, then its answer */
	json_decref(recs);
	teardown(&f);
	close(jfd);
	CHECK(unlink(TEST_JOURNAL_SOCKET) == 0);
}

/* A reopen during an outage: the new file begins with its open record, then the queue. */
static void test_reopen_queue(void)
{
	static struct fixture f;
	json_t *recs;

	test_case = "reopen with a queue";
	setup(&f, "/run/reopen.log", 0, 1);
	requests(&f, 4);	/* the old file longer than the new one's open and queue */
	turn(&f);
	set_file_limit((rlim_t)file_size(f.cfg.file));
	answer(&f, "ping", 0, 0);
	answer(&f, "ping", 0, 0);
	turn(&f);
	CHECK_INT(status_number(&f.a, "queued"), 2);
	/* The limit stays: the old file is at it, the new one has room below it. */
	CHECK(rename("/run/reopen.log", "/run/reopen.log.1") == 0);
	audit_reopen(&f.a);
	set_file_limit(RLIM_INFINITY);
	recs = load_records(f.cfg.file);
	CHECK_INT(json_array_size(recs), 3);
	CHECK(strcmp(member_text(json_array_get(recs, 0), "type"), "open") == 0);
	CHECK(strcmp(member_text(json_array_get(recs, 1), "op"), "ping") == 0);
	CHECK(strcmp(member_text(json_array_get(recs, 2), "op"), "ping") == 0);
	CHECK(state_is(&f.a, "ok"));
	json_decref(recs);
	teardown(&f);
}

/* The timer is armed only while something is due: records unsealed get their `time` checkpoint
 * when it fires (2 s after the first of them), and once every record is sealed it is not armed
 * again (an idle log does not wake the daemon). */
static void test_time_checkpoint(void)
{
	static struct fixture f;
	struct log l = { 0 };
	uint64_t last;

	test_case = "time checkpoint";
	setup(&f, "/run/time.log", 0, 1);
	requests(&f, 2);
	audit_flush(&f.a);
	last = f.a.seq;
	CHECK(evtimer_pending(f.a.timer, NULL));
	CHECK(f.a.time_due_us > 0);
	for (int i = 0; i < 100 && !f.seal_out; i++)
		CHECK(event_base_loop(f.base, EVLOOP_ONCE) == 0);	/* the timer, once due */
	CHECK(f.seal_out);
	answer_seal(&f);
	read_log(f.cfg.file, &l);
	CHECK(strcmp(member_text(l.last, "type"), "checkpoint") == 0);
	CHECK(strcmp(member_text(l.last, "reason"), "time") == 0);
	CHECK_INT(json_integer_value(json_object_get(l.last, "covers_seq")), last);
	CHECK(!evtimer_pending(f.a.timer, NULL));	/* all sealed: nothing due */
	CHECK_INT(f.a.time_due_us, 0);
	requests(&f, 1);
	audit_flush(&f.a);
	CHECK(evtimer_pending(f.a.timer, NULL));	/* a new record: due again */
	free_log(&l);
	teardown(&f);
}

int main(void)
{
	if (private_run() != 0) {
		perror("a private mount namespace with /run on tmpfs");
		return 1;
	}
	if (signal(SIGXFSZ, SIG_IGN) == SIG_ERR)	/* a write past RLIMIT_FSIZE: EFBIG */
		test_fatal("signal");
	test_short_write();
	test_full_disk();
	test_fail_open();
	test_journal_busy();
	test_restart();
	test_outage_queue();
	test_queue_bound();
	test_reopen_queue();
	test_journal_outage();
	test_time_checkpoint();
	return test_done("audit");
}
