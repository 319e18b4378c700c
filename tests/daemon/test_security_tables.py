#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""The system calls each role may make, as daemon/sandbox-seccomp.c lists them, against the tables
of docs/security.md ("The sandboxes: every system call each role may make, and why"): for every
role, the set of call names in the code's allowlists and in the document's table must be the same.
A difference fails, naming the calls only one side has.

Usage: test_security_tables.py docs/security.md daemon/sandbox-seccomp.c
"""
import re
import sys

# Which lists of the code make up the table under each heading of the document. The parent's
# table includes the read-only openat beneath /proc (peer_calls).
ROLES = {
    "Signer": ["signer_calls"],
    "Key-holder": ["keyholder_calls"],
    "Parent": ["parent_calls", "peer_calls"],
    "Sanitizer builds": ["sanitizer_calls"],
}

ENTRY = re.compile(r'\b(?:ANY|IF|IF2)\("([a-z0-9_]+)"(.*?)\),?\s*(?:/\*|$)', re.M)
NAME = re.compile(r"`([a-z][a-z0-9_]*)`")
CONSTANT = re.compile(r"\b([A-Z][A-Z0-9_]+)\b")
VALUE = re.compile(r"LOW32_EQ\(\d+, (\w+)\)")


def defines(source):
    """{macro: its body} for the object-like #defines of the source."""
    return dict(re.findall(r"^#define ([A-Z][A-Z0-9_]*) (\(.*?\)|\S+)\s*(?:/\*.*)?$", source,
                           re.M))


def expand(token, macros):
    """The constants a condition's value names, the source's own macros expanded."""
    if token not in macros:
        return {token}
    out = set()
    for t in CONSTANT.findall(macros[token]):
        out |= expand(t, macros)
    return out


def code_lists(source):
    """{list name: {call: set of the constants its exact-value conditions (LOW32_EQ) name}} for
    each `static const struct allow NAME[] = {...};`."""
    macros = defines(source)
    lists = {}
    for m in re.finditer(r"static const struct allow (\w+)\[\] = \{(.*?)\n\};", source, re.S):
        calls = lists.setdefault(m.group(1), {})
        for call, args in ENTRY.findall(m.group(2)):
            values = calls.setdefault(call, set())
            for v in VALUE.findall(args):
                values |= expand(v, macros)
    return lists


def doc_tables(text):
    """{heading: [(set of call names, set of constants in the condition column)]}, one pair per
    row of the first `| call |` table after each ### heading."""
    tables = {}
    heading = None
    in_table = False
    for line in text.splitlines():
        if line.startswith("### "):
            heading = line[4:].strip()
            in_table = False
            continue
        if heading is None:
            continue
        if line.startswith("| call |"):
            if heading in tables:       # a second table under one heading: not ours
                heading = None
                continue
            tables[heading] = []
            in_table = True
            continue
        if in_table:
            if not line.startswith("|"):
                in_table = False
                heading = None
                continue
            cells = line.replace("\\|", " ").split("|")
            if set(cells[1].strip()) <= set("- "):
                continue                # the separator row
            # The call names are the backticked lowercase words of the first column (a flag
            # such as `PROT_EXEC` in "(no `PROT_EXEC`)" is upper case).
            tables[heading].append((set(NAME.findall(cells[1])),
                                    set(CONSTANT.findall(cells[1] + cells[2]))))
    return tables


def compare(doc, code):
    """A list of lines, one per difference; empty when the document and the code agree."""
    problems = []
    for role, names in ROLES.items():
        if role not in doc:
            problems.append(f"{role}: no `| call |` table under '### {role}' in the document")
            continue
        missing = [n for n in names if n not in code]
        if missing:
            problems.append(f"{role}: no list {', '.join(missing)} in the code")
            continue
        in_code = {}
        for n in names:
            for call, values in code[n].items():
                in_code.setdefault(call, set()).update(values)
        in_doc = set().union(*(calls for calls, _ in doc[role]))
        where = ", ".join(names)
        only_code = sorted(set(in_code) - in_doc)
        only_doc = sorted(in_doc - set(in_code))
        if only_code:
            problems.append(f"{role}: in the code ({where}) but not in the document's "
                            f"table: {', '.join(only_code)}")
        if only_doc:
            problems.append(f"{role}: in the document's table but not in the code "
                            f"({where}): {', '.join(only_doc)}")
        # Exact values (a family, a request, an option): each one the code allows is in the
        # condition of a row naming the call, and a row whose calls all take exact values names
        # only values the code allows them.
        for call in sorted(set(in_code) & in_doc):
            said = set().union(*(c for calls, c in doc[role] if call in calls))
            for v in sorted(in_code[call] - said):
                problems.append(f"{role}: {call} with {v} in the code, not in the document")
        for calls, said in doc[role]:
            known = [c for c in calls if c in in_code]
            if not known or not all(in_code[c] for c in known):
                continue
            allowed = set().union(*(in_code[c] for c in known))
            for v in sorted(said - allowed):
                problems.append(f"{role}: {', '.join(sorted(calls))} with {v} in the document, "
                                f"not in the code")
    return problems


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        doc = doc_tables(f.read())
    with open(sys.argv[2], encoding="utf-8") as f:
        code = code_lists(f.read())
    problems = compare(doc, code)
    for role, names in ROLES.items():
        if role in doc and all(n in code for n in names):
            print(f"{role}: {len(set().union(*(c for c, _ in doc[role])))} calls in the "
                  f"document, {len(set().union(*(code[n] for n in names)))} in the code")
    # The parser must have found something, or an empty table would agree with an empty list.
    for role, names in ROLES.items():
        if role in doc and not doc[role]:
            problems.append(f"{role}: the document's table lists no call")
    if problems:
        for p in problems:
            print("FAIL: " + p)
        return 1
    print("test_security_tables: the code's allowlists and docs/security.md agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
