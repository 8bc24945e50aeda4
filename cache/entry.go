package cache

import (
	"encoding/binary"
	"errors"
	"sync/atomic"
)

// Stamp is what an entry was computed for: the calendar's generation and, for answers that
// depend on the clock, the second they were computed at (0 for the others). An entry is served
// only to a request with the same stamp.
type Stamp struct {
	Gen   uint64
	Clock int64
}

// Header is one response header as it was sent.
type Header struct{ Name, Value string }

// Entry is one whole answer: the exact bytes and headers sent, its ETag, and the same body
// gzip-compressed when it is worth compressing.
type Entry struct {
	Stamp  Stamp
	Status int
	Header []Header
	Body   []byte
	Gzip   []byte // nil: not compressed (small body)
	ETag   string
	// Route names the route that answered, for the metrics of a hit served before routing.
	Route string

	// prepared is what the HTTP layer derives from the entry once (the headers as it writes
	// them), so that serving a kept entry allocates nothing; never sent to Redis.
	prepared atomic.Value
}

// fresh reports whether the entry may answer a request in second now: an answer that depends on
// the clock (Stamp.Clock set) only within the second it was computed in.
func (e *Entry) fresh(now int64) bool { return e.Stamp.Clock == 0 || e.Stamp.Clock == now }

// Prepared returns what SetPrepared stored (nil: nothing yet).
func (e *Entry) Prepared() any { return e.prepared.Load() }

// SetPrepared keeps what the HTTP layer derived from the entry. Concurrent callers must store
// equivalent values (any of them may win).
func (e *Entry) SetPrepared(v any) { e.prepared.Store(v) }

// weight is the entry's approximate size in memory.
func (e *Entry) weight() uint32 {
	n := 160 + len(e.Body) + len(e.Gzip) + len(e.ETag) + len(e.Route)
	for _, h := range e.Header {
		n += 32 + len(h.Name) + len(h.Value)
	}
	return uint32(min(n, 1<<31))
}

// entryMagic names the encoding; entries of another one are treated as absent.
const entryMagic = "c2"

// encode serialises the entry for Redis: a version tag, then varints and length-prefixed bytes.
func (e *Entry) encode() []byte {
	b := make([]byte, 0, 64+len(e.Body)+len(e.Gzip)+len(e.Header)*48)
	b = append(b, entryMagic...)
	b = binary.AppendUvarint(b, e.Stamp.Gen)
	b = binary.AppendVarint(b, e.Stamp.Clock)
	b = binary.AppendUvarint(b, uint64(e.Status))
	b = binary.AppendUvarint(b, uint64(len(e.Header)))
	for _, h := range e.Header {
		b = appendBytes(b, []byte(h.Name))
		b = appendBytes(b, []byte(h.Value))
	}
	b = appendBytes(b, []byte(e.ETag))
	b = appendBytes(b, []byte(e.Route))
	b = appendBytes(b, e.Body)
	b = appendBytes(b, e.Gzip)
	if e.Gzip == nil {
		b = append(b, 0)
	} else {
		b = append(b, 1)
	}
	return b
}

func appendBytes(b, v []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

var errCorrupt = errors.New("cache: corrupt entry")

// decodeEntry reads what encode wrote; anything else (another version, a truncated value) is an
// error and the entry is treated as absent.
func decodeEntry(b []byte) (*Entry, error) {
	d := decoder{b: b}
	if len(b) < len(entryMagic) || string(b[:len(entryMagic)]) != entryMagic {
		return nil, errCorrupt
	}
	d.b = d.b[len(entryMagic):]
	e := &Entry{}
	e.Stamp.Gen = d.uvarint()
	e.Stamp.Clock = d.varint()
	e.Status = int(d.uvarint())
	n := d.uvarint()
	if n > 1000 {
		return nil, errCorrupt
	}
	e.Header = make([]Header, 0, n)
	for i := uint64(0); i < n; i++ {
		e.Header = append(e.Header, Header{string(d.bytes()), string(d.bytes())})
	}
	e.ETag = string(d.bytes())
	e.Route = string(d.bytes())
	e.Body = d.bytes()
	e.Gzip = d.bytes()
	if len(d.b) != 1 || d.err {
		return nil, errCorrupt
	}
	if d.b[0] == 0 {
		e.Gzip = nil
	}
	return e, nil
}

type decoder struct {
	b   []byte
	err bool
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) bytes() []byte {
	n := d.uvarint()
	if d.err || n > uint64(len(d.b)) {
		d.err, d.b = true, nil
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}
