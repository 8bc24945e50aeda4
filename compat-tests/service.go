package compattests

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/calendard/calendard/internal/testenv"
)

// BuildBinary compiles cmd/calendard into dir.
func BuildBinary(dir string) (string, error) {
	return testenv.BuildCalendard(dir)
}

// Service is a running calendard process.
type Service struct {
	Base   string // http://127.0.0.1:PORT
	Now    string
	cmd    *exec.Cmd
	stderr *testenv.SyncBuffer
	exited chan struct{}
}

// StartService runs the binary with the service contract's variables and waits for /healthz.
func StartService(bin string, port int, env map[string]string) (*Service, error) {
	s := &Service{Base: "http://127.0.0.1:" + strconv.Itoa(port), Now: env["CALENDAR_NOW"], stderr: &testenv.SyncBuffer{}}
	s.cmd = exec.Command(bin, "serve")
	s.cmd.Env = append(os.Environ(), "CALENDAR_LISTEN=127.0.0.1:"+strconv.Itoa(port))
	for k, v := range env {
		s.cmd.Env = append(s.cmd.Env, k+"="+v)
	}
	s.cmd.Stderr = s.stderr
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan struct{})
	go func() {
		_ = s.cmd.Wait()
		close(exited)
	}()
	s.exited = exited
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		// Only this process may answer: it says it holds the port once it has bound it (a port
		// FreePort chose can be taken by another test's server meanwhile, whose answers would be
		// another clock's and another database's).
		select {
		case <-exited:
			return nil, fmt.Errorf("calendard exited before it listened:\n%s", s.stderr.String())
		default:
		}
		if !strings.Contains(s.stderr.String(), "calendard listening") {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		resp, err := http.Get(s.Base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return s, nil
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.Stop()
	return nil, fmt.Errorf("calendard did not become healthy:\n%s", s.stderr.String())
}

// Stop terminates the process.
func (s *Service) Stop() {
	if s == nil {
		return
	}
	if s.exited == nil {
		testenv.Interrupt(s.cmd, 10*time.Second)
		return
	}
	// The process is already being waited for (StartService): signal it and wait on that.
	_ = s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.exited:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
}

// Answer is a decoded HTTP response.
type Answer struct {
	Status  int
	Headers http.Header
	Body    any
	Raw     []byte
}

var client = &http.Client{Timeout: 30 * time.Second}

// Do sends a case's request with the given namespace spelling.
func (s *Service) Do(ctx context.Context, set *Set, c *Case, ns string) (*Answer, error) {
	path, rawQuery := c.Respell(ns)
	u := s.Base + path
	if rawQuery != "" {
		u += "?" + rawQuery
	}
	var body io.Reader
	headers := map[string]string{}
	for k, v := range c.Request.Headers {
		headers[k] = v
	}
	if len(c.Request.Body) > 0 && string(c.Request.Body) != "null" {
		var form struct {
			Form [][2]string `json:"form"`
		}
		if json.Unmarshal(c.Request.Body, &form) == nil && form.Form != nil {
			parts := make([]string, 0, len(form.Form))
			for _, kv := range form.Form {
				parts = append(parts, urlQueryEscape(kv[0])+"="+urlQueryEscape(kv[1]))
			}
			body = strings.NewReader(strings.Join(parts, "&"))
			if _, ok := headers["Content-Type"]; !ok {
				headers["Content-Type"] = "application/x-www-form-urlencoded"
			}
		} else {
			body = bytes.NewReader(c.Request.Body)
		}
	}
	req, err := http.NewRequestWithContext(ctx, c.Request.Method, u, body)
	if err != nil {
		return nil, err
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	if c.Request.Auth != nil {
		cred := *c.Request.Auth + ":" + set.AppPassword(*c.Request.Auth)
		req.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(cred)))
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	a := &Answer{Status: resp.StatusCode, Headers: resp.Header, Raw: raw}
	if len(raw) > 0 {
		if a.Body, err = decode(raw); err != nil {
			return a, fmt.Errorf("response is not JSON: %v: %.200s", err, raw)
		}
	}
	return a, nil
}

func urlQueryEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' || c == '~' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// Log is what the service has written to its standard error so far.
func (s *Service) Log() string { return s.stderr.String() }
