/* SPDX-License-Identifier: ISC */
/*
 * p256signctl export-key-ref KEY: a key-reference file for a key the daemon holds, on stdout
 * (p256sign_keyref_encode). It records the socket this command used (--socket,
 * $P256SIGN_SOCKET or the default), so the server finds the same daemon without any setting of
 * its own.
 */
#include <openssl/pem.h>
#include <stdio.h>
#include <string.h>

#include "ctl.h"

int ctl_export_key_ref(const struct ctl_options *o, int argc, char **argv)
{
	struct p256sign_keyref kd = { 0 };
	struct p256sign_key key;
	struct p256sign_pubkey pub;
	uint8_t der[P256SIGN_KEYREF_DER_MAX];
	size_t len;
	const char *socket;
	struct p256sign *h;
	int r;

	if (argc != 2)
		return ctl_usage("export-key-ref");
	if (ctl_parse_key(argv[1], &key, kd.id) != 0)
		return ctl_error("export-key-ref", "KEY must be a key name or id: and 64 hex digits");
	if ((h = ctl_connect(o, "export-key-ref")) == NULL)
		return CTL_EXIT_REFUSED;
	/* Only a key the daemon holds: a typo would otherwise surface at the server's start. */
	r = p256sign_get_pubkey(h, &key, &pub);
	socket = p256sign_socket_path(h);
	if (r == 0 && socket[0] != '/')
		r = ctl_error("export-key-ref", "%s: a key reference needs an absolute socket path",
			socket);
	else if (r != 0)
		r = ctl_lib_error("export-key-ref", r);
	if (r == 0) {
		kd.by_id = key.id != NULL;
		/* A name the daemon knows has at most 64 bytes. */
		if (key.name != NULL)
			memcpy(kd.name, key.name, strlen(key.name) + 1);
		memcpy(kd.socket, socket, strlen(socket) + 1);
		if ((r = p256sign_keyref_encode(&kd, der, sizeof(der), &len)) != 0)
			r = ctl_lib_error("export-key-ref", r);
		else
			(void)PEM_write(stdout, P256SIGN_KEYREF_PEM_LABEL, "", der, (long)len);
	}
	p256sign_close(h);
	return r;
}
