# SPDX-License-Identifier: MIT
# pseudo_po.py POT OUT.po — a pseudo-translation of the template for tests/test_i18n.c: every
# msgstr is its msgid with each ASCII letter turned into its full-width form (a -> ａ) and
# wrapped in ⟦ ⟧, format directives (%zu, %1$s, %.4f) and escapes (\n) kept, so that every
# catalogue string a program prints is marked, and any ASCII word it prints came from
# somewhere else: an argument, a system message, or a string that escaped translation.
import re
import sys

pot, out = sys.argv[1], sys.argv[2]
DIRECTIVE = re.compile(r'%(?:\d+\$)?[-+ #0\']*(?:\d+|\*)?(?:\.(?:\d+|\*))?'
                       r'(?:(?:hh|h|ll|l|z|j|t|L)?[diouxXeEfgGcsp%]|<PRI[a-zA-Z0-9_]+>)')


def unquote(lines):
    return ''.join(bytes(re.match(r'^(?:msgctxt|msgid|msgid_plural)?\s*"(.*)"$', l).group(1), 'utf-8')
                   .decode('unicode_escape').encode('latin1').decode('utf-8') for l in lines)


def widen(s):
    parts, last = [], 0
    for m in DIRECTIVE.finditer(s):
        parts.append(s[last:m.start()])
        parts.append(None)
        parts.append(m.group(0))
        last = m.end()
    parts.append(s[last:])
    outp, keep = [], False
    for p in parts:
        if p is None:
            keep = True
            continue
        if keep:
            outp.append(p)
            keep = False
            continue
        outp.append(''.join(chr(ord(c) + 0xFEE0) if c.isascii() and c.isalpha() else c for c in p))
    body = ''.join(outp)
    lead = body[:len(body) - len(body.lstrip('\n'))]
    trail = body[len(body.rstrip('\n')):]
    core = body[len(lead):len(body) - len(trail)] if trail else body[len(lead):]
    return lead + '\u27e6' + core + '\u27e7' + trail


def quote(s):
    return '"' + s.replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n').replace('\t', '\\t') + '"'


text = open(pot, encoding='utf-8').read()
res = ['msgid ""', 'msgstr ""', '"Project-Id-Version: gpt2-embed pseudo\\n"', '"PO-Revision-Date: 2000-01-01 00:00+0000\\n"',
       '"Last-Translator: tests/pseudo_po.py\\n"', '"Language-Team: none\\n"', '"Language: ja\\n"',
       '"MIME-Version: 1.0\\n"', '"Content-Type: text/plain; charset=UTF-8\\n"',
       '"Content-Transfer-Encoding: 8bit\\n"', '"Plural-Forms: nplurals=2; plural=(n != 1);\\n"', '']
for block in text.split('\n\n'):
    ls = [l for l in block.split('\n') if l and not l.startswith('#')]
    flags = ' '.join(l for l in block.split('\n') if l.startswith('#,'))
    if not any(l.startswith('msgid ') for l in ls):
        continue
    idx = {}
    for i, l in enumerate(ls):
        for k in ('msgctxt', 'msgid', 'msgid_plural', 'msgstr'):
            if (l.startswith(k + ' ') or l.startswith(k + '[')) and k not in idx:
                idx[k] = i
    mid = unquote(ls[idx['msgid']:idx.get('msgid_plural', idx['msgstr'])])
    if not mid:
        continue
    if flags:
        res.append(flags)
    if 'msgctxt' in idx:
        res.append('msgctxt ' + quote(unquote(ls[idx['msgctxt']:idx['msgid']])))
    res.append('msgid ' + quote(mid))
    if 'msgid_plural' in idx:
        plural = unquote(ls[idx['msgid_plural']:idx['msgstr']])
        res += ['msgid_plural ' + quote(plural), 'msgstr[0] ' + quote(widen(mid)),
                'msgstr[1] ' + quote(widen(plural))]
    else:
        res.append('msgstr ' + quote(widen(mid)))
    res.append('')
open(out, 'w', encoding='utf-8').write('\n'.join(res))
