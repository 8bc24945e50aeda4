#!/usr/bin/env python3
"""Build ../vectors.json from the recorded reference responses.

Run from the repository root:

    python3 internal/wptext/testdata/gen/gen_vectors.py

It replays compat-tests/testdata/site-a/cases.jsonl over the wp_posts rows of
fixture.sql (applying each write case's recorded db_changes, restoring the
fixture when a case says "reset"), and pairs the raw post_title /
post_content / post_excerpt of every event, venue and organizer that appears
in a response with what the reference rendered for it.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
import sqlparse  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..', '..'))
SITE = os.path.join(ROOT, 'compat-tests', 'testdata', 'site-a')
OUT = os.path.join(os.path.dirname(__file__), '..', 'vectors.json')

COLS = ['ID', 'post_author', 'post_date', 'post_date_gmt', 'post_content', 'post_title', 'post_excerpt',
        'post_status', 'comment_status', 'ping_status', 'post_password', 'post_name', 'to_ping', 'pinged',
        'post_modified', 'post_modified_gmt', 'post_content_filtered', 'post_parent', 'guid', 'menu_order',
        'post_type', 'post_mime_type', 'comment_count']


def lossy(s):
    return re.sub('[\U00010000-\U0010FFFF]', '?', s)


def load_fixture():
    sql = open(os.path.join(SITE, 'fixture.sql'), encoding='utf-8').read()
    posts = {}
    for r in sqlparse.table_rows(sql, 'wp_posts'):
        row = dict(zip(COLS, r))
        posts[str(row['ID'])] = row
    meta = {}
    for r in sqlparse.table_rows(sql, 'wp_postmeta'):
        meta.setdefault(str(r[1]), {})[r[2]] = r[3]
    return posts, meta


class Vectors:
    def __init__(self):
        self.sets = {}

    def add(self, kind, **kw):
        key = json.dumps({k: v for k, v in kw.items() if k not in ('case', 'id')}, sort_keys=True, ensure_ascii=False)
        self.sets.setdefault(kind, {})
        if key in self.sets[kind]:
            self.sets[kind][key]['count'] += 1
            return
        kw['count'] = 1
        self.sets[kind][key] = kw

    def dump(self):
        return {k: list(v.values()) for k, v in sorted(self.sets.items())}


def main():
    fixture_posts, fixture_meta = load_fixture()
    posts = {k: dict(v) for k, v in fixture_posts.items()}
    meta = {k: dict(v) for k, v in fixture_meta.items()}
    vec = Vectors()
    sequences = []

    def post_vectors(pid, rec, case, title_key, in_list=False):
        p = posts.get(str(pid))
        if p is None:
            return
        src = {'case': case, 'id': int(pid)}
        if title_key in rec and isinstance(rec[title_key], str):
            vec.add('title', raw=p['post_title'], want=rec[title_key], **src)
        if p.get('post_password'):
            return  # description/excerpt may be redacted
        if 'description' in rec and not in_list:
            vec.add('content', raw=p['post_content'], want=rec['description'], **src)
        if 'excerpt' in rec:
            vec.add('excerpt', raw=p['post_excerpt'], want=rec['excerpt'], **src)
        jl = rec.get('json_ld')
        if isinstance(jl, dict):
            jsonld_vectors(pid, jl, case)

    def jsonld_vectors(pid, jl, case):
        p = posts.get(str(pid))
        if p is None:
            return
        src = {'case': case, 'id': int(pid)}
        if 'name' in jl:
            vec.add('jsonld_name', raw=p['post_title'], status=p['post_status'],
                    password=bool(p.get('post_password')), want=jl['name'], **src)
        if 'description' in jl:
            vec.add('jsonld_description', excerpt=p['post_excerpt'], content=p['post_content'],
                    want=jl['description'], **src)
        if 'email' in jl and jl['email']:
            raw = meta.get(str(pid), {}).get('_OrganizerEmail')
            if raw is not None:
                vec.add('antispambot', raw=raw, want=jl['email'], **src)

    def nested_jsonld(jl, case, ids):
        # Event JSON-LD embeds the venue ("location") and first organizer.
        if isinstance(jl.get('location'), dict) and ids.get('venue'):
            jsonld_vectors(ids['venue'], jl['location'], case)
        if isinstance(jl.get('organizer'), dict) and ids.get('organizer'):
            jsonld_vectors(ids['organizer'], jl['organizer'], case)

    def event_record(rec, case, seq, in_list=False):
        vid = None
        ven = rec.get('venue')
        if isinstance(ven, dict) and 'id' in ven:
            vid = ven['id']
            venue_record(ven, case, seq, in_list)
        oids = []
        for org in rec.get('organizer') or []:
            if isinstance(org, dict) and 'id' in org:
                oids.append(org['id'])
                organizer_record(org, case, seq, in_list)
        post_vectors(rec['id'], rec, case, 'title', in_list)
        seq_add(seq, rec)
        jl = rec.get('json_ld')
        if isinstance(jl, dict):
            nested_jsonld(jl, case, {'venue': vid, 'organizer': oids[0] if oids else None})

    def seq_add(seq, rec):
        p = posts.get(str(rec['id']))
        if seq is None or p is None:
            return
        # Redacted (password-protected) records are still rendered by TEC,
        # which advances shortcode counters: keep them with want=None.
        want = None if p.get('post_password') else rec.get('description')
        seq.append({'raw': p['post_content'], 'want': want})

    def venue_record(rec, case, seq, in_list=False):
        post_vectors(rec['id'], rec, case, 'venue', in_list)
        seq_add(seq, rec)

    def organizer_record(rec, case, seq, in_list=False):
        post_vectors(rec['id'], rec, case, 'organizer', in_list)
        seq_add(seq, rec)

    for line in open(os.path.join(SITE, 'cases.jsonl'), encoding='utf-8'):
        d = json.loads(line)
        if d.get('reset'):
            posts = {k: dict(v) for k, v in fixture_posts.items()}
            meta = {k: dict(v) for k, v in fixture_meta.items()}
        for ch in (d.get('db_changes') or {}).get('wp_posts', []):
            row = ch['row']
            pid = str(row['ID'])
            if ch['op'] == 'delete':
                posts.pop(pid, None)
            else:
                cur = posts.setdefault(pid, {})
                for k, v in row.items():
                    # The recorder's db_changes lose 4-byte characters ("?"); keep
                    # the known value when that is the only difference.
                    old = cur.get(k)
                    if isinstance(old, str) and isinstance(v, str) and old != v and lossy(old) == v:
                        continue
                    cur[k] = v
        for ch in (d.get('db_changes') or {}).get('wp_postmeta', []):
            row = ch['row']
            pid = str(row.get('post_id'))
            if ch['op'] == 'delete':
                meta.get(pid, {}).pop(row.get('meta_key'), None)
            else:
                meta.setdefault(pid, {})[row.get('meta_key')] = row.get('meta_value')
        status = d['response']['status']
        if status not in (200, 201):
            continue
        path = d['request']['path']
        body = d['response']['body']
        case = d['name']
        if not isinstance(body, dict):
            continue
        if re.match(r'^/wp-json/tribe/events/v1/events(/by-slug/[^/]+|/\d+)?$', path) and d['request']['method'] != 'DELETE':
            if 'events' in body and isinstance(body['events'], list):
                seq = []
                for ev in body['events']:
                    event_record(ev, case, seq, True)
                if any('[' in s['raw'] for s in seq):
                    sequences.append({'case': case, 'items': seq})
            elif 'id' in body and 'title' in body:
                seq = []
                event_record(body, case, seq)
                if any('[' in s['raw'] for s in seq):
                    sequences.append({'case': case, 'items': seq})
        elif re.match(r'^/wp-json/tribe/events/v1/venues(/by-slug/[^/]+|/\d+)?$', path):
            if 'venues' in body and isinstance(body['venues'], list):
                for v in body['venues']:
                    venue_record(v, case, None, True)
            elif 'id' in body:
                venue_record(body, case, None)
        elif re.match(r'^/wp-json/tribe/events/v1/organizers(/by-slug/[^/]+|/\d+)?$', path):
            if 'organizers' in body and isinstance(body['organizers'], list):
                for o in body['organizers']:
                    organizer_record(o, case, None, True)
            elif 'id' in body:
                organizer_record(body, case, None)

    # Slugs WordPress generated from titles (wp_unique_post_slug may append -N).
    slugs = {}
    for p in list(fixture_posts.values()):
        if p['post_type'] in ('tribe_events', 'tribe_venue', 'tribe_organizer') and p['post_name']:
            slugs[(p['post_title'], p['post_name'])] = True
    for line in open(os.path.join(SITE, 'cases.jsonl'), encoding='utf-8'):
        d = json.loads(line)
        b = d['request'].get('body')
        if isinstance(b, dict) and 'slug' in b:
            continue
        for ch in (d.get('db_changes') or {}).get('wp_posts', []):
            row = ch['row']
            if ch['op'] == 'insert' and row.get('post_type') in ('tribe_events', 'tribe_venue', 'tribe_organizer') \
                    and row.get('post_name') and row.get('post_status') == 'publish':
                slugs[(row['post_title'], row['post_name'])] = True
    for (title, name) in sorted(slugs):
        name = name[:-len('__trashed')] if name.endswith('__trashed') else name
        # Skip hand-picked slugs (no word in common with the title).
        words = set(re.findall(r'[a-z0-9]+', title.lower()))
        if not words & set(name.split('-')):
            continue
        vec.add('slug', raw=title, want=name)

    out = vec.dump()
    uniq = {}
    for sq in sequences:
        # Only the order of shortcode-bearing items matters for the instance
        # counters: drop the tail after the last one and keep sequences that
        # render at least two of them.
        items = sq['items']
        last = max(i for i, it in enumerate(items) if '[' in it['raw'])
        items = items[:last + 1]
        if sum('[' in it['raw'] for it in items) < 2:
            continue
        sq = {'case': sq['case'], 'items': items}
        key = json.dumps(items, sort_keys=True, ensure_ascii=False)
        uniq.setdefault(key, sq)
    # Keep a handful: the ones that render the most shortcodes, one per count.
    seqs = sorted(uniq.values(), key=lambda sq: (-sum('[' in it['raw'] for it in sq['items']), sq['case']))
    kept, counts = [], set()
    for sq in seqs:
        n = sum('[' in it['raw'] for it in sq['items'])
        if n in counts:
            continue
        counts.add(n)
        kept.append(sq)
    out['content_sequences'] = kept[:12]
    with open(OUT, 'w', encoding='utf-8') as f:
        json.dump(out, f, ensure_ascii=False, indent=1, sort_keys=True)
        f.write('\n')
    for k, v in out.items():
        print(k, len(v))


if __name__ == '__main__':
    main()
