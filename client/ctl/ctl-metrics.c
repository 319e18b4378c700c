/* SPDX-License-Identifier: ISC */
/*
 * p256signctl metrics: STATUS and LIST_KEYS in the Prometheus text exposition format (version
 * 0.0.4), on stdout or written atomically to a file for node_exporter's textfile collector.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctl.h"

/* A STATUS integer shown as one sample without labels. */
struct scalar {
	const char *member;
	const char *name;
	const char *type;
	const char *help;
};

static const struct scalar status_scalars[] = {
	{ "uptime_s", "p256sign_uptime_seconds", "gauge", "Seconds since the daemon started." },
	{ "workers", "p256sign_signers", "gauge", "Signer processes configured." },
	{ "workers_alive", "p256sign_signers_alive", "gauge",
	  "Signers running now and taking requests." },
	{ "workers_replaced", "p256sign_signers_replaced_total", "counter",
	  "Signers started in the place of one that died or hung." },
	{ "workers_hung", "p256sign_signers_hung_total", "counter",
	  "Signers killed for not answering within worker_timeout_ms." },
	{ "requests_resent", "p256sign_requests_resent_total", "counter",
	  "Requests sent again to another signer after theirs died." },
	{ "key_set", "p256sign_key_set_generation", "gauge",
	  "The key set in use: 1 at start, one more per reload." },
	{ "requests", "p256sign_replies_total", "counter",
	  "Requests answered, errors and connections refused at accept included." },
	{ "signatures", "p256sign_signatures_total", "counter", "Signatures released." },
	{ "precomputed_signatures", "p256sign_precomputed_signatures_total", "counter",
	  "Signatures released that were made with a precomputed nonce." },
	{ "inflight", "p256sign_inflight_requests", "gauge",
	  "Signing requests received and not yet answered." },
	{ "at_workers", "p256sign_at_signers_requests", "gauge",
	  "Signing requests handed to a signer that has not answered yet." },
	{ "connections", "p256sign_connections_open", "gauge", "Client connections open now." },
	{ "connections_total", "p256sign_connections_accepted_total", "counter",
	  "Client connections accepted." },
	{ "log_lines_dropped", "p256sign_log_lines_dropped_total", "counter",
	  "Log lines dropped because stderr's reader did not keep up." },
};

static const struct scalar audit_scalars[] = {
	{ "seq", "p256sign_audit_seq", "gauge", "Sequence number of the last audit record written." },
	{ "records", "p256sign_audit_records_total", "counter", "Audit records written." },
	{ "lost", "p256sign_audit_lost_total", "counter",
	  "Audit records that could not be written." },
	{ "checkpoints", "p256sign_audit_checkpoints_total", "counter",
	  "Audit checkpoints written." },
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static void family(FILE *out, const char *name, const char *type, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A label value as the format wants it, backslash and double quote escaped. The daemon's
 * strings are not trusted: a control character (a newline, which would end the sample, or a
 * terminal escape for an operator reading the output) is shown as "?". */
static void label_value(FILE *out, const char *s)
{
	for (; s != NULL && *s != '\0'; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(out, "\\%c", *s);
		else
			fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, out);
	}
}

/* name{label="value"} N, or name N without a label. */
static void sample(FILE *out, const char *name, const char *label, const char *value,
	long long n)
{
	fputs(name, out);
	if (label != NULL) {
		fprintf(out, "{%s=\"", label);
		label_value(out, value);
		fputs("\"}", out);
	}
	fprintf(out, " %lld\n", n);
}

static long long int_member(const json_t *obj, const char *name)
{
	return (long long)json_integer_value(json_object_get(obj, name));
}

/* Microseconds as seconds, exactly: 250 is 0.00025. */
static void seconds(FILE *out, long long us)
{
	char frac[8];
	int n;

	if (us < 0)
		us = 0;
	fprintf(out, "%lld", us / 1000000);
	if (us % 1000000 == 0)
		return;
	n = snprintf(frac, sizeof(frac), "%06lld", us % 1000000);
	while (n > 0 && frac[n - 1] == '0')
		frac[--n] = '\0';
	fprintf(out, ".%s", frac);
}

static void scalars(FILE *out, const json_t *obj, const struct scalar *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!json_is_integer(json_object_get(obj, s[i].member)))
			continue;	/* an older daemon: nothing rather than a false 0 */
		family(out, s[i].name, s[i].type, s[i].help);
		sample(out, s[i].name, NULL, NULL, int_member(obj, s[i].member));
	}
}

static void errors(FILE *out, const json_t *st)
{
	const char *tag;
	json_t *count;

	family(out, "p256sign_errors_total", "counter", "Error responses sent, by tag.");
	json_object_foreach((json_t *)json_object_get(st, "errors"), tag, count)
		sample(out, "p256sign_errors_total", "tag", tag, (long long)json_integer_value(count));
}

static void audit(FILE *out, const json_t *st)
{
	const json_t *a = json_object_get(st, "audit");
	const char *state = json_string_value(json_object_get(a, "state"));

	family(out, "p256sign_audit_configured", "gauge", "Whether the daemon keeps an audit log.");
	sample(out, "p256sign_audit_configured", NULL, NULL, json_is_object(a));
	if (!json_is_object(a))
		return;
	family(out, "p256sign_audit_ok", "gauge",
	    "1 while audit records are written, 0 while the audit log is failing.");
	sample(out, "p256sign_audit_ok", NULL, NULL,
	    state != NULL && strcmp(state, "ok") == 0);
	scalars(out, a, audit_scalars, NELEM(audit_scalars));
}

/* Answers per op by result, from the latency histograms' counts. */
static void requests(FILE *out, const json_t *ops)
{
	const char *op;
	json_t *o, *b;
	size_t i;

	family(out, "p256sign_requests_total", "counter", "Answers by request op and result.");
	json_object_foreach((json_t *)ops, op, o) {
		long long all = 0, errs = int_member(o, "errors");

		json_array_foreach(json_object_get(o, "buckets"), i, b)
			all += (long long)json_integer_value(b);
		fprintf(out, "p256sign_requests_total{op=\"");
		label_value(out, op);
		fprintf(out, "\",result=\"ok\"} %lld\np256sign_requests_total{op=\"", all - errs);
		label_value(out, op);
		fprintf(out, "\",result=\"error\"} %lld\n", errs);
	}
}

static void histogram(FILE *out, const char *op, const json_t *o, const json_t *bounds)
{
	const json_t *buckets = json_object_get(o, "buckets");
	long long cumulative = 0;
	size_t i;

	for (i = 0; i < json_array_size(buckets); i++) {
		cumulative += (long long)json_integer_value(json_array_get(buckets, i));
		fputs("p256sign_request_duration_seconds_bucket{op=\"", out);
		label_value(out, op);
		fputs("\",le=\"", out);
		if (i < json_array_size(bounds))
			seconds(out, (long long)json_integer_value(json_array_get(bounds, i)));
		else
			fputs("+Inf", out);
		fprintf(out, "\"} %lld\n", cumulative);
	}
	fputs("p256sign_request_duration_seconds_sum{op=\"", out);
	label_value(out, op);
	fputs("\"} ", out);
	seconds(out, int_member(o, "sum_us"));
	fputs("\np256sign_request_duration_seconds_count{op=\"", out);
	label_value(out, op);
	fprintf(out, "\"} %lld\n", cumulative);
}

static void latency(FILE *out, const json_t *st)
{
	const json_t *lat = json_object_get(st, "latency"), *bounds = json_object_get(lat, "bounds_us");
	const json_t *ops = json_object_get(lat, "ops");
	const char *op;
	json_t *o;

	/* Only a histogram with one bucket more than bounds is one. */
	json_object_foreach((json_t *)ops, op, o)
		if (json_array_size(json_object_get(o, "buckets")) != json_array_size(bounds) + 1)
			return;
	if (json_object_size(ops) == 0)
		return;
	requests(out, ops);
	family(out, "p256sign_request_duration_seconds", "histogram",
	    "Time from a request's frame read to its answer handed out, by op.");
	json_object_foreach((json_t *)ops, op, o)
		histogram(out, op, o, bounds);
}

/* name{key="NAME"} N for each key of LIST_KEYS that has the integer member. */
static void per_key(FILE *out, const json_t *keys, const char *member, const char *name,
	const char *type, const char *help)
{
	size_t i;
	json_t *k;
	int any = 0;

	json_array_foreach(keys, i, k) {
		if (!json_is_integer(json_object_get(k, member)))
			continue;
		if (!any++)
			family(out, name, type, help);
		sample(out, name, "key", json_string_value(json_object_get(k, "name")),
		    int_member(k, member));
	}
}

static void keys(FILE *out, const json_t *list)
{
	const json_t *keys = json_object_get(list, "keys");
	size_t i;
	json_t *k;

	family(out, "p256sign_key_info", "gauge", "The keys served: id, nonce mode and purpose.");
	json_array_foreach(keys, i, k) {
		fputs("p256sign_key_info{key=\"", out);
		label_value(out, json_string_value(json_object_get(k, "name")));
		fputs("\",key_id=\"", out);
		label_value(out, json_string_value(json_object_get(k, "key_id")));
		fputs("\",nonce=\"", out);
		label_value(out, json_string_value(json_object_get(k, "nonce")));
		fputs("\",purpose=\"", out);
		label_value(out, json_string_value(json_object_get(k, "purpose")));
		fputs("\"} 1\n", out);
	}
	per_key(out, keys, "signatures", "p256sign_key_signatures_total", "counter",
	    "Signatures released with the key, since the key set was loaded.");
	per_key(out, keys, "precomputed_signatures", "p256sign_key_precomputed_signatures_total",
	    "counter", "Of those, signatures made with a precomputed nonce.");
	per_key(out, keys, "certificate_not_after", "p256sign_key_certificate_not_after_seconds",
	    "gauge", "When the key's certificate expires, as a Unix time.");
}

static void exposition(FILE *out, const json_t *st, const json_t *list)
{
	family(out, "p256sign_up", "gauge", "Whether the daemon answered STATUS and LIST_KEYS.");
	sample(out, "p256sign_up", NULL, NULL, st != NULL);
	family(out, "p256sign_build_info", "gauge", "The daemon's and p256signctl's releases.");
	fputs("p256sign_build_info{version=\"", out);
	label_value(out, json_string_value(json_object_get(st, "version")));
	fputs("\",ctl_version=\"" P256SIGN_VERSION "\"} 1\n", out);
	if (st == NULL)
		return;
	scalars(out, st, status_scalars, NELEM(status_scalars));
	family(out, "p256sign_stopping", "gauge", "1 once the daemon is stopping.");
	sample(out, "p256sign_stopping", NULL, NULL, json_is_true(json_object_get(st, "stopping")));
	errors(out, st);
	audit(out, st);
	latency(out, st);
	keys(out, list);
}

/* Fetches STATUS and LIST_KEYS over one connection. 0, or an exit status after the error. */
static int fetch(const struct ctl_options *o, json_t **st, json_t **list)
{
	struct p256sign *h;
	char *text[2] = { NULL, NULL };
	json_error_t jerr;
	int r;

	if ((h = ctl_connect(o, "metrics")) == NULL)
		return CTL_EXIT_REFUSED;
	if ((r = p256sign_status(h, &text[0])) == 0)
		r = p256sign_list_keys(h, &text[1]);
	p256sign_close(h);
	if (r != 0) {
		r = ctl_lib_error("metrics", r);
		goto out;
	}
	*st = json_loads(text[0], 0, &jerr);
	*list = json_loads(text[1], 0, &jerr);
	if (!json_is_object(*st) || !json_is_object(*list) ||
	    !json_is_array(json_object_get(*list, "keys"))) {
		r = ctl_error("metrics", "the daemon's answer is not STATUS and LIST_KEYS as JSON");
		json_decref(*st);
		json_decref(*list);
		*st = *list = NULL;
		goto out;
	}
	r = CTL_EXIT_OK;
out:
	free(text[0]);
	free(text[1]);
	return r;
}

/*
 * The whole text to path, atomically: a temporary file beside it, flushed to disk, then renamed
 * over it, so that node_exporter never reads half a scrape. 0, or -1 with errno set.
 */
static int write_atomic(const char *path, const char *text, size_t len)
{
	char *tmp = NULL;
	ssize_t k;
	int fd = -1, r = -1, created = 0, saved;

	if (asprintf(&tmp, "%s.tmp.XXXXXX", path) < 0) {
		tmp = NULL;
		errno = ENOMEM;
		goto out;
	}
	if ((fd = mkostemp(tmp, O_CLOEXEC)) < 0)
		goto out;
	created = 1;
	/* Readable by node_exporter, which runs as its own user. */
	if (fchmod(fd, 0644) != 0)
		goto out;
	if ((k = write(fd, text, len)) != (ssize_t)len) {
		if (k >= 0)
			errno = ENOSPC;	/* a short write to a regular file: the disk is full */
		goto out;
	}
	if (fsync(fd) != 0)
		goto out;
	r = close(fd);
	fd = -1;
	if (r == 0)
		r = rename(tmp, path);
out:
	saved = errno;
	if (fd >= 0)
		close(fd);
	if (r != 0 && created)
		unlink(tmp);
	free(tmp);
	errno = saved;
	return r;
}

int ctl_metrics(const struct ctl_options *o, int argc, char **argv)
{
	const char *output = NULL;
	json_t *st = NULL, *list = NULL;
	char *text = NULL;
	size_t len = 0;
	FILE *mem;
	int r;

	if (argc == 3 && strcmp(argv[1], "--output") == 0)
		output = argv[2];
	else if (argc != 1)
		return ctl_usage("metrics");
	/* Unreachable, the daemon still gets its p256sign_up 0, so that the outage is a series. */
	r = fetch(o, &st, &list);
	if ((mem = open_memstream(&text, &len)) == NULL) {
		r = ctl_error("metrics", "out of memory");
		goto out;
	}
	exposition(mem, st, list);
	if (fclose(mem) != 0) {
		r = ctl_error("metrics", "out of memory");
		goto out;
	}
	if (output == NULL)
		fwrite(text, 1, len, stdout);	/* checked by main */
	else if (write_atomic(output, text, len) != 0)
		r = ctl_error("metrics", "cannot write %s: %s", output, strerror(errno));
out:
	free(text);
	json_decref(st);
	json_decref(list);
	return r;
}
