package handlers

import (
	"bufio"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/internal/php"
	"github.com/calendard/calendard/internal/phpjson"
)

// Limits on what one request, and all requests together, may make the service hold. PHP bounds each
// request by memory_limit, max_input_vars and post_max_size, and php-fpm bounds how many run at once;
// calendard bounds the same things explicitly (docs/reliability.md).
const (
	defaultMaxBodyBytes    = 8 << 20
	defaultMaxBodyValues   = 10000
	defaultMaxDecodedBytes = 16 << 20
	defaultBodyMemory      = 64 << 20
	defaultBodyTimeout     = 30 * time.Second
	defaultMaxURIBytes     = 8 << 10
	defaultDBTimeout       = 5 * time.Second

	// formVarCost is the fixed cost charged per form variable, besides its name and value.
	formVarCost = 64
	// busyRetryAfter is the Retry-After of a 503 for a full body budget, in seconds.
	busyRetryAfter = "1"
)

// bodyPool is the process-wide budget of request-body bytes in flight: bytes being read, and the
// estimated size of the values decoded from them, of every request still running. A request that
// cannot get its share is answered 503 at once instead of waiting.
type bodyPool struct {
	limit int64 // <= 0: no limit
	used  atomic.Int64
}

func (p *bodyPool) take(n int64) bool {
	if p.limit <= 0 {
		return true
	}
	for {
		cur := p.used.Load()
		if cur+n > p.limit {
			return false
		}
		if p.used.CompareAndSwap(cur, cur+n) {
			return true
		}
	}
}

func (p *bodyPool) give(n int64) {
	if p.limit > 0 && n > 0 {
		p.used.Add(-n)
	}
}

// Errors a body budget stops reading with.
var (
	errBodyBusy       = errors.New("request body budget of the process exhausted")
	errBodyTooComplex = errors.New("request body exceeds the per-request decode budget")
)

// bodyBudget is one request's share: what it holds of the pool (given back when the request ends)
// and its own decode budget (values and decoded bytes, like PHP's max_input_vars and memory_limit).
type bodyBudget struct {
	pool            *bodyPool
	held            int64
	values          int
	maxValues       int
	decoded         int64
	maxDecodedBytes int64
}

// charge takes n bytes from the pool for this request.
func (b *bodyBudget) charge(n int64) error {
	if !b.pool.take(n) {
		return errBodyBusy
	}
	b.held += n
	return nil
}

// value accounts for one decoded value of the given estimated size.
func (b *bodyBudget) value(size int) error {
	b.values++
	b.decoded += int64(size)
	if (b.maxValues > 0 && b.values > b.maxValues) || (b.maxDecodedBytes > 0 && b.decoded > b.maxDecodedBytes) {
		return errBodyTooComplex
	}
	return b.charge(int64(size))
}

// release gives the request's share back to the pool.
func (b *bodyBudget) release() {
	b.pool.give(b.held)
	b.held = 0
}

// bodyReader reads a request body under the size limit, charging the bytes it reads to the budget
// (unless the whole declared length was charged up front) and remembering the first failure.
type bodyReader struct {
	r      io.Reader
	budget *bodyBudget
	charge bool
	err    error
}

func (br *bodyReader) Read(p []byte) (int, error) {
	if br.err != nil {
		return 0, br.err
	}
	n, err := br.r.Read(p)
	if n > 0 && br.charge {
		if cerr := br.budget.charge(int64(n)); cerr != nil {
			br.err = cerr
			return 0, cerr
		}
	}
	if err != nil && err != io.EOF {
		br.err = err
	}
	return n, err
}

// drain reads the rest of the body without keeping or charging it, so the size and time limits hold
// for parts of a body nobody parses (as PHP reads a whole body it then ignores).
func (br *bodyReader) drain(r io.Reader) {
	br.charge = false
	_, _ = io.Copy(io.Discard, r)
}

// bodyError turns a failed body read into its answer.
func bodyError(err error, maxValues int) *calendard.Error {
	var mbe *http.MaxBytesError
	switch {
	case errors.Is(err, errBodyBusy):
		return &calendard.Error{Code: "rest_server_busy", Status: 503,
			Message: "The server is busy with other requests. Please try again shortly."}
	case errors.Is(err, errBodyTooComplex):
		return &calendard.Error{Code: "rest_request_too_complex", Status: 400,
			Message: "The request body holds too many values (at most " + strconv.Itoa(maxValues) + ") or is too large once decoded."}
	case errors.As(err, &mbe):
		return errBodyTooLarge
	case errors.Is(err, os.ErrDeadlineExceeded):
		return &calendard.Error{Code: "rest_request_timeout", Status: 408,
			Message: "The request body was not received in time."}
	}
	return &calendard.Error{Code: "rest_request_body_incomplete", Status: 400, Message: "The request body could not be read."}
}

var errBodyTooLarge = &calendard.Error{Code: "rest_request_too_large", Message: "The request body is too large.", Status: 413}

// bodyFailure is the response to a body that could not be read: the connection closes after it
// (the rest of the body is not read), and a busy answer says when to come back.
func bodyFailure(e *calendard.Error) *Response {
	resp := &Response{Status: e.Status, Body: errorBody(e)}
	if e.Status == 503 {
		resp.Header("Retry-After", busyRetryAfter)
	}
	return resp.Header("Connection", "close")
}

// After refusing a body, the service keeps reading (and dropping) what the client still sends, so
// that the client gets to read the answer before the connection closes: as nginx's lingering
// close, for up to lingerTime in all, lingerIdle without a byte, and lingerBytes.
const (
	lingerTime  = 30 * time.Second
	lingerIdle  = 5 * time.Second
	lingerBytes = 16 << 20
)

// linger is nginx's lingering close: the answer is flushed, then the rest of the body is read and
// thrown away, holding no memory. Without it, a client still writing when the connection closes
// gets a reset that can swallow the answer (on a busy machine a client sending megabytes is still
// writing seconds after the answer).
func (s *Server) linger(c *gin.Context) {
	c.Writer.Flush()
	if c.Request.Body == nil {
		return
	}
	rc := http.NewResponseController(c.Writer)
	end := time.Now().Add(lingerTime)
	for left := int64(lingerBytes); left > 0; {
		deadline := time.Now().Add(lingerIdle)
		if deadline.After(end) {
			deadline = end
		}
		if rc.SetReadDeadline(deadline) != nil {
			return
		}
		n, err := io.CopyN(io.Discard, c.Request.Body, min(left, 64<<10))
		left -= n
		if err != nil || time.Now().After(end) {
			return
		}
	}
}

// readBody parses JSON and form bodies into the request's parameter sources, as they stream in:
// nothing but the decoded values is kept, a body whose size is declared is charged to the process
// budget before any of it is read, and the decoding stops as soon as a budget is exceeded.
func (s *Server) readBody(c *gin.Context, req *Request, budget *bodyBudget) *calendard.Error {
	req.json, req.body = phpjson.NewObject(), phpjson.NewObject()
	ct := strings.ToLower(strings.TrimSpace(strings.Split(c.GetHeader("Content-Type"), ";")[0]))
	req.isJSON = ct == "application/json"
	if c.Request.Body == nil || c.Request.Body == http.NoBody || c.Request.ContentLength == 0 {
		return nil
	}
	if c.Request.ContentLength > s.cfg.MaxBodyBytes {
		return errBodyTooLarge
	}
	br := &bodyReader{r: http.MaxBytesReader(c.Writer, c.Request.Body, s.cfg.MaxBodyBytes), budget: budget, charge: true}
	if c.Request.ContentLength > 0 {
		if err := budget.charge(c.Request.ContentLength); err != nil {
			return bodyError(err, s.cfg.MaxBodyValues)
		}
		br.charge = false
	}
	if s.cfg.BodyTimeout > 0 {
		// The whole body must arrive in time; a slow one is refused as such, not as a large one.
		rc := http.NewResponseController(c.Writer)
		if rc.SetReadDeadline(time.Now().Add(s.cfg.BodyTimeout)) == nil {
			defer func() {
				if br.err == nil {
					// Read in time: the deadline must not cut the connection's later reads short.
					_ = rc.SetReadDeadline(time.Time{})
				}
			}()
		}
	}
	in := bufio.NewReaderSize(br, 16<<10)
	if _, err := in.Peek(1); err != nil {
		if br.err != nil {
			return bodyError(br.err, s.cfg.MaxBodyValues)
		}
		return nil // empty
	}
	var parseErr error
	switch {
	case req.isJSON:
		v, err := phpjson.DecodeReader(in, budget.value)
		var se *phpjson.SyntaxError
		switch {
		case br.err != nil:
			parseErr = br.err
		case errors.As(err, &se):
			req.jsonErr = se
		case err != nil:
			parseErr = err
		default:
			// Only a JSON object supplies named parameters (json_decode to an array).
			if o, ok := normalizeLists(v).(*phpjson.Object); ok {
				req.json = o
			}
		}
	case ct == "application/x-www-form-urlencoded" || ct == "":
		o, err := parseFormStream(in, budget)
		if parseErr = err; err == nil {
			br.drain(in)
			if o, ok := normalizeLists(o).(*phpjson.Object); ok {
				req.body = o
			}
		}
	case ct == "multipart/form-data":
		o, err := parseMultipartStream(in, c.GetHeader("Content-Type"), budget)
		if parseErr = err; err == nil {
			br.drain(in)
			if o, ok := normalizeLists(o).(*phpjson.Object); ok {
				req.body = o
			}
		}
	default:
		br.drain(in)
	}
	if parseErr == nil {
		parseErr = br.err
	}
	if parseErr != nil {
		return bodyError(parseErr, s.cfg.MaxBodyValues)
	}
	return nil
}

// parseFormStream is parseQuery over a body read pair by pair: PHP's max_input_vars ends the
// parsing (the rest is not kept), and every variable is charged to the budget.
func parseFormStream(in *bufio.Reader, budget *bodyBudget) (*phpjson.Object, error) {
	vars := newPHPVars()
	for {
		pair, err := in.ReadString('&')
		pair = strings.TrimSuffix(pair, "&")
		if pair != "" {
			k, v, _ := strings.Cut(pair, "=")
			if cerr := budget.value(formVarCost + len(k) + len(v)); cerr != nil {
				return nil, cerr
			}
			if !vars.add(php.URLDecode(k), php.URLDecode(v)) {
				return vars.root, nil
			}
		}
		if err == io.EOF {
			return vars.root, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// parseMultipartStream is parseMultipart over the streamed body: fields in order, file parts left
// out, the same input limits; a malformed body yields the fields read before the damage.
func parseMultipartStream(in io.Reader, contentType string, budget *bodyBudget) (*phpjson.Object, error) {
	vars := newPHPVars()
	_, params, err := mime.ParseMediaType(contentType)
	if err != nil || params["boundary"] == "" {
		return vars.root, nil
	}
	mr := multipart.NewReader(in, params["boundary"])
	for {
		part, err := mr.NextPart()
		if err != nil {
			return vars.root, nil
		}
		if part.FileName() != "" || part.FormName() == "" {
			continue
		}
		value, err := io.ReadAll(part)
		if err != nil {
			return vars.root, nil
		}
		if cerr := budget.value(formVarCost + len(part.FormName()) + len(value)); cerr != nil {
			return nil, cerr
		}
		if !vars.add(part.FormName(), string(value)) {
			return vars.root, nil
		}
	}
}

// limitURI refuses a request line longer than the limit with 414, as nginx and Apache in front of
// WordPress do (nginx: large_client_header_buffers, 8 KiB by default).
func (s *Server) limitURI() gin.HandlerFunc {
	return func(c *gin.Context) {
		if s.cfg.MaxURIBytes > 0 && len(c.Request.RequestURI) > s.cfg.MaxURIBytes {
			c.Abort()
			e := &calendard.Error{Code: "rest_uri_too_long", Status: 414,
				Message: "The request URI is too long (at most " + strconv.Itoa(s.cfg.MaxURIBytes) + " bytes)."}
			writeJSON(c, 414, errorBody(e), append(baseHeaders(nil), calendard.KV{Key: "Connection", Value: "close"}))
			return
		}
		c.Next()
	}
}
