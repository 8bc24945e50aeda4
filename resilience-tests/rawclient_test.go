package resiliencetests

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"strconv"
	"strings"
	"time"
)

// A raw HTTP/1.1 client: the hostile requests need request lines and headers no well-behaved client
// sends (invalid UTF-8 and %-sequences in the target, odd methods, conflicting framing), so requests
// are written byte for byte and answers read with net/http's response parser, on keep-alive
// connections as a browser or a crawler would hold them.

// hreq is one generated request.
type hreq struct {
	kind    string // what the generator meant to try (statistics and failure messages)
	method  string
	target  string   // the request-target, sent as is
	headers []string // raw header lines ("Name: value"), after Host
	noHost  bool     // send no Host header
	body    func() io.Reader
	length  int64 // body length; -1: chunked
	// transport: the request is malformed at the HTTP level, so Go's server may refuse it itself with a
	// bare 400 (as nginx would refuse it with its own page) before calendard sees it.
	transport bool
	// unsupportedTE: a Transfer-Encoding other than chunked, which Go's server answers with a bare 501
	// Not Implemented itself (so do nginx and Apache); counted apart, never reaches calendard.
	unsupportedTE bool
}

func (r *hreq) String() string {
	t := r.target
	if len(t) > 160 {
		t = t[:160] + fmt.Sprintf("…(%d bytes)", len(r.target))
	}
	return fmt.Sprintf("[%s] %.40q %q", r.kind, r.method, t)
}

// rawResp is an answer read whole.
type rawResp struct {
	status int
	header http.Header
	body   []byte
	took   time.Duration
}

// rawClient holds one keep-alive connection to addr.
type rawClient struct {
	addr string
	auth string // Authorization header value added to requests that carry none ("" anonymous)
	conn net.Conn
	br   *bufio.Reader
}

func (c *rawClient) close() {
	if c.conn != nil {
		c.conn.Close()
		c.conn = nil
	}
}

// maxAnswer bounds what the client reads of one answer (the namespace index is the largest: 60 KB).
const maxAnswer = 64 << 20

// do sends r and reads its answer. The body is written while the answer is read, so an answer sent
// before the body was read (413 for a declared length) is seen even if the server then closes.
func (c *rawClient) do(r *hreq, timeout time.Duration) (*rawResp, error) {
	if c.conn == nil {
		conn, err := net.DialTimeout("tcp", c.addr, 5*time.Second)
		if err != nil {
			return nil, err
		}
		c.conn, c.br = conn, bufio.NewReaderSize(conn, 64<<10)
	}
	start := time.Now()
	_ = c.conn.SetDeadline(start.Add(timeout))
	var head bytes.Buffer
	fmt.Fprintf(&head, "%s %s HTTP/1.1\r\n", r.method, r.target)
	if !r.noHost {
		fmt.Fprintf(&head, "Host: %s\r\n", c.addr)
	}
	hasAuth := false
	for _, h := range r.headers {
		head.WriteString(h)
		head.WriteString("\r\n")
		if len(h) > 14 && strings.EqualFold(h[:14], "authorization:") {
			hasAuth = true
		}
	}
	if c.auth != "" && !hasAuth {
		head.WriteString("Authorization: " + c.auth + "\r\n")
	}
	var body io.Reader
	if r.body != nil {
		body = r.body()
		if r.length < 0 {
			head.WriteString("Transfer-Encoding: chunked\r\n")
		} else {
			head.WriteString("Content-Length: " + strconv.FormatInt(r.length, 10) + "\r\n")
		}
	}
	head.WriteString("\r\n")
	conn := c.conn
	wrote := make(chan error, 1)
	go func() {
		if _, err := conn.Write(head.Bytes()); err != nil {
			wrote <- err
			return
		}
		if body == nil {
			wrote <- nil
			return
		}
		if r.length < 0 {
			cw := httputil.NewChunkedWriter(conn)
			if _, err := io.Copy(cw, body); err != nil {
				wrote <- err
				return
			}
			if err := cw.Close(); err != nil {
				wrote <- err
				return
			}
			_, err := io.WriteString(conn, "\r\n")
			wrote <- err
			return
		}
		_, err := io.Copy(conn, body)
		wrote <- err
	}()
	resp, err := http.ReadResponse(c.br, &http.Request{Method: r.method})
	for err == nil && resp.StatusCode >= 100 && resp.StatusCode < 200 && resp.StatusCode != 101 {
		resp, err = http.ReadResponse(c.br, &http.Request{Method: r.method}) // 100 Continue, then the answer
	}
	if err != nil {
		c.close()
		<-wrote
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	resp.Body.Close()
	out := &rawResp{status: resp.StatusCode, header: resp.Header, body: b, took: time.Since(start)}
	if err != nil {
		c.close()
		<-wrote
		return out, fmt.Errorf("reading the answer: %w", err)
	}
	// The connection is reused only when the whole request went out and the server keeps it.
	werr := <-wrote
	if werr != nil || resp.Close || r.transport {
		c.close()
	}
	return out, nil
}
