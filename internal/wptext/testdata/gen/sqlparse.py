"""Minimal mysqldump INSERT parser (documentation helper for gen_vectors.py)."""
import re

_ESC = {'0': '\0', "'": "'", '"': '"', 'b': '\b', 'n': '\n', 'r': '\r', 't': '\t', 'Z': '\x1a', '\\': '\\', '%': '\\%', '_': '\\_'}


def parse_values(s, i):
    """Parse '(v,v,...),(...);' starting at s[i]; yields tuples."""
    rows = []
    n = len(s)
    while i < n:
        while s[i] in ' \n,':
            i += 1
        if s[i] == ';':
            return rows, i + 1
        assert s[i] == '(', s[i:i + 50]
        i += 1
        row = []
        while True:
            c = s[i]
            if c == "'":
                i += 1
                buf = []
                while True:
                    c = s[i]
                    if c == '\\':
                        buf.append(_ESC.get(s[i + 1], s[i + 1]))
                        i += 2
                    elif c == "'":
                        if s[i + 1] == "'":
                            buf.append("'")
                            i += 2
                        else:
                            i += 1
                            break
                    else:
                        buf.append(c)
                        i += 1
                row.append(''.join(buf))
            else:
                m = re.compile(r"[^,)]*").match(s, i)
                tok = m.group(0)
                i = m.end()
                row.append(None if tok == 'NULL' else tok)
            if s[i] == ',':
                i += 1
                continue
            if s[i] == ')':
                i += 1
                break
        rows.append(tuple(row))


def table_rows(sql, table):
    out = []
    pat = 'INSERT INTO `%s` VALUES' % table
    pos = 0
    while True:
        j = sql.find(pat, pos)
        if j < 0:
            return out
        rows, pos = parse_values(sql, j + len(pat))
        out.extend(rows)
