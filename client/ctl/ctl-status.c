/* SPDX-License-Identifier: ISC */
/* p256signctl status, keys and ping: what the daemon reports, as tables or as its JSON. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctl.h"

/* Fetches one of the daemon's JSON objects (LIST_KEYS or STATUS) and parses it. */
static int fetch_json(const struct ctl_options *o, const char *cmd,
	int (*call)(struct p256sign *, char **), char **text, json_t **obj)
{
	struct p256sign *h;
	json_error_t jerr;
	int r;

	*text = NULL;
	*obj = NULL;
	if ((h = ctl_connect(o, cmd)) == NULL)
		return CTL_EXIT_REFUSED;
	r = call(h, text);
	p256sign_close(h);
	if (r != 0)
		return ctl_lib_error(cmd, r);
	if ((*obj = json_loads(*text, 0, &jerr)) == NULL || !json_is_object(*obj))
		return ctl_error(cmd, "the daemon's answer is not a JSON object: %s", jerr.text);
	return CTL_EXIT_OK;
}

/*
 * The daemon's text as the tables show it: "?" unless it is there and all printable ASCII, so that
 * a broken or hostile daemon cannot send escape sequences to the operator's terminal.
 */
static const char *shown(const char *s)
{
	if (s == NULL)
		return "?";
	for (const char *p = s; *p != '\0'; p++)
		if (*p < 0x20 || *p > 0x7e)
			return "?";
	return s;
}

/* A string member as shown(). */
static const char *str_member(const json_t *obj, const char *name)
{
	return shown(json_string_value(json_object_get(obj, name)));
}

static json_int_t int_member(const json_t *obj, const char *name)
{
	return json_integer_value(json_object_get(obj, name));
}

static void print_uptime(json_int_t s)
{
	printf("%-14s %lldd %02lldh %02lldm %02llds (%lld s)\n", "uptime", s / 86400, s / 3600 % 24,
		s / 60 % 60, s % 60, (long long)s);
}

static void print_status(const json_t *st)
{
	const json_t *errors = json_object_get(st, "errors");
	const char *tag;
	json_t *count;
	int any = 0;

	printf("%-14s %s\n", "version", str_member(st, "version"));
	print_uptime(int_member(st, "uptime_s"));
	printf("%-14s %lld (%lld alive, %lld replaced, %lld of them hung)\n", "signers",
		(long long)int_member(st, "workers"), (long long)int_member(st, "workers_alive"),
		(long long)int_member(st, "workers_replaced"),
		(long long)int_member(st, "workers_hung"));
	printf("%-14s %lld\n", "resent", (long long)int_member(st, "requests_resent"));
	printf("%-14s %lld\n", "key set", (long long)int_member(st, "key_set"));
	printf("%-14s %lld\n", "requests", (long long)int_member(st, "requests"));
	printf("%-14s %lld\n", "signatures", (long long)int_member(st, "signatures"));
	printf("%-14s %lld\n", "precomputed", (long long)int_member(st, "precomputed_signatures"));
	printf("%-14s %lld\n", "in flight", (long long)int_member(st, "inflight"));
	printf("%-14s %lld\n", "connections", (long long)int_member(st, "connections"));
	printf("%-14s", "errors");
	json_object_foreach((json_t *)errors, tag, count) {
		if (json_integer_value(count) == 0)
			continue;
		printf("%s %s %lld", any ? "," : "", shown(tag), (long long)json_integer_value(count));
		any = 1;
	}
	printf("%s\n", any ? "" : " none");
}

int ctl_status(const struct ctl_options *o, int argc, char **argv)
{
	char *text;
	json_t *st;
	int r;

	if (argc != 1)
		return ctl_usage("status");
	if ((r = fetch_json(o, "status", p256sign_status, &text, &st)) == CTL_EXIT_OK) {
		if (o->json)
			printf("%s\n", text);	/* the daemon's object as it came */
		else
			print_status(st);
	}
	json_decref(st);
	free(text);
	return r;
}

/* One list of ids as "uid=33,1000"; nothing when empty. Returns whether it printed. */
static int print_ids(const char *label, const json_t *ids, int after)
{
	size_t i;
	json_t *v;

	if (!json_is_array(ids) || json_array_size(ids) == 0)
		return 0;
	printf("%s%s=", after ? " " : "", label);
	json_array_foreach(ids, i, v)
		printf("%s%lld", i ? "," : "", (long long)json_integer_value(v));
	return 1;
}

/* Who may use a key, as the daemon tells root: "uid=.. gid=..", "root+daemon" for a key without
 * an allow list, "root" for an empty one; "-" when not told (a peer other than root). */
static void print_allowed(const json_t *key)
{
	const json_t *allow = json_object_get(key, "allow");
	int any;

	if (allow == NULL) {
		printf("-");
		return;
	}
	if (json_is_null(allow)) {
		printf("root+daemon");
		return;
	}
	any = print_ids("uid", json_object_get(allow, "users"), 0);
	any |= print_ids("gid", json_object_get(allow, "groups"), any);
	if (!any)
		printf("root");
}

static void print_keys(const json_t *list)
{
	const json_t *keys = json_object_get(list, "keys");
	size_t i;
	json_t *k;

	printf("%-20s %-64s %-13s %-6s %-10s %10s %11s %s\n", "NAME", "KEY ID", "NONCE", "VERIFY",
		"PURPOSE", "SIGNATURES", "PRECOMPUTED", "ALLOWED");
	json_array_foreach(keys, i, k) {
		printf("%-20s %-64s %-13s %-6s %-10s %10lld %11lld ",
			str_member(k, "name"),
			str_member(k, "key_id"),
			str_member(k, "nonce"),
			json_is_true(json_object_get(k, "verify_after_sign")) ? "yes" : "no",
			str_member(k, "purpose"),
			(long long)int_member(k, "signatures"),
			(long long)int_member(k, "precomputed_signatures"));
		print_allowed(k);
		putchar('\n');
	}
}

int ctl_keys(const struct ctl_options *o, int argc, char **argv)
{
	char *text;
	json_t *list;
	int r;

	if (argc != 1)
		return ctl_usage("keys");
	if ((r = fetch_json(o, "keys", p256sign_list_keys, &text, &list)) == CTL_EXIT_OK) {
		if (!json_is_array(json_object_get(list, "keys"))) {
			r = ctl_error("keys", "the daemon's answer has no \"keys\" array");
		} else if (o->json) {
			printf("%s\n", text);
		} else {
			print_keys(list);
		}
	}
	json_decref(list);
	free(text);
	return r;
}

int ctl_ping(const struct ctl_options *o, int argc, char **argv)
{
	struct timespec t0, t1;
	struct p256sign *h;
	double ms;
	int r;

	if (argc != 1)
		return ctl_usage("ping");
	if ((h = ctl_connect(o, "ping")) == NULL)
		return CTL_EXIT_REFUSED;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = p256sign_ping(h);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	p256sign_close(h);
	if (r != 0)
		return ctl_lib_error("ping", r);
	ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	if (o->json)
		printf("{\"ok\": true, \"rtt_ms\": %.3f}\n", ms);
	else
		printf("ok (%.3f ms)\n", ms);
	return CTL_EXIT_OK;
}
