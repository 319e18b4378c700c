/* SPDX-License-Identifier: ISC */
/*
 * One audit record from its line (audit-verifier.h): jansson parses the JSON, then tables of the
 * members of each record type (docs/audit.md) check every member's presence, place, type and
 * form, and the line must be the bytes the daemon writes for those members (re-serialised and
 * compared), so that the chain sees only well-formed records, each with one form only, and the
 * operator a reason that names the member.
 */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "audit-verifier.h"
#include "hex.h"
#include "proto.h"

#define KEY_NAME_MAX 64		/* key names: 1..64 of [A-Za-z0-9._-], as in the configuration */
#define SHOWN_NAME_MAX 32	/* how much of an unknown member's name a message shows */

enum kind {
	M_INT,		/* an integer from min to max */
	M_HEX,		/* lowercase hex, hexlen digits (0: 64, 96 or 128, a SHA-2 hash) */
	M_NAME,		/* a key name */
	M_TEXT,		/* any string of 1 to max bytes (a process name, a unit) */
	M_RESULT,	/* "ok" or an error tag of the protocol */
	M_ENUM,		/* one of values */
	M_TIME,		/* UTC with microseconds */
	M_OBJECT,	/* an object of the members inner */
	M_KINDS,	/* a dropped record's kinds: "OP RESULT COUNT, ...[, other COUNT]" */
};

struct member {
	const char *name;
	enum kind kind;
	int required;
	json_int_t min, max;
	unsigned hexlen;
	const char *const *values;		/* NULL-terminated */
	const struct member *inner;		/* ended by a NULL name */
};

#define INT(n, req, lo, hi) { .name = n, .kind = M_INT, .required = req, .min = lo, .max = hi }
#define HEX(n, req, len) { .name = n, .kind = M_HEX, .required = req, .hexlen = len }
#define STR(n, req, k) { .name = n, .kind = k, .required = req }
#define TEXT(n, req, bytes) { .name = n, .kind = M_TEXT, .required = req, .max = bytes }
#define ENUM(n, req, v) { .name = n, .kind = M_ENUM, .required = req, .values = v }
#define OBJECT(n, req, m) { .name = n, .kind = M_OBJECT, .required = req, .inner = m }
#define END { .name = NULL }

#define U32_MAX ((json_int_t)UINT32_MAX)
#define SEQ_MAX ((json_int_t)INT64_MAX)

static const char *const TYPES[] = { "open", "request", "checkpoint", "dropped", NULL };
static const char *const OPEN_REASONS[] = { "start", "reopen", NULL };
static const char *const OPS[] = { "ping", "sign", "sign-message", "pubkey", "verify",
	"list-keys", "status", "sign-tls", "certificate", "frame", NULL };
static const char *const TLS_KINDS[] = { "tls13", "tls12", NULL };
static const char *const TLS_SIDES[] = { "server", "client", NULL };

/* The members every record opens with, in this order. */
static const struct member COMMON[] = {
	INT("v", 1, 1, 1),
	ENUM("type", 1, TYPES),
	INT("seq", 1, 1, SEQ_MAX),
	STR("time", 1, M_TIME),
	HEX("prev", 1, 64),
	END,
};
#define NCOMMON 5

static const struct member AUDIT_KEY[] = {
	STR("name", 1, M_NAME),
	HEX("key_id", 1, 64),
	HEX("public", 1, 2 * AUDIT_POINT_LEN),
	END,
};

static const struct member OPEN[] = {
	ENUM("reason", 1, OPEN_REASONS),
	INT("pid", 1, 1, INT32_MAX),
	OBJECT("audit_key", 1, AUDIT_KEY),
	END,
};

static const struct member PEER[] = {
	INT("pid", 1, 0, INT32_MAX),		/* 0: a peer in another pid namespace */
	INT("uid", 1, 0, U32_MAX),
	INT("gid", 1, 0, U32_MAX),
	TEXT("comm", 0, 15),			/* the kernel's TASK_COMM_LEN, less its NUL */
	TEXT("unit", 0, 255),			/* systemd's longest unit name */
	END,
};

static const struct member TLS[] = {
	ENUM("kind", 1, TLS_KINDS),
	ENUM("side", 1, TLS_SIDES),
	HEX("transcript_hash", 0, 0),
	HEX("content_sha256", 0, 64),
	END,
};

static const struct member REQUEST[] = {
	INT("conn", 1, 1, SEQ_MAX),
	INT("id", 1, 0, U32_MAX),
	OBJECT("peer", 1, PEER),
	ENUM("op", 1, OPS),
	STR("key", 0, M_NAME),
	HEX("key_id", 0, 64),
	HEX("digest", 0, 64),
	HEX("message_sha256", 0, 64),
	OBJECT("tls", 0, TLS),
	STR("result", 1, M_RESULT),
	HEX("sig_sha256", 0, 64),
	INT("us", 1, 0, SEQ_MAX),
	END,
};

static const struct member CHECKPOINT[] = {
	ENUM("reason", 1, audit_seal_reasons),
	INT("covers_seq", 1, 1, SEQ_MAX),
	HEX("covers_hash", 1, 64),
	HEX("key_id", 1, 64),
	HEX("sig", 1, 2 * AUDIT_SIG_LEN),
	END,
};

static const struct member DROPPED[] = {
	INT("records", 1, 1, SEQ_MAX),
	STR("kinds", 1, M_KINDS),
	END,
};

/* The members after the common ones, by enum audit_type (the order of TYPES). */
static const struct member *const BY_TYPE[] = { OPEN, REQUEST, CHECKPOINT, DROPPED };

/* Writes "member 'PARENT.NAME': " and the message to why; returns -1. */
static int fail(char *why, size_t n, const char *parent, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int fail(char *why, size_t n, const char *parent, const char *name, const char *fmt, ...)
{
	va_list ap;
	int k;

	k = snprintf(why, n, "member '%s%s%s': ", parent ? parent : "", parent ? "." : "", name);
	if (k >= 0 && (size_t)k < n) {
		va_start(ap, fmt);
		vsnprintf(why + k, n - (size_t)k, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static int is_lower_hex(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

static int is_name(const char *s, size_t len)
{
	if (len == 0 || len > KEY_NAME_MAX)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == '_' || s[i] == '-'))
			return 0;
	return 1;
}

/* "ok", or the tag of an error code of the protocol (docs/protocol.md section 7): closed, as op
 * is, since a value this version of the format does not name has no meaning to check. */
static int is_result(const char *s)
{
	if (strcmp(s, "ok") == 0)
		return 1;
	if (strcmp(s, "unknown-error") == 0)	/* proto_error_tag's name for a code it does not know */
		return 0;
	for (uint16_t code = 1; code <= PROTO_E_MAX; code++)
		if (strcmp(s, proto_error_tag(code)) == 0)
			return 1;
	return 0;
}

/* The rank of a result among a dropped record's kinds: ok 0, an error tag its code; -1 for none. */
static int result_rank(const char *s, size_t len)
{
	if (len == 2 && memcmp(s, "ok", 2) == 0)
		return 0;
	for (uint16_t code = 1; code <= PROTO_E_MAX; code++)
		if (strlen(proto_error_tag(code)) == len && memcmp(s, proto_error_tag(code), len) == 0)
			return code;
	return -1;
}

/* The rank of an op in OPS, or -1. */
static int op_rank(const char *s, size_t len)
{
	for (int i = 0; OPS[i] != NULL; i++)
		if (strlen(OPS[i]) == len && memcmp(s, OPS[i], len) == 0)
			return i;
	return -1;
}

/* A count of a kind at *p (up to end): [1-9][0-9]*, at most SEQ_MAX; *p moves past it. */
static int kind_count(const char **p, const char *end, uint64_t *count)
{
	const char *s = *p;

	*count = 0;
	if (s == end || *s < '1' || *s > '9')
		return -1;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		if (*count > ((uint64_t)SEQ_MAX - (uint64_t)(*s - '0')) / 10)
			return -1;
		*count = *count * 10 + (uint64_t)(*s - '0');
	}
	*p = s;
	return 0;
}

/*
 * A dropped record's kinds (docs/audit.md): "OP RESULT COUNT" entries joined by ", ", each kind
 * once, ops in the order of the format's table and results ok first, then by error code; and
 * at most one "other COUNT", last. *sum gets the counts' sum (at most SEQ_MAX). 0, or -1 with
 * what is wrong in *what.
 */
static int check_kinds(const char *s, size_t len, uint64_t *sum, const char **what)
{
	const char *p = s, *end = s + len;
	int last = -1;

	*sum = 0;
	*what = "empty";
	while (p < end) {
		const char *op = p, *space = memchr(p, ' ', (size_t)(end - p)), *res, *res_end;
		uint64_t count;
		int rank;

		*what = "not \"OP RESULT COUNT\" entries joined by \", \"";
		if (space == NULL)
			return -1;
		if (space - op == 5 && memcmp(op, "other", 5) == 0) {
			p = space + 1;
			if (kind_count(&p, end, &count) != 0 || p != end)
				return -1;	/* other is last */
		} else {
			res = space + 1;
			if ((res_end = memchr(res, ' ', (size_t)(end - res))) == NULL ||
			    op_rank(op, (size_t)(space - op)) < 0 ||
			    result_rank(res, (size_t)(res_end - res)) < 0) {
				*what = "an entry whose op or result the format does not name";
				return -1;
			}
			rank = op_rank(op, (size_t)(space - op)) * (PROTO_E_MAX + 1) +
				result_rank(res, (size_t)(res_end - res));
			if (rank <= last) {
				*what = "a kind out of order or twice (ops in the table's order, then "
					"ok first and results by error code)";
				return -1;
			}
			last = rank;
			p = res_end + 1;
			if (kind_count(&p, end, &count) != 0)
				return -1;
		}
		if (count > (uint64_t)SEQ_MAX - *sum) {
			*what = "counts that sum past the largest seq";
			return -1;
		}
		*sum += count;
		if (p == end)
			return 0;
		if (end - p < 3 || p[0] != ',' || p[1] != ' ')
			return -1;
		p += 2;
	}
	return -1;	/* empty, or ", " last */
}

/* The digits of s[0..n-1] as a number (they are digits: is_time checked the form). */
static unsigned digits(const char *s, int n)
{
	unsigned v = 0;

	for (int i = 0; i < n; i++)
		v = v * 10 + (unsigned)(s[i] - '0');
	return v;
}

static unsigned days_in_month(unsigned year, unsigned month)
{
	static const unsigned char days[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;

	return days[month - 1] + (month == 2 && leap);
}

/*
 * YYYY-MM-DDTHH:MM:SS.uuuuuuZ, the format's only form of a time, and a time the daemon can write:
 * a real date (proleptic Gregorian) from 1970 on, no second 60 (CLOCK_REALTIME has none).
 */
static int is_time(const char *s, size_t len)
{
	static const char form[] = "dddd-dd-ddTdd:dd:dd.ddddddZ";
	unsigned year, month;

	if (len != AUDIT_TIME_LEN)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (form[i] == 'd' ? (s[i] < '0' || s[i] > '9') : s[i] != form[i])
			return 0;
	year = digits(s, 4);
	month = digits(s + 5, 2);
	if (year < 1970 || month < 1 || month > 12)
		return 0;
	return digits(s + 8, 2) >= 1 && digits(s + 8, 2) <= days_in_month(year, month) &&
		digits(s + 11, 2) <= 23 && digits(s + 14, 2) <= 59 && digits(s + 17, 2) <= 59;
}

static int in_values(const char *s, const char *const *values)
{
	for (; *values != NULL; values++)
		if (strcmp(s, *values) == 0)
			return 1;
	return 0;
}

static int check_members(const struct member *table, json_t *obj, size_t skip, const char *parent,
	char *why, size_t n);

static int check_string(const struct member *m, json_t *v, const char *parent, char *why, size_t n)
{
	const char *s = json_string_value(v);
	size_t len = json_string_length(v);

	switch (m->kind) {
	case M_HEX:
		if (m->hexlen == 0 ? (len != 64 && len != 96 && len != 128) : len != m->hexlen) {
			if (m->hexlen == 0)
				return fail(why, n, parent, m->name, "not 64, 96 or 128 hex digits");
			return fail(why, n, parent, m->name, "not %u hex digits", m->hexlen);
		}
		if (!is_lower_hex(s, len))
			return fail(why, n, parent, m->name, "not lowercase hex");
		return 0;
	case M_NAME:
		if (!is_name(s, len))
			return fail(why, n, parent, m->name, "not a key name (1 to 64 of A-Z a-z 0-9 . _ -)");
		return 0;
	case M_RESULT:
		if (!is_result(s))
			return fail(why, n, parent, m->name, "not ok or an error tag of the protocol");
		return 0;
	case M_ENUM:
		if (!in_values(s, m->values))
			return fail(why, n, parent, m->name, "not one of its values");
		return 0;
	case M_TIME:
		if (!is_time(s, len))
			return fail(why, n, parent, m->name, "not a UTC time YYYY-MM-DDTHH:MM:SS.uuuuuuZ "
				"of a real date from 1970 on");
		return 0;
	case M_KINDS: {
		uint64_t sum;
		const char *what;

		if (check_kinds(s, len, &sum, &what) != 0)
			return fail(why, n, parent, m->name, "%s", what);
		return 0;
	}
	default:	/* M_TEXT: any string of its length */
		if (len == 0 || len > (size_t)m->max)
			return fail(why, n, parent, m->name, "not 1 to %d bytes", (int)m->max);
		return 0;
	}
}

static int check_value(const struct member *m, json_t *v, const char *parent, char *why, size_t n)
{
	json_int_t i;

	if (m->kind == M_INT) {
		if (!json_is_integer(v))
			return fail(why, n, parent, m->name, "not an integer");
		i = json_integer_value(v);
		if (i < m->min || i > m->max)
			return fail(why, n, parent, m->name, "%" JSON_INTEGER_FORMAT " is out of range",
				i);
		return 0;
	}
	if (m->kind == M_OBJECT) {
		if (!json_is_object(v))
			return fail(why, n, parent, m->name, "not an object");
		return check_members(m->inner, v, 0, m->name, why, n);
	}
	if (!json_is_string(v))
		return fail(why, n, parent, m->name, "not a string");
	return check_string(m, v, parent, why, n);
}

static const struct member *find(const struct member *table, const char *name)
{
	for (; table->name != NULL; table++)
		if (strcmp(table->name, name) == 0)
			return table;
	return NULL;
}

/* A name from the line, for a message: printable ASCII only, and not too long. */
static void shown_name(const char *name, char out[SHOWN_NAME_MAX + 1])
{
	size_t i;

	for (i = 0; i < SHOWN_NAME_MAX && name[i] != '\0'; i++)
		out[i] = name[i] >= 0x20 && name[i] < 0x7f && name[i] != '\'' ? name[i] : '?';
	out[i] = '\0';
}

/* Every member of obj after the first skip is in table, in the table's order (the daemon's), and
 * well-formed; none required is missing. */
static int check_members(const struct member *table, json_t *obj, size_t skip, const char *parent,
	char *why, size_t n)
{
	char shown[SHOWN_NAME_MAX + 1];
	const struct member *m, *last = NULL;
	const char *key;
	json_t *value;
	size_t i = 0;

	json_object_foreach(obj, key, value) {
		if (i++ < skip)
			continue;
		if ((m = find(table, key)) == NULL) {
			shown_name(key, shown);
			return fail(why, n, parent, shown, "not a member of this record");
		}
		if (last != NULL && m < last)
			return fail(why, n, parent, m->name, "out of order: it comes before '%s'",
				last->name);
		last = m;
		if (check_value(m, value, parent, why, n) != 0)
			return -1;
	}
	for (m = table; m->name != NULL; m++)
		if (m->required && json_object_get(obj, m->name) == NULL)
			return fail(why, n, parent, m->name, "missing");
	return 0;
}

/* v, type, seq, time and prev first and in order; r gets seq (as soon as it is good) and type. */
static int check_common(json_t *obj, struct audit_record *r, char *why, size_t n)
{
	void *it = json_object_iter(obj);
	json_t *v;

	for (size_t i = 0; i < NCOMMON; i++, it = json_object_iter_next(obj, it)) {
		if (it == NULL || strcmp(json_object_iter_key(it), COMMON[i].name) != 0) {
			if ((v = json_object_get(obj, COMMON[i].name)) == NULL)
				return fail(why, n, NULL, COMMON[i].name, "missing");
			return fail(why, n, NULL, COMMON[i].name, "not member %zu of the record, "
				"after v, type, seq, time, prev in this order", i + 1);
		}
		if (check_value(&COMMON[i], json_object_iter_value(it), NULL, why, n) != 0)
			return -1;
		if (i == 2)
			r->seq = (uint64_t)json_integer_value(json_object_iter_value(it));
	}
	for (size_t t = 0; TYPES[t] != NULL; t++)
		if (strcmp(json_string_value(json_object_get(obj, "type")), TYPES[t]) == 0)
			r->type = (enum audit_type)t;
	return 0;
}

/* What a request was asked to sign, by its op: each member only in a record of that op. */
static const struct {
	const char *member, *op;
} SUBJECTS[] = {
	{ "digest", "sign" },
	{ "message_sha256", "sign-message" },
	{ "tls", "sign-tls" },
};

/*
 * The members of a request that go together, as the daemon writes them: what was signed only
 * for the op that signs it, the tls object's hash the one of its kind, and the hash of a
 * signature only with result ok (none is released otherwise).
 */
static int check_request(json_t *obj, char *why, size_t n)
{
	const char *op = json_string_value(json_object_get(obj, "op"));
	const char *result = json_string_value(json_object_get(obj, "result"));
	json_t *tls = json_object_get(obj, "tls");

	for (size_t i = 0; i < sizeof(SUBJECTS) / sizeof(SUBJECTS[0]); i++)
		if (json_object_get(obj, SUBJECTS[i].member) != NULL &&
		    strcmp(op, SUBJECTS[i].op) != 0)
			return fail(why, n, NULL, SUBJECTS[i].member, "in a record of op %s (only of "
				"op %s)", op, SUBJECTS[i].op);
	if (tls != NULL) {
		int tls13 = strcmp(json_string_value(json_object_get(tls, "kind")), "tls13") == 0;
		const char *kind = tls13 ? "tls13" : "tls12";
		const char *own = tls13 ? "transcript_hash" : "content_sha256";
		const char *other = tls13 ? "content_sha256" : "transcript_hash";

		if (json_object_get(tls, other) != NULL)
			return fail(why, n, "tls", other, "in a %s record (only in the other kind)",
				kind);
		if (json_object_get(tls, own) == NULL)
			return fail(why, n, "tls", own, "missing (a %s record has it)", kind);
	}
	if (json_object_get(obj, "sig_sha256") != NULL && strcmp(result, "ok") != 0)
		return fail(why, n, NULL, "sig_sha256", "in a record whose result is not ok");
	return 0;
}

/* A dropped record's kinds sum to its records (each well-formed already). */
static int check_dropped(json_t *obj, char *why, size_t n)
{
	json_t *kinds = json_object_get(obj, "kinds");
	uint64_t sum;
	const char *what;

	if (check_kinds(json_string_value(kinds), json_string_length(kinds), &sum, &what) != 0 ||
	    sum != (uint64_t)json_integer_value(json_object_get(obj, "records")))
		return fail(why, n, NULL, "kinds", "its counts do not sum to records");
	return 0;
}

/*
 * The line is the bytes the daemon writes for these members: jansson's compact form, which the
 * daemon's writer reproduces (daemon/audit-line.h). Spaces, an escape where none is needed
 * (\u0073 for s) or another form of a number would give a record a second form with the same
 * meaning, which the chain would hash but nothing else would check.
 */
static int check_form(json_t *obj, const uint8_t *line, size_t len, char *why, size_t n)
{
	char own[AUDIT_LINE_MAX];
	size_t need = json_dumpb(obj, own, sizeof(own), JSON_COMPACT | JSON_PRESERVE_ORDER), i = 0;

	if (need == len && memcmp(own, line, len) == 0)
		return 0;
	while (i < len && i < need && i < sizeof(own) && own[i] == (char)line[i])
		i++;
	snprintf(why, n, "not in the daemon's form (compact JSON, escapes only where JSON needs "
		"them): it differs from it at byte %zu", i + 1);
	return -1;
}

/* Why jansson refused a line, in words of the format (its own text quotes the input). */
static const char *load_error(const json_error_t *e)
{
	enum json_error_code code = json_error_code(e);

	if (code == json_error_null_character || code == json_error_null_byte_in_key)
		return "a string holds \\u0000, which the format does not allow";
	if (code == json_error_duplicate_key)
		return "a member appears twice";
	/* jansson 2.14's words for an unpaired surrogate; another wording falls to the last line,
	 * refused all the same */
	if (code == json_error_invalid_syntax && strncmp(e->text, "invalid Unicode '", 17) == 0)
		return "a string holds an unpaired surrogate (\\uD800 to \\uDFFF), which the format "
			"does not allow";
	return "not valid JSON";
}

/* The hex of a member that check_members has passed: the decoding cannot fail, but is checked. */
static int get_hex(json_t *obj, const char *name, uint8_t *out, size_t n)
{
	json_t *v = json_object_get(obj, name);
	size_t len;

	if (hex_decode(json_string_value(v), json_string_length(v), out, n, &len) != 0 || len != n)
		return -1;
	return 0;
}

/* The members the chain uses, from a record whose members are all well-formed. */
static int extract(json_t *obj, struct audit_record *r)
{
	json_t *key;

	memcpy(r->time, json_string_value(json_object_get(obj, "time")), AUDIT_TIME_LEN + 1);
	if (get_hex(obj, "prev", r->prev, AUDIT_HASH_LEN) != 0)
		return -1;
	if (r->type == AUDIT_OPEN) {
		key = json_object_get(obj, "audit_key");
		return get_hex(key, "key_id", r->audit_key_id, AUDIT_HASH_LEN) != 0 ||
			get_hex(key, "public", r->audit_public, AUDIT_POINT_LEN) != 0 ? -1 : 0;
	}
	if (r->type == AUDIT_CHECKPOINT) {
		const char *reason = json_string_value(json_object_get(obj, "reason"));

		if (strlen(reason) >= sizeof(r->reason))
			return -1;
		memcpy(r->reason, reason, strlen(reason) + 1);
		r->covers_seq = (uint64_t)json_integer_value(json_object_get(obj, "covers_seq"));
		return get_hex(obj, "covers_hash", r->covers_hash, AUDIT_HASH_LEN) != 0 ||
			get_hex(obj, "key_id", r->key_id, AUDIT_HASH_LEN) != 0 ||
			get_hex(obj, "sig", r->sig, AUDIT_SIG_LEN) != 0 ? -1 : 0;
	}
	return 0;
}

int audit_record_parse(const uint8_t *line, size_t len, struct audit_record *r, char *why,
	size_t why_len)
{
	json_error_t error;
	json_t *obj;
	int ret = -1;

	memset(r, 0, sizeof(*r));
	if (len > AUDIT_LINE_MAX) {
		snprintf(why, why_len, "a line longer than %d bytes: not a record", AUDIT_LINE_MAX);
		return -1;
	}
	/* Duplicate members would let two readers see two records in one line, and so would a
	 * \u0000 to a reader of C strings. */
	obj = json_loadb((const char *)line, len, JSON_REJECT_DUPLICATES, &error);
	if (obj == NULL) {
		snprintf(why, why_len, "%s (at byte %d)", load_error(&error), error.position);
		return -1;
	}
	if (!json_is_object(obj)) {
		snprintf(why, why_len, "not a JSON object");
		goto out;
	}
	if (check_common(obj, r, why, why_len) != 0 ||
	    check_members(BY_TYPE[r->type], obj, NCOMMON, NULL, why, why_len) != 0 ||
	    (r->type == AUDIT_REQUEST && check_request(obj, why, why_len) != 0) ||
	    (r->type == AUDIT_DROPPED && check_dropped(obj, why, why_len) != 0) ||
	    check_form(obj, line, len, why, why_len) != 0)
		goto out;
	if (extract(obj, r) != 0) {
		snprintf(why, why_len, "internal error: a checked member did not decode");
		goto out;
	}
	ret = 0;
out:
	json_decref(obj);
	return ret;
}

/* ---- A record from its journal entry (audit_record_from_fields) ---- */

#define FIELD_PREFIX "P256SIGN_"
#define FIELD_NAME_MAX 64	/* journald's limit on a field name */
#define DIGITS_MAX 19		/* INT64_MAX has 19 */

/* "P256SIGN_", then PARENT and "_" when inside an object, then NAME, in upper case. */
static void field_name(char out[FIELD_NAME_MAX], const char *parent, const char *name)
{
	size_t i;

	snprintf(out, FIELD_NAME_MAX, "%s%s%s%s", FIELD_PREFIX, parent ? parent : "",
		parent ? "_" : "", name);
	for (i = 0; out[i] != '\0'; i++)
		if (out[i] >= 'a' && out[i] <= 'z')
			out[i] = (char)(out[i] - 'a' + 'A');
}

/* An integer as the daemon writes it (no sign but '-', no leading zero, no -0), else NULL:
 * another spelling of the same number would rebuild the same line from a field that differs. */
static json_t *integer_from_digits(const uint8_t *s, size_t len)
{
	size_t i = len > 0 && s[0] == '-';
	uint64_t v = 0;

	if (len - i == 0 || len - i > DIGITS_MAX || (s[i] == '0' && len - i > 1) ||
	    (i == 1 && s[1] == '0'))
		return NULL;
	for (size_t k = i; k < len; k++) {
		if (s[k] < '0' || s[k] > '9')
			return NULL;
		v = v * 10 + (uint64_t)(s[k] - '0');
	}
	if (v > (uint64_t)INT64_MAX)
		return NULL;
	return json_integer(i ? -(json_int_t)v : (json_int_t)v);
}

/* The members of table (inside object parent, or at the top) that the entry has, into obj, in
 * the table's order; an object member only when one of its own is there. */
static int members_from_fields(json_t *obj, const struct member *table, const char *parent,
	audit_field_fn field, void *arg, char *why, size_t n)
{
	char name[FIELD_NAME_MAX];
	const uint8_t *v;
	json_t *value;
	size_t len;

	for (const struct member *m = table; m->name != NULL; m++) {
		if (m->kind == M_OBJECT) {
			if ((value = json_object()) == NULL)
				return fail(why, n, parent, m->name, "out of memory");
			if (members_from_fields(value, m->inner, m->name, field, arg, why, n) != 0 ||
			    (json_object_size(value) > 0 && json_object_set(obj, m->name, value) != 0)) {
				json_decref(value);
				return -1;
			}
			json_decref(value);
			continue;
		}
		field_name(name, parent, m->name);
		if ((v = field(arg, name, &len)) == NULL)
			continue;
		value = m->kind == M_INT ? integer_from_digits(v, len) :
			json_stringn((const char *)v, len);
		if (value == NULL)
			return fail(why, n, parent, m->name, m->kind == M_INT ?
				"field %s is not an integer in decimal (the daemon's digits)" :
				"field %s is not a string of UTF-8", name);
		if (json_object_set_new(obj, m->name, value) != 0)
			return fail(why, n, parent, m->name, "out of memory");
	}
	return 0;
}

int audit_record_from_fields(audit_field_fn field, void *arg, uint8_t *line, size_t cap,
	size_t *len, char *why, size_t why_len)
{
	json_t *obj = json_object(), *type;
	size_t t, need;
	int ret = -1;

	if (obj == NULL) {
		snprintf(why, why_len, "out of memory");
		return -1;
	}
	if (members_from_fields(obj, COMMON, NULL, field, arg, why, why_len) != 0)
		goto out;
	if ((type = json_object_get(obj, "type")) == NULL) {
		fail(why, why_len, NULL, "type", "missing (no field P256SIGN_TYPE)");
		goto out;
	}
	for (t = 0; TYPES[t] != NULL && strcmp(TYPES[t], json_string_value(type)) != 0; t++)
		;
	if (TYPES[t] == NULL) {
		fail(why, why_len, NULL, "type", "not one of its values");
		goto out;
	}
	if (members_from_fields(obj, BY_TYPE[t], NULL, field, arg, why, why_len) != 0)
		goto out;
	need = json_dumpb(obj, (char *)line, cap, JSON_COMPACT | JSON_PRESERVE_ORDER);
	if (need == 0 || need > cap) {
		snprintf(why, why_len, "a line longer than %zu bytes: not a record", cap);
		goto out;
	}
	*len = need;
	ret = 0;
out:
	json_decref(obj);
	return ret;
}
