/* SPDX-License-Identifier: ISC */
/*
 * Framing: queueing encoded requests, writing them without blocking, reading and decoding
 * responses (through proto/) and matching them to outstanding requests by id, in any order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "libp256sign-private.h"
#include "p256.h"

/* Room made before a read while the next frame's length is not known yet. */
#define IN_INITIAL 4096

static size_t find_pending(const struct p256sign *h, uint32_t id)
{
	size_t i;

	/* Responses mostly come in order: the match is usually near the front. */
	for (i = 0; i < h->n_pending; i++)
		if (h->pending[i].id == id)
			break;
	return i;
}

/* Checks a successful response against its request and copies it into res. */
static int fill_result(const struct pending *p, const struct proto_response *resp,
	struct p256sign_result *res)
{
	uint8_t rs[P256_SIG_LEN], spki[P256_SPKI_LEN], id[P256_KEY_ID_LEN];

	if (resp->h.type != (p->op | PROTO_RESPONSE))
		return P256SIGN_E_PROTOCOL;
	switch (p->op) {
	case P256SIGN_OP_SIGN:
	case P256SIGN_OP_SIGN_MESSAGE:
	case P256SIGN_OP_SIGN_TLS:
		if (resp->format != p->format ||
		    (resp->format == PROTO_FORMAT_RAW && resp->sig_len != P256_SIG_LEN) ||
		    (resp->format == PROTO_FORMAT_DER &&
		     p256_sig_from_der(resp->sig, resp->sig_len, rs) != 0))
			return P256SIGN_E_PROTOCOL;
		res->format = resp->format;
		memcpy(res->sig, resp->sig, resp->sig_len);
		res->sig_len = resp->sig_len;
		return 0;
	case P256SIGN_OP_PUBKEY:
		if (p256_point_check(resp->point) != 0)
			return P256SIGN_E_PROTOCOL;
		p256_spki(resp->point, spki);
		if (p256_key_id(resp->point, id) != 0 || memcmp(spki, resp->spki, sizeof(spki)) != 0 ||
		    memcmp(id, resp->key_id, sizeof(id)) != 0)
			return P256SIGN_E_PROTOCOL;
		memcpy(res->pubkey.key_id, resp->key_id, sizeof(res->pubkey.key_id));
		memcpy(res->pubkey.point, resp->point, sizeof(res->pubkey.point));
		memcpy(res->pubkey.spki, resp->spki, sizeof(res->pubkey.spki));
		return 0;
	case P256SIGN_OP_CERTIFICATE:
		if ((res->certificate = malloc(resp->cert_len)) == NULL)
			return P256SIGN_E_NOMEM;
		memcpy(res->certificate, resp->cert, resp->cert_len);
		res->certificate_len = resp->cert_len;
		memcpy(res->certificate_key_id, resp->key_id, sizeof(res->certificate_key_id));
		return 0;
	case P256SIGN_OP_VERIFY:
		res->valid = resp->valid;
		return 0;
	case P256SIGN_OP_LIST_KEYS:
	case P256SIGN_OP_STATUS:
		if (memchr(resp->json, '\0', resp->json_len) != NULL)
			return P256SIGN_E_PROTOCOL;
		if ((res->json = malloc(resp->json_len + 1)) == NULL)
			return P256SIGN_E_NOMEM;
		memcpy(res->json, resp->json, resp->json_len);
		res->json[resp->json_len] = '\0';
		res->json_len = resp->json_len;
		return 0;
	default:
		return 0;	/* PING: nothing to carry */
	}
}

/* The library code of a wire error code. */
static int daemon_error(uint16_t code)
{
	return code >= 1 && code <= PROTO_E_MAX ? -(int)code : P256SIGN_E_DAEMON;
}

/* Decodes one frame and completes its request. P256SIGN_E_PROTOCOL breaks the connection. */
static int handle_frame(struct p256sign *h, const uint8_t *frame, size_t len)
{
	struct proto_response resp;
	struct p256sign_result res = { 0 };
	size_t i;
	int r;

	if (proto_decode_response(frame, len, &resp) != 0)
		return P256SIGN_E_PROTOCOL;
	i = find_pending(h, resp.h.id);
	if (i == h->n_pending) {
		/*
		 * An error that ends the connection may name no request: its header was unreadable,
		 * or it is the unrequested too-many-connections (id 0). It fails every pending one.
		 */
		if (resp.h.type == PROTO_ERROR && proto_error_closes(resp.error))
			return daemon_error(resp.error);
		return P256SIGN_E_PROTOCOL;
	}
	res.id = h->pending[i].id;
	res.op = h->pending[i].op;
	if (resp.h.type == PROTO_ERROR)
		res.error = daemon_error(resp.error);
	else if ((r = fill_result(&h->pending[i], &resp, &res)) == P256SIGN_E_PROTOCOL)
		return r;
	else
		res.error = r;
	queue_remove_pending(h, i);
	return queue_push_result(h, &res);
}

/* Decodes every whole frame in h->in; a refused frame fails the connection. */
static void decode_frames(struct p256sign *h)
{
	struct buf *in = &h->in;
	uint32_t len;
	int r;

	while (in->len - in->head >= PROTO_LEN_PREFIX) {
		if (proto_frame_length(in->data + in->head, &len) != 0) {
			conn_failed(h, P256SIGN_E_PROTOCOL, 0);
			return;
		}
		if (in->len - in->head - PROTO_LEN_PREFIX < len)
			break;
		r = handle_frame(h, in->data + in->head + PROTO_LEN_PREFIX, len);
		in->head += PROTO_LEN_PREFIX + len;
		if (r == P256SIGN_E_NOMEM)
			continue;	/* that result is lost; the connection is still in step */
		if (r != 0) {
			conn_failed(h, r, 0);
			return;
		}
	}
}

/*
 * Reads and decodes what the socket holds, without blocking. 0 when it would block (or a refused
 * frame already failed the connection), P256SIGN_E_NOMEM, or the error that ended the stream
 * (P256SIGN_E_CLOSED, P256SIGN_E_IO), which the caller turns into a connection failure.
 */
static int read_available(struct p256sign *h)
{
	struct buf *in = &h->in;
	uint32_t need;
	ssize_t n;

	while (h->fd >= 0) {
		/* Room for the rest of the frame being read, or at least for a small one. */
		need = IN_INITIAL;
		if (in->len - in->head >= PROTO_LEN_PREFIX &&
		    proto_frame_length(in->data + in->head, &need) == 0)
			need += PROTO_LEN_PREFIX;
		if (queue_buf_reserve(in, need) != 0)
			return P256SIGN_E_NOMEM;
		n = recv(h->fd, in->data + in->len, in->cap - in->len, MSG_DONTWAIT);
		if (n > 0) {
			size_t room = in->cap - in->len;

			in->len += (size_t)n;
			decode_frames(h);
			/* A short read emptied the socket: spare the recv that would say EAGAIN. */
			if ((size_t)n < room)
				break;
		} else if (n == 0) {
			return P256SIGN_E_CLOSED;
		} else if (errno == EINTR) {
			continue;
		} else if (errno == EAGAIN || errno == EWOULDBLOCK) {
			break;
		} else {
			return errno == ECONNRESET ? P256SIGN_E_CLOSED : P256SIGN_E_IO;
		}
	}
	return 0;
}

int frames_read(struct p256sign *h)
{
	int r = read_available(h);

	if (r == P256SIGN_E_NOMEM)
		return r;
	/* End of stream: requests still unwritten may go to a restarted daemon. */
	if (r != 0)
		conn_failed(h, r, 1);
	return 0;
}

int frames_flush(struct p256sign *h)
{
	ssize_t n;

	while (h->fd >= 0 && h->out.head < h->out.len) {
		n = send(h->fd, h->out.data + h->out.head, h->out.len - h->out.head,
			MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			h->out.head += (size_t)n;
			h->written += (uint64_t)n;
		} else if (n < 0 && errno == EINTR) {
			continue;
		} else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			return 0;
		} else if (n < 0 && (errno == EPIPE || errno == ECONNRESET || errno == ENOTCONN)) {
			/*
			 * The daemon went away (a restart keeps the socket). Answers it sent before
			 * closing are still readable: deliver them rather than fail their requests
			 * (out of memory, they fail with the connection). Then unwritten requests may
			 * go again.
			 */
			(void)read_available(h);
			conn_failed(h, P256SIGN_E_CLOSED, 1);
		} else {
			conn_failed(h, P256SIGN_E_IO, 0);
		}
	}
	if (h->out.head == h->out.len)
		h->out.head = h->out.len = 0;
	return 0;
}

int frames_expire(struct p256sign *h)
{
	int64_t now = conn_now_us();

	for (size_t i = 0; i < h->n_pending; i++) {
		if (h->pending[i].deadline <= now) {
			/* A stuck daemon: nothing on this connection can be trusted to come back. */
			conn_failed(h, P256SIGN_E_TIMEOUT, 0);
			break;
		}
	}
	return 0;
}

/* The most bytes a request frame can take besides a SIGN_MESSAGE payload. */
#define REQUEST_OVERHEAD 256

int frames_submit(struct p256sign *h, struct proto_request *req, uint32_t *id)
{
	struct pending *p;
	size_t len, cap;
	int r;

	conn_fork_check(h);
	/*
	 * Ids count up and pending requests stay in submission order, so the next id can only meet
	 * an outstanding one after 2^32 - 1 submissions while the oldest is still outstanding: the
	 * id would then name two requests and a response could complete the wrong one.
	 */
	if (h->n_pending > 0 && h->pending[0].id == h->next_id)
		return P256SIGN_E_OVERLOADED;
	if ((r = conn_ensure_connected(h)) != 0)
		return r;
	if (h->n_pending == h->cap_pending) {
		cap = h->cap_pending ? h->cap_pending * 2 : 16;
		if ((p = realloc(h->pending, cap * sizeof(*p))) == NULL)
			return P256SIGN_E_NOMEM;
		h->pending = p;
		h->cap_pending = cap;
	}
	if ((r = queue_buf_reserve(&h->out, REQUEST_OVERHEAD + req->message_len)) != 0)
		return r;
	req->h.version = PROTO_VERSION;
	req->h.flags = 0;
	req->h.id = h->next_id;
	if (proto_encode_request(req, h->out.data + h->out.len, h->out.cap - h->out.len, &len) != 0)
		return P256SIGN_E_INVALID;	/* the submit calls checked every field: a bug */
	h->pending[h->n_pending++] = (struct pending){
		.id = req->h.id,
		.op = req->h.type,
		.format = req->format,
		.start = h->written + (h->out.len - h->out.head),
		.deadline = conn_now_us() + (int64_t)h->timeout_ms * 1000,
	};
	h->out.len += len;
	*id = h->next_id;
	h->next_id = h->next_id == UINT32_MAX ? 1 : h->next_id + 1;
	h->retry_budget = 1;
	return frames_flush(h);
}
