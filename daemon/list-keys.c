/* SPDX-License-Identifier: ISC */
/* The LIST_KEYS answer and whether it fits in one frame (list-keys.h). */
#include "list-keys.h"

#include <stdlib.h>
#include <string.h>

#include "hex.h"
#include "p256.h"
#include "proto.h"

/* A key's "allow" as ids (names are resolved when the configuration is read): for root. */
static json_t *allow_json(const struct policy_acl *acl)
{
	json_t *users, *groups;

	if (!acl->set)
		return json_null();
	users = json_array();
	groups = json_array();
	for (size_t i = 0; users != NULL && i < acl->nusers; i++)
		json_array_append_new(users, json_integer(acl->users[i]));
	for (size_t i = 0; groups != NULL && i < acl->ngroups; i++)
		json_array_append_new(groups, json_integer(acl->groups[i]));
	return json_pack("{s:o*, s:o*}", "users", users, "groups", groups);
}

json_t *list_keys_entry_json(const struct list_keys_entry *e)
{
	char point[2 * P256_POINT_LEN + 1];
	json_t *k;

	hex_encode(e->point, P256_POINT_LEN, point);
	k = json_pack("{s:s, s:s, s:s, s:s, s:b, s:s, s:I, s:I}",
	    "name", e->name, "key_id", e->id_hex, "public_key", point,
	    "nonce", e->nonce,
	    "verify_after_sign", e->verify_after_sign,
	    "purpose", policy_purpose_name(e->purpose),
	    "signatures", (json_int_t)e->signatures,
	    "precomputed_signatures", (json_int_t)e->precomputed_signatures);
	if (k != NULL && e->has_certificate &&
	    (json_object_set_new(k, "certificate_not_after",
		json_integer((json_int_t)e->certificate_not_after)) != 0 ||
	     json_object_set_new(k, "certificate_sha256",
		json_string(e->certificate_sha256)) != 0)) {
		json_decref(k);
		return NULL;
	}
	if (k != NULL && e->allow != NULL &&
	    json_object_set_new(k, "allow", allow_json(e->allow)) != 0) {
		json_decref(k);
		return NULL;
	}
	return k;
}

json_t *list_keys_doc(json_t *keys)
{
	return keys == NULL ? NULL : json_pack("{s:o}", "keys", keys);
}

int list_keys_fit(const struct list_keys_entry *entries, size_t n, size_t *json_len)
{
	struct proto_response resp = { .h = { .version = PROTO_VERSION,
		.type = PROTO_LIST_KEYS | PROTO_RESPONSE } };
	json_t *keys = json_array(), *doc;
	uint8_t *frame = NULL;
	char *text = NULL;
	size_t len;
	int r = -1;

	*json_len = 0;
	for (size_t i = 0; keys != NULL && i < n; i++) {
		if (json_array_append_new(keys, list_keys_entry_json(&entries[i])) != 0) {
			json_decref(keys);
			keys = NULL;
		}
	}
	if ((doc = list_keys_doc(keys)) == NULL || (text = json_dumps(doc, JSON_COMPACT)) == NULL ||
	    (frame = malloc(PROTO_LEN_PREFIX + PROTO_FRAME_MAX)) == NULL)
		goto out;
	resp.json = text;
	resp.json_len = *json_len = strlen(text);
	r = proto_encode_response(&resp, frame, PROTO_LEN_PREFIX + PROTO_FRAME_MAX, &len) == 0 ?
	    0 : 1;
out:
	free(frame);
	free(text);
	json_decref(doc);
	return r;
}
