#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""The layout rules of docs/architecture.md, read off every #include of the production sources:
lib/ includes nothing of proto/, daemon/ or client/; proto/ nothing of daemon/ or client/; client
code nothing of daemon/; the OpenSSL provider and the PKCS#11 module only libp256sign's public
header and their own folder's headers; the parent's side of the daemon never reaches, directly or
through other headers, the key files' or certificates' parsing or the key-holder's key set; and no
two modules include each other, directly or round a longer circle.

Usage: test_includes.py SOURCE_ROOT [--self-check]. --self-check copies the tree, plants one
forbidden include of each kind in the copy and fails unless every one is reported."""
import os
import re
import shutil
import sys
import tempfile

PARTS = ("lib", "proto", "daemon", "client")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)

# The daemon's key-holder side: the key-holder, the signers it forks (they run its code after
# fork, never the parent's), and the one-shot --check-config. Everything else in daemon/ is the
# parent's, which must never see a key file or a certificate.
KEYHOLDER_SIDE = {"keyholder.c", "keyholder.h", "keyset.c", "keyset.h", "signer.c", "signer.h",
                  "signer-pools.c", "signer-pools.h", "selftest.c", "selftest.h",
                  "checkconfig.c"}
# Key files and certificates: lib's parsers, and the key set loaded from them.
KEY_PARSING = {"lib/keyfile.h", "lib/keyfile-der.h", "lib/keyfile-read.h", "lib/pem.h",
               "lib/base64.h", "lib/cert.h", "daemon/keyset.h"}
MODULES_ON_PUBLIC_API = ("client/provider", "client/pkcs11")
# Files split out of one module that work on its own struct (their header says so): one module for
# the circle rule, as if they were one file.
PARTS_OF = {"daemon/audit/audit-queue": "daemon/audit/audit"}
PUBLIC_HEADER = "client/lib/p256sign.h"


def sources(root):
    out = []
    for part in PARTS:
        for d, _, files in os.walk(os.path.join(root, part)):
            for f in files:
                if f.endswith((".c", ".h")):
                    out.append(os.path.relpath(os.path.join(d, f), root))
    return sorted(out)


def resolve(root, src, name, headers):
    """The project header an include names: beside the including file first (as the compiler
    looks), else the one header of that name anywhere; None for a system header."""
    near = os.path.normpath(os.path.join(os.path.dirname(src), name))
    if near in headers:
        return near
    found = [h for h in headers if os.path.basename(h) == os.path.basename(name)]
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        raise SystemExit("%s: include \"%s\" is ambiguous: %s" % (src, name, found))
    return None


def graph(root):
    files = sources(root)
    headers = {f for f in files if f.endswith(".h")}
    edges = {}
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8") as fh:
            names = INCLUDE.findall(fh.read())
        edges[f] = [h for h in (resolve(root, f, n, headers) for n in names) if h is not None]
    return edges


def part_of(path):
    return path.split("/")[0]


def reach(edges, start):
    """Every header start includes, directly or through other headers, with the chain to it."""
    seen, todo = {}, [(start, [start])]
    while todo:
        f, chain = todo.pop()
        for h in edges.get(f, []):
            if h not in seen:
                seen[h] = chain + [h]
                todo.append((h, chain + [h]))
    return seen


def module(path):
    name = os.path.splitext(path)[0]
    return PARTS_OF.get(name, name)


def circles(edges):
    """Circles between modules (a module is NAME.c with NAME.h): module A depends on B when A's
    .c or .h includes B.h. Each circle is reported once, as the modules round it."""
    deps = {}
    for f, hs in edges.items():
        for h in hs:
            if module(h) != module(f):
                deps.setdefault(module(f), set()).add(module(h))
    found, state = [], {}

    def visit(m, stack):
        state[m] = 1
        stack.append(m)
        for n in sorted(deps.get(m, ())):
            if state.get(n) == 1:
                found.append(stack[stack.index(n):] + [n])
            elif n not in state:
                visit(n, stack)
        stack.pop()
        state[m] = 2

    for m in sorted(deps):
        if m not in state:
            visit(m, [])
    return found


def violations(root):
    edges = graph(root)
    bad = []
    for f, hs in sorted(edges.items()):
        p = part_of(f)
        for h in hs:
            q = part_of(h)
            if p == "lib" and q != "lib":
                bad.append("%s includes %s: lib/ includes only lib/" % (f, h))
            elif p == "proto" and q in ("daemon", "client"):
                bad.append("%s includes %s: proto/ never includes daemon/ or client/" % (f, h))
            elif p == "client" and q == "daemon":
                bad.append("%s includes %s: client code never includes daemon/" % (f, h))
        if f.startswith(MODULES_ON_PUBLIC_API):
            own = os.path.dirname(f)
            for h in hs:
                if h != PUBLIC_HEADER and os.path.dirname(h) != own:
                    bad.append("%s includes %s: a module on libp256sign's public header only" %
                               (f, h))
        if p == "daemon" and os.path.basename(f) not in KEYHOLDER_SIDE:
            for h, chain in sorted(reach(edges, f).items()):
                if h in KEY_PARSING:
                    bad.append("%s reaches %s (%s): the parent's side never sees key files "
                               "or certificates" % (f, h, " -> ".join(chain)))
    for c in circles(edges):
        bad.append("a circle of includes: " + " -> ".join(c))
    return bad


# One planted include of each rule, for --self-check: file, the include, the rule's words.
PLANTS = [
    ("lib/sign.c", "proto.h", "lib/ includes only lib/"),
    ("proto/proto.c", "server.h", "proto/ never includes daemon/"),
    ("client/ctl/ctl-status.c", "reply.h", "client code never includes daemon/"),
    ("client/provider/provider.c", "cursor.h", "public header only"),
    ("daemon/server.c", "keyfile.h", "never sees key files"),
    ("daemon/policy.h", "cert.h", "never sees key files"),
    ("daemon/clock.h", "server.h", "a circle of includes"),
]


def self_check(root):
    failed = 0
    for f, inc, rule in PLANTS:
        tmp = tempfile.mkdtemp(prefix="p256sign-layout-")
        try:
            for part in PARTS:
                shutil.copytree(os.path.join(root, part), os.path.join(tmp, part))
            path = os.path.join(tmp, f)
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
            with open(path, "w", encoding="utf-8") as fh:
                fh.write('#include "%s"\n' % inc + text)
            found = [v for v in violations(tmp) if rule in v]
            if not found:
                print("FAIL: planting #include \"%s\" in %s is not reported (%s)" % (inc, f, rule))
                failed += 1
            else:
                print("planted #include \"%s\" in %s: %s" % (inc, f, found[0]))
        finally:
            shutil.rmtree(tmp)
    return failed


def main():
    root = sys.argv[1]
    bad = violations(root)
    for v in bad:
        print("FAIL: " + v)
    failed = len(bad)
    if "--self-check" in sys.argv[2:]:
        failed += self_check(root)
    n = len(sources(root))
    print("layout: %d source files, %d include rule violation(s)" % (n, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
