#!/usr/bin/env python3
"""Extract cost test vectors from the recorded compatibility set (documentation helper).

Reads compat-tests/testdata/site-a/{fixture.sql,cases.jsonl} and writes
internal/cost/testdata/recorded.json:

  reads:  every distinct (meta rows -> cost, cost_details.values, offers.price)
          seen in an event record of any response, with the event's meta state
          at the time of the request (fixture state, replayed through the
          recorded db_changes of write cases);
  writes: every write case whose request body carries `cost`, with the
          _EventCost / _EventCurrencySymbol / _EventCurrencyPosition rows of
          the event after the request.

Run from the module root:  python3 internal/cost/testdata/gen/extract.py
"""
import json
import os
import re
import sys

# The mysqldump reader is shared with the wptext vector generator.
sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', '..', '..', 'wptext', 'testdata', 'gen'))
from sqlparse import table_rows  # noqa: E402

SET = 'compat-tests/testdata/site-a/'
OUT = 'internal/cost/testdata/recorded.json'
REDACTED_ORDER = ['currency_symbol', 'currency_position', 'currency_code', 'values']
KEYS = ('_EventCost', '_EventCurrencySymbol', '_EventCurrencyPosition', '_EventCurrencyCode')

def fixture_meta():
    sql = open(SET + 'fixture.sql', encoding='utf-8').read()
    meta = {}
    for meta_id, post_id, key, value in table_rows(sql, 'wp_postmeta'):
        if key in KEYS:
            meta[int(meta_id)] = (post_id, key, value)
    return meta


def state(meta, post_id):
    """Cost meta of one post, rows in meta_id order (what get_post_meta returns)."""
    st = {'rows': [], 'symbol': None, 'position': None, 'code': None}
    for mid in sorted(meta):
        pid, key, value = meta[mid]
        if pid != str(post_id):
            continue
        if key == '_EventCost':
            st['rows'].append(value)
        elif key == '_EventCurrencySymbol' and st['symbol'] is None:
            st['symbol'] = value
        elif key == '_EventCurrencyPosition' and st['position'] is None:
            st['position'] = value
        elif key == '_EventCurrencyCode' and st['code'] is None:
            st['code'] = value
    return st


def event_records(node):
    if isinstance(node, dict):
        if 'cost' in node and isinstance(node.get('cost_details'), dict) and 'values' in node['cost_details']:
            yield node
        for v in node.values():
            yield from event_records(v)
    elif isinstance(node, list):
        for v in node:
            yield from event_records(v)


def php_string(v):
    if isinstance(v, bool):
        return '1' if v else ''
    if isinstance(v, (int, float)):
        return str(v)
    return v


def main():
    base = fixture_meta()
    meta = dict(base)
    reads, writes, seen = [], [], {}
    for line in open(SET + 'cases.jsonl', encoding='utf-8'):
        c = json.loads(line)
        if c.get('reset'):
            meta = dict(base)
        body = c['response']['body']
        req = c['request'].get('body')
        is_cost_write = (c['group'] == 'write' and isinstance(req, dict) and 'cost' in req
                         and c['response']['status'] < 300)
        before = state(meta, body['id']) if is_cost_write else None
        ch = (c.get('db_changes') or {}).get('wp_postmeta') or []
        for x in ch:
            r = x['row']
            if r.get('meta_key') not in KEYS:
                continue
            mid = int(r['meta_id'])
            if x['op'] == 'delete':
                meta.pop(mid, None)
            else:
                meta[mid] = (r['post_id'], r['meta_key'], r['meta_value'])
        path = c['request']['path']
        single = c['request']['method'] == 'GET' and re.search(r'/events/(\d+|by-slug/[^/]+)$', path)
        for rec in event_records(body):
            if list(rec['cost_details']) == REDACTED_ORDER:
                continue  # password-protected list item (spec 4.11): blanked, not computed
            st = state(meta, rec['id'])
            cd = rec['cost_details']
            assert cd['currency_symbol'] == (st['symbol'] or ''), (c['name'], rec['id'], cd, st)
            assert cd['currency_position'] == (st['position'] or ''), (c['name'], rec['id'], cd, st)
            assert cd['currency_code'] == (st['code'] or ''), (c['name'], rec['id'], cd, st)
            entry = {'rows': st['rows'], 'symbol': st['symbol'] or '', 'position': st['position'] or '',
                     'cost': rec['cost'], 'values': cd['values']}
            if single and rec is body and 'json_ld' in rec:
                offers = rec['json_ld'].get('offers')
                entry['offer'] = offers['price'] if offers else None
                entry['currency'] = offers['priceCurrency'] if offers else None
                entry['code'] = st['code'] or ''
            key = json.dumps(entry, sort_keys=True, ensure_ascii=False)
            if key in seen:
                continue
            seen[key] = True
            entry['case'] = c['name']
            entry['event'] = rec['id']
            reads.append(entry)
        if is_cost_write:
            cost = req['cost']
            sent = [php_string(v) for v in cost] if isinstance(cost, list) else php_string(cost)
            pid = body['id']
            st = state(meta, pid)
            writes.append({'case': c['name'], 'method': c['request']['method'],
                           'create': c['response']['status'] == 201, 'sent': sent,
                           'list': isinstance(cost, list), 'before': before['rows'],
                           'rows': st['rows'], 'symbol': st['symbol'], 'position': st['position']})
    with open(OUT, 'w', encoding='utf-8') as f:
        json.dump({'reads': reads, 'writes': writes}, f, ensure_ascii=False, indent=1)
        f.write('\n')
    print('reads %d, writes %d' % (len(reads), len(writes)), file=sys.stderr)


if __name__ == '__main__':
    main()
