#!/usr/bin/env python3
"""Prints the keys Claude Code's own binary carries, one "SCOPE KEY" per line:
  settings      the top-level keys of its settings schema (the object of `key:()=>zod` entries)
  state         the defaults it writes at the top of ~/.claude.json, and the keys there that
                `claude config set -g` accepts
  project       the defaults of a projects.<path> entry there
Read from the bundled JavaScript of the installed claude (a Node script or a single binary
that embeds one). Exits 1 when an anchor is missing: a claude this script cannot read must
fail the test, not pass it with no keys."""
import re
import sys

KEY = re.compile(rb'([A-Za-z_$][\w$]*|"[^"\\]*"):')


def object_keys(data, start):
    """The keys at depth 0 of the object literal whose '{' is at `start`."""
    keys, depth, pos, instr = [], 0, start + 1, None
    expect_key = True
    while pos < len(data):
        c = data[pos:pos + 1]
        if instr:
            if c == b'\\':
                pos += 2
                continue
            if c == instr:
                instr = None
            pos += 1
            continue
        if depth == 0 and expect_key:
            m = KEY.match(data, pos)
            if m:
                keys.append(m.group(1).strip(b'"').decode())
                pos = m.end()
                expect_key = False
                continue
        expect_key = False
        if c in (b'"', b"'", b'`'):
            instr = c
        elif c in b'({[':
            depth += 1
        elif c in b')}]':
            if depth == 0:
                return keys
            depth -= 1
        elif c == b',' and depth == 0:
            expect_key = True
        pos += 1
    raise SystemExit("claude_keys: unterminated object")


def find(data, pattern, what):
    m = re.search(pattern, data)
    if not m:
        sys.exit(f"claude_keys: {what} not found in this claude (its bundle changed shape)")
    return m.end() - 1  # the '{'


def main():
    data = open(sys.argv[1], 'rb').read()
    out = []
    out += [('settings', k) for k in object_keys(data, find(data, rb'return\{\$schema:\(\)=>', 'the settings schema')
                                                 - len(b'$schema:()=>'))]
    out += [('state', k) for k in object_keys(data, find(data, rb'return\{numStartups:0,', 'the state defaults')
                                              - len(b'numStartups:0,'))]
    out += [('project', k) for k in object_keys(data, find(data, rb'=\{allowedTools:\[\],mcpContextUris:', 'the project defaults')
                                                - len(b'allowedTools:[],mcpContextUris:'))]
    # The global keys `claude config set -g` accepts: an array of their names.
    m = re.search(rb'=\[("apiKeyHelper","installMethod"(?:,"[A-Za-z0-9_]+")*)\]', data)
    if not m:
        sys.exit("claude_keys: the global config keys not found in this claude")
    out += [('state', k.strip('"')) for k in m.group(1).decode().split(',')]
    for scope, k in dict.fromkeys(out):
        print(scope, k)


main()
