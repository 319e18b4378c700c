/* SPDX-License-Identifier: ISC */
/* Reading the JSON configuration with jansson: types, ranges, defaults, unknown fields. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <jansson.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "list-keys.h"
#include "proto.h"

#define WORKERS_MAX 256
#define BUSY_POLL_MAX_US 1000
#define BUSY_POLL_DEFAULT_US 100
/* Without "worker_timeout_ms": half of request_timeout_ms, within these. */
#define WORKER_TIMEOUT_DEFAULT_MS 2000
#define WORKER_TIMEOUT_MIN_MS 10

/* The "nonce" values, as the file and LIST_KEYS write them. */
static const struct {
	enum p256_nonce nonce;
	const char *name;
} nonces[] = {
	{ P256_NONCE_HEDGED, "hedged" },
	{ P256_NONCE_DETERMINISTIC, "deterministic" },
	{ P256_NONCE_PRECOMPUTED, "precomputed" },
};

const char *config_nonce_name(enum p256_nonce nonce)
{
	for (size_t i = 0; i < sizeof(nonces) / sizeof(nonces[0]); i++)
		if (nonces[i].nonce == nonce)
			return nonces[i].name;
	return "hedged";
}

struct ctx {
	const char *path;
	char *err;
	size_t errlen;
};

/* Formats "FILE: WHERE.NAME: message" into the caller's error buffer; returns -1. */
__attribute__((format(printf, 4, 5)))
static int fail(struct ctx *x, const char *where, const char *name, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(x->err, x->errlen, "%s: %s%s%s: %s", x->path, where, *where ? "." : "",
	    name, msg);
	return -1;
}

static int check_fields(struct ctx *x, json_t *obj, const char *where,
	const char *const allowed[])
{
	const char *name;
	json_t *v;

	json_object_foreach(obj, name, v) {
		size_t i;

		for (i = 0; allowed[i] != NULL && strcmp(allowed[i], name) != 0; i++)
			;
		if (allowed[i] == NULL)
			return fail(x, where, name, "unknown field");
	}
	return 0;
}

/* A string field: *out is a copy, or stays NULL when the field is absent and not required. */
static int get_str(struct ctx *x, json_t *obj, const char *where, const char *name, int required,
	char **out)
{
	json_t *v = json_object_get(obj, name);

	if (v == NULL)
		return required ? fail(x, where, name, "missing") : 0;
	if (!json_is_string(v) || json_string_length(v) == 0 ||
	    strlen(json_string_value(v)) != json_string_length(v))
		return fail(x, where, name, "must be a non-empty string");
	if ((*out = strdup(json_string_value(v))) == NULL)
		return fail(x, where, name, "out of memory");
	return 0;
}

/* An integer field in [min, max]; *out keeps its default when the field is absent. */
static int get_uint(struct ctx *x, json_t *obj, const char *where, const char *name,
	unsigned min, unsigned max, unsigned *out)
{
	json_t *v = json_object_get(obj, name);

	if (v == NULL)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < (json_int_t)min ||
	    json_integer_value(v) > (json_int_t)max)
		return fail(x, where, name, "must be an integer from %u to %u", min, max);
	*out = (unsigned)json_integer_value(v);
	return 0;
}

static int get_bool(struct ctx *x, json_t *obj, const char *where, const char *name, int *out)
{
	json_t *v = json_object_get(obj, name);

	if (v == NULL)
		return 0;
	if (!json_is_boolean(v))
		return fail(x, where, name, "must be true or false");
	*out = json_is_true(v);
	return 0;
}

/* "0660": three or four octal digits, permission bits only. */
static int get_mode(struct ctx *x, json_t *obj, mode_t *out)
{
	char *s = NULL, *end;
	unsigned long m;
	int r = -1;

	if (get_str(x, obj, "", "socket_mode", 0, &s) != 0)
		goto out;
	r = 0;
	if (s == NULL)
		goto out;
	m = strtoul(s, &end, 8);
	if (*end != '\0' || strlen(s) < 3 || strlen(s) > 4 || s[0] == '-' || s[0] == '+' ||
	    m > 0777) {
		r = fail(x, "", "socket_mode", "must be an octal string such as \"0660\"");
		goto out;
	}
	*out = (mode_t)m;
out:
	free(s);
	return r;
}

static int name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > PROTO_NAME_MAX)
		return 0;
	return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") == n;
}

static int get_limits(struct ctx *x, json_t *root, struct config_limits *l)
{
	static const char *const fields[] = { "max_connections", "max_connections_per_uid",
		"max_inflight_per_connection",
		"max_inflight", "max_frame_bytes", "idle_timeout_ms", "frame_timeout_ms",
		"request_timeout_ms", "shutdown_timeout_ms", "worker_timeout_ms", NULL };
	json_t *o = json_object_get(root, "limits");
	const unsigned day = 86400000;

	if (o == NULL)
		return 0;
	if (!json_is_object(o))
		return fail(x, "", "limits", "must be an object");
	if (check_fields(x, o, "limits", fields) != 0 ||
	    get_uint(x, o, "limits", "max_connections", 1, 1000000, &l->max_connections) != 0 ||
	    get_uint(x, o, "limits", "max_connections_per_uid", 1, 1000000,
	    &l->max_connections_per_uid) != 0 ||
	    get_uint(x, o, "limits", "max_inflight_per_connection", 1, 1000000,
		&l->max_inflight_per_connection) != 0 ||
	    get_uint(x, o, "limits", "max_inflight", 1, 1000000, &l->max_inflight) != 0 ||
	    get_uint(x, o, "limits", "max_frame_bytes", 1024, PROTO_FRAME_MAX,
		&l->max_frame_bytes) != 0 ||
	    get_uint(x, o, "limits", "idle_timeout_ms", 1, day, &l->idle_timeout_ms) != 0 ||
	    get_uint(x, o, "limits", "frame_timeout_ms", 1, day, &l->frame_timeout_ms) != 0 ||
	    get_uint(x, o, "limits", "request_timeout_ms", 1, day, &l->request_timeout_ms) != 0 ||
	    get_uint(x, o, "limits", "shutdown_timeout_ms", 1, day, &l->shutdown_timeout_ms) != 0 ||
	    get_uint(x, o, "limits", "worker_timeout_ms", WORKER_TIMEOUT_MIN_MS, day,
	    &l->worker_timeout_ms) != 0)
		return -1;
	return 0;
}

/* A user or group: a name looked up now, or a numeric id taken as it is. */
static int resolve_id(struct ctx *x, const char *where, const char *field, json_t *v,
	int group, uint32_t *id)
{
	char buf[4096];
	struct passwd pw, *pwp = NULL;
	struct group gr, *grp = NULL;
	int e;

	if (json_is_integer(v) && json_integer_value(v) >= 0 &&
	    json_integer_value(v) < (json_int_t)UINT32_MAX) {
		*id = (uint32_t)json_integer_value(v);
		return 0;
	}
	if (!json_is_string(v) || json_string_length(v) == 0)
		return fail(x, where, field, "entries must be names or numeric ids");
	e = group ? getgrnam_r(json_string_value(v), &gr, buf, sizeof(buf), &grp) :
	    getpwnam_r(json_string_value(v), &pw, buf, sizeof(buf), &pwp);
	if (group ? grp == NULL : pwp == NULL)
		return fail(x, where, field, "%s \"%s\": %s", group ? "group" : "user",
		    json_string_value(v), e ? strerror(e) : "no such name");
	*id = group ? (uint32_t)gr.gr_gid : (uint32_t)pw.pw_uid;
	return 0;
}

static int get_ids(struct ctx *x, json_t *o, const char *where, const char *field, int group,
	uint32_t *ids, uint8_t *n)
{
	json_t *a = json_object_get(o, field), *v;
	size_t i;

	if (a == NULL)
		return 0;
	if (!json_is_array(a) || json_array_size(a) > POLICY_IDS_MAX)
		return fail(x, where, field, "must be an array of at most %d names or ids",
		    POLICY_IDS_MAX);
	json_array_foreach(a, i, v) {
		if (resolve_id(x, where, field, v, group, &ids[i]) != 0)
			return -1;
	}
	*n = (uint8_t)json_array_size(a);
	return 0;
}

/* "allow": {"users": [...], "groups": [...]} */
static int get_allow(struct ctx *x, json_t *o, const char *key, struct policy_acl *acl)
{
	static const char *const fields[] = { "users", "groups", NULL };
	json_t *a = json_object_get(o, "allow");
	char where[48];

	if (a == NULL)
		return 0;
	snprintf(where, sizeof(where), "%s.allow", key);
	if (!json_is_object(a))
		return fail(x, key, "allow", "must be an object with \"users\" and \"groups\"");
	acl->set = 1;
	if (check_fields(x, a, where, fields) != 0 ||
	    get_ids(x, a, where, "users", 0, acl->users, &acl->nusers) != 0 ||
	    get_ids(x, a, where, "groups", 1, acl->groups, &acl->ngroups) != 0)
		return -1;
	return 0;
}

static int get_purpose(struct ctx *x, json_t *o, const char *where, enum policy_purpose *out)
{
	static const enum policy_purpose all[] = { POLICY_PURPOSE_ANY, POLICY_PURPOSE_TLS_SERVER,
		POLICY_PURPOSE_TLS_CLIENT, POLICY_PURPOSE_AUDIT };
	char *s = NULL;
	int r = 0;

	if (get_str(x, o, where, "purpose", 0, &s) != 0)
		return -1;
	if (s == NULL)
		return 0;
	r = fail(x, where, "purpose",
	    "must be \"any\", \"tls-server\", \"tls-client\" or \"audit\"");
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		if (strcmp(s, policy_purpose_name(all[i])) == 0) {
			*out = all[i];
			r = 0;
		}
	}
	free(s);
	return r;
}

static int get_key(struct ctx *x, json_t *o, size_t i, struct config_key *k)
{
	static const char *const fields[] = { "name", "file", "certificate", "nonce",
		"verify_after_sign", "purpose", "allow", "max_signatures_per_second", NULL };
	char where[32];
	char *nonce = NULL;
	int r = -1;

	snprintf(where, sizeof(where), "keys[%zu]", i);
	k->nonce = P256_NONCE_HEDGED;
	k->verify_after_sign = 1;
	if (!json_is_object(o)) {
		r = fail(x, "", where, "must be an object");
		goto out;
	}
	if (check_fields(x, o, where, fields) != 0 ||
	    get_str(x, o, where, "name", 1, &k->name) != 0 ||
	    get_str(x, o, where, "file", 1, &k->file) != 0 ||
	    get_str(x, o, where, "certificate", 0, &k->certificate) != 0 ||
	    get_str(x, o, where, "nonce", 0, &nonce) != 0 ||
	    get_bool(x, o, where, "verify_after_sign", &k->verify_after_sign) != 0 ||
	    get_purpose(x, o, where, &k->purpose) != 0 || get_allow(x, o, where, &k->allow) != 0 ||
	    get_uint(x, o, where, "max_signatures_per_second", 1, CONFIG_RATE_MAX,
	    &k->max_signatures_per_second) != 0)
		goto out;
	if (!name_ok(k->name)) {
		r = fail(x, where, "name", "must be 1 to %d of A-Z a-z 0-9 . _ -", PROTO_NAME_MAX);
		goto out;
	}
	r = nonce == NULL ? 0 : fail(x, where, "nonce",
	    "must be \"hedged\", \"deterministic\" or \"precomputed\"");
	for (size_t j = 0; nonce != NULL && j < sizeof(nonces) / sizeof(nonces[0]); j++) {
		if (strcmp(nonce, nonces[j].name) == 0) {
			k->nonce = nonces[j].nonce;
			r = 0;
		}
	}
out:
	free(nonce);
	return r;
}

static int get_keys(struct ctx *x, json_t *root, struct config *cfg)
{
	json_t *a = json_object_get(root, "keys");
	size_t i, j;

	if (a == NULL)
		return fail(x, "", "keys", "missing");
	if (!json_is_array(a) || json_array_size(a) == 0 || json_array_size(a) > CONFIG_KEYS_MAX)
		return fail(x, "", "keys", "must be an array of 1 to %d keys", CONFIG_KEYS_MAX);
	if ((cfg->keys = calloc(json_array_size(a), sizeof(*cfg->keys))) == NULL)
		return fail(x, "", "keys", "out of memory");
	for (i = 0; i < json_array_size(a); i++) {
		cfg->nkeys = i + 1;
		if (get_key(x, json_array_get(a, i), i, &cfg->keys[i]) != 0)
			return -1;
		for (j = 0; j < i; j++) {
			if (strcmp(cfg->keys[j].name, cfg->keys[i].name) == 0) {
				char where[32];

				snprintf(where, sizeof(where), "keys[%zu]", i);
				return fail(x, where, "name", "\"%s\" is already used by keys[%zu]",
				    cfg->keys[i].name, j);
			}
		}
	}
	return 0;
}

/* The "audit" section: "file" needs "key", and "key" names a configured key of purpose audit. */
static int get_audit(struct ctx *x, json_t *root, struct config *cfg)
{
	static const char *const fields[] = { "journal", "file", "key", "checkpoint_every",
		"fail_closed", NULL };
	struct config_audit *a = &cfg->audit;
	json_t *o = json_object_get(root, "audit");
	size_t i;

	if (o == NULL)
		return 0;
	if (!json_is_object(o))
		return fail(x, "", "audit", "must be an object");
	a->configured = 1;
	if (check_fields(x, o, "audit", fields) != 0 ||
	    get_bool(x, o, "audit", "journal", &a->journal) != 0 ||
	    get_str(x, o, "audit", "file", 0, &a->file) != 0 ||
	    get_str(x, o, "audit", "key", 0, &a->key) != 0 ||
	    get_uint(x, o, "audit", "checkpoint_every", 1, 1000000000, &a->checkpoint_every) != 0 ||
	    get_bool(x, o, "audit", "fail_closed", &a->fail_closed) != 0)
		return -1;
	if (a->file != NULL && a->file[0] != '/')
		return fail(x, "audit", "file", "must be an absolute path");
	if (a->file != NULL && a->key == NULL)
		return fail(x, "audit", "key", "missing: an audit file is sealed by an audit key");
	if (!a->journal && a->file == NULL)
		return fail(x, "audit", "file", "missing: with \"journal\" false, records need a file");
	if (a->key == NULL)
		return 0;
	for (i = 0; i < cfg->nkeys && strcmp(cfg->keys[i].name, a->key) != 0; i++)
		;
	if (i == cfg->nkeys)
		return fail(x, "audit", "key", "no key is named \"%s\"", a->key);
	if (cfg->keys[i].purpose != POLICY_PURPOSE_AUDIT)
		return fail(x, "audit", "key", "keys[%zu] (%s) must have \"purpose\": \"audit\"", i,
		    a->key);
	return 0;
}

static void set_defaults(struct config *cfg)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	cfg->socket_mode = 0660;
	cfg->busy_poll_us = BUSY_POLL_DEFAULT_US;
	cfg->workers = cpus < 1 ? 1 : cpus > WORKERS_MAX ? WORKERS_MAX : (unsigned)cpus;
	cfg->limits = (struct config_limits){
		.max_connections = 1024,
		.max_inflight_per_connection = 256,
		.max_inflight = 8192,
		.max_frame_bytes = PROTO_FRAME_MAX,
		.idle_timeout_ms = 60000,
		.frame_timeout_ms = 5000,
		/* Nested: a hung signer is replaced before a request times out, and a request times
		 * out in the daemon before the client library's own 5 s deadline gives up on it. */
		.worker_timeout_ms = 0,		/* unset: derived in config_load */
		.request_timeout_ms = 4000,
		.shutdown_timeout_ms = 10000,
	};
	cfg->audit = (struct config_audit){ .journal = 1, .checkpoint_every = 1000,
		.fail_closed = 1 };
}

/*
 * Opens the configuration, refused when group or others may write it: it names the key files,
 * so whoever may write it chooses the keys. Checked on the open file, the one a symbolic link
 * leads to. The descriptor, or -1 with err set.
 */
static int open_config(const char *path, char *err, size_t errlen)
{
	struct stat st;
	int fd, r = -1;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) < 0 || fstat(fd, &st) != 0) {
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		goto out;
	}
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
		snprintf(err, errlen, "%s: group or others may write the configuration "
		    "(fix: chmod go-w %s)", path, path);
		goto out;
	}
	r = 0;
out:
	if (r != 0 && fd >= 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* The file as a JSON object, or NULL with err set (jansson's position for a syntax error). */
static json_t *read_json(const char *path, char *err, size_t errlen)
{
	json_error_t je;
	json_t *root = NULL;
	int fd;

	if ((fd = open_config(path, err, errlen)) < 0)
		return NULL;
	if ((root = json_loadfd(fd, JSON_REJECT_DUPLICATES, &je)) == NULL) {
		if (je.line > 0)
			snprintf(err, errlen, "%s:%d:%d: %s", path, je.line, je.column, je.text);
		else
			snprintf(err, errlen, "%s: %s", path, je.text);
	} else if (!json_is_object(root)) {
		snprintf(err, errlen, "%s: the top level must be an object", path);
		json_decref(root);
		root = NULL;
	}
	close(fd);
	return root;
}

static int get_fields(struct ctx *x, json_t *root, struct config *cfg)
{
	static const char *const fields[] = { "socket", "socket_mode", "socket_group", "user",
		"signer_user", "workers", "busy_poll_us", "limits", "keys", "audit", NULL };

	if (check_fields(x, root, "", fields) != 0 ||
	    get_str(x, root, "", "socket", 0, &cfg->socket) != 0 ||
	    get_mode(x, root, &cfg->socket_mode) != 0 ||
	    get_str(x, root, "", "socket_group", 0, &cfg->socket_group) != 0 ||
	    get_str(x, root, "", "user", 0, &cfg->user) != 0 ||
	    get_str(x, root, "", "signer_user", 0, &cfg->signer_user) != 0 ||
	    get_uint(x, root, "", "workers", 1, WORKERS_MAX, &cfg->workers) != 0 ||
	    get_uint(x, root, "", "busy_poll_us", 0, BUSY_POLL_MAX_US, &cfg->busy_poll_us) != 0 ||
	    get_limits(x, root, &cfg->limits) != 0 || get_keys(x, root, cfg) != 0 ||
	    get_audit(x, root, cfg) != 0)
		return -1;
	return 0;
}

/* The defaults that depend on other fields, and the rules between fields. */
static int derive(struct ctx *x, struct config *cfg)
{
	struct config_limits *l = &cfg->limits;

	if (cfg->socket == NULL && (cfg->socket = strdup(CONFIG_SOCKET_DEFAULT)) == NULL)
		return fail(x, "", "socket", "out of memory");
	if (cfg->signer_user == NULL && cfg->user != NULL &&
	    (cfg->signer_user = strdup(cfg->user)) == NULL)
		return fail(x, "", "signer_user", "out of memory");
	/* Unset: a quarter of max_connections, so that one peer cannot lock the others out. */
	if (l->max_connections_per_uid == 0)
		l->max_connections_per_uid = l->max_connections / 4 ? l->max_connections / 4 : 1;
	if (l->worker_timeout_ms == 0) {
		unsigned half = l->request_timeout_ms / 2;

		l->worker_timeout_ms = half > WORKER_TIMEOUT_DEFAULT_MS ? WORKER_TIMEOUT_DEFAULT_MS :
		    half < WORKER_TIMEOUT_MIN_MS ? WORKER_TIMEOUT_MIN_MS : half;
	}
	if (l->max_inflight_per_connection > l->max_inflight)
		return fail(x, "limits", "max_inflight_per_connection",
		    "must not exceed max_inflight");
	return 0;
}

/*
 * Root's LIST_KEYS answer for this key set, the largest any peer gets, must fit in one frame
 * (docs/protocol.md section 6): encoded as the daemon would answer it, with every key's "allow",
 * both counters at the largest value they can show and, for a key with a certificate, the
 * longest certificate_not_after. A key id, a point and a certificate's SHA-256 have one length
 * whatever the key, so zeros stand in for them: the keys need not be read for this.
 */
static int check_listing(struct ctx *x, const struct config *cfg)
{
	static const uint8_t point[P256_POINT_LEN];
	static const char zeros_hex[2 * P256_KEY_ID_LEN + 1] =
	    "0000000000000000000000000000000000000000000000000000000000000000";
	struct list_keys_entry *e = calloc(cfg->nkeys, sizeof(*e));
	size_t len;
	int fit;

	if (e == NULL)
		return fail(x, "", "keys", "out of memory");
	for (size_t i = 0; i < cfg->nkeys; i++) {
		const struct config_key *k = &cfg->keys[i];

		e[i] = (struct list_keys_entry){ .name = k->name, .id_hex = zeros_hex, .point = point,
			.nonce = config_nonce_name(k->nonce),
			.verify_after_sign = k->verify_after_sign, .purpose = k->purpose,
			.signatures = INT64_MAX, .precomputed_signatures = INT64_MAX,
			.has_certificate = k->certificate != NULL,
			.certificate_not_after = INT64_MIN, .certificate_sha256 = zeros_hex,
			.allow = &k->allow };
	}
	fit = list_keys_fit(e, cfg->nkeys, &len);
	free(e);
	if (fit < 0)
		return fail(x, "", "keys", "out of memory");
	if (fit > 0)
		return fail(x, "", "keys", "LIST_KEYS would not fit in one frame: %zu bytes of JSON, "
		    "at most %d (fewer keys, shorter names or shorter \"allow\" lists)", len,
		    PROTO_FRAME_MAX - PROTO_HEADER_LEN);
	return 0;
}

int config_load(const char *path, struct config *cfg, char *err, size_t errlen)
{
	struct ctx x = { .path = path, .err = err, .errlen = errlen };
	json_t *root = NULL;
	int r = -1;

	memset(cfg, 0, sizeof(*cfg));
	set_defaults(cfg);
	if ((cfg->path = strdup(path)) == NULL) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto out;
	}
	if ((root = read_json(path, err, errlen)) == NULL || get_fields(&x, root, cfg) != 0 ||
	    derive(&x, cfg) != 0 || check_listing(&x, cfg) != 0)
		goto out;
	r = 0;
out:
	json_decref(root);
	return r;
}

void config_free(struct config *cfg)
{
	for (size_t i = 0; i < cfg->nkeys; i++) {
		free(cfg->keys[i].name);
		free(cfg->keys[i].file);
		free(cfg->keys[i].certificate);
	}
	free(cfg->keys);
	free(cfg->path);
	free(cfg->socket);
	free(cfg->socket_group);
	free(cfg->user);
	free(cfg->signer_user);
	free(cfg->audit.file);
	free(cfg->audit.key);
	memset(cfg, 0, sizeof(*cfg));
}
