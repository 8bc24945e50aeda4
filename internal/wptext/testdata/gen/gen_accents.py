#!/usr/bin/env python3
"""Regenerate ../../accents_table.go.

remove_accents_chars.txt is the $chars array of WordPress 6.9's
remove_accents() (en_US locale). The NFC pair table is derived from Python's
unicodedata for Latin letters, which is all remove_accents() needs.

    python3 internal/wptext/testdata/gen/gen_accents.py && gofmt -w internal/wptext/accents_table.go
"""
import os
import re
import unicodedata

HERE = os.path.dirname(__file__)
OUT = os.path.join(HERE, '..', '..', 'accents_table.go')

pairs = re.findall(r"'([^']*)' => '([^']*)'", open(os.path.join(HERE, 'remove_accents_chars.txt'), encoding='utf-8').read())
out = ['// Code generated from WordPress 6.9 remove_accents() (see testdata/gen); DO NOT EDIT.', '', 'package wptext', '',
       "// removeAccentsTable is remove_accents()'s $chars for the en_US locale.", 'var removeAccentsTable = map[string]string{']
seen = set()
for k, v in pairs:
    if k in seen:
        continue
    seen.add(k)
    out.append('\t"%s": "%s",' % (k, v))
out += ['}', '']
comp = {}
for cp in list(range(0xC0, 0x250)) + list(range(0x1E00, 0x1F00)):
    d = unicodedata.decomposition(chr(cp))
    if not d or d.startswith('<'):
        continue
    parts = [int(x, 16) for x in d.split()]
    if len(parts) == 2 and unicodedata.normalize('NFC', chr(parts[0]) + chr(parts[1])) == chr(cp):
        comp[(parts[0], parts[1])] = cp
out += ['// nfcPairs composes a base letter and a combining mark (canonical',
        '// composition restricted to Latin letters; enough for remove_accents()).',
        'var nfcPairs = map[[2]rune]rune{']
for (a, b), c in sorted(comp.items()):
    out.append('\t{0x%04X, 0x%04X}: 0x%04X,' % (a, b, c))
out += ['}', '', '// combiningClass is the canonical combining class of U+0300..U+036F.', 'var combiningClass = map[rune]uint8{']
for cp in range(0x300, 0x370):
    c = unicodedata.combining(chr(cp))
    if c:
        out.append('\t0x%04X: %d,' % (cp, c))
out.append('}')
open(OUT, 'w', encoding='utf-8').write('\n'.join(out) + '\n')
