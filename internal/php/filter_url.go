package php

import "strings"

// FilterValidateURL is filter_var($s, FILTER_VALIDATE_URL) without flags (PHP 8.2,
// ext/filter/logical_filters.c php_filter_validate_url): only characters FILTER_SANITIZE_URL keeps,
// a URL parse_url() accepts, a scheme, a host for every scheme but mailto/news/file, a valid host
// name for http(s), and userinfo made of RFC 3986 characters.
func FilterValidateURL(s string) bool {
	for i := 0; i < len(s); i++ {
		if !urlSafeByte(s[i]) {
			return false
		}
	}
	u, ok := parseURL(s)
	if !ok {
		return false
	}
	if u.hasScheme && (strings.EqualFold(u.scheme, "http") || strings.EqualFold(u.scheme, "https")) {
		if !u.hasHost {
			return false
		}
		// A bracketed IPv6 address stands in for a host name; userinfo is still checked below.
		h := u.host
		ipv6 := len(h) >= 2 && h[0] == '[' && h[len(h)-1] == ']' && validIPv6(h[1:len(h)-1])
		if !ipv6 && !validHostname(h) {
			return false
		}
	}
	if !u.hasScheme {
		return false
	}
	if !u.hasHost && u.scheme != "mailto" && u.scheme != "news" && u.scheme != "file" {
		return false
	}
	if (u.hasUser && !validUserinfo(u.user)) || (u.hasPass && !validUserinfo(u.pass)) {
		return false
	}
	return true
}

// urlSafeByte reports the characters FILTER_SANITIZE_URL keeps: letters, digits and
// $-_.+!*'(),{}|\^~[]`<>#%";/?:@&=.
func urlSafeByte(c byte) bool {
	if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
		return true
	}
	return strings.IndexByte("$-_.+!*'(),{}|\\^~[]`<>#%\";/?:@&=", c) >= 0
}

type parsedURL struct {
	scheme, host, user, pass   string
	hasScheme, hasHost         bool
	hasUser, hasPass, portSeen bool
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isAlnum(c byte) bool { return isAlpha(c) || isDigit(c) }

// parseURL follows php_url_parse_ex2 as far as the scheme, userinfo and host go (path, query and
// fragment never make it fail).
func parseURL(str string) (*parsedURL, bool) {
	u := &parsedURL{}
	s, ue := 0, len(str)
	e := strings.IndexByte(str, ':')

	// parsePort handles "host:port" forms without a scheme; next says where to continue.
	parsePort := func(e int) (next string, ok bool) {
		p := e + 1
		pp := p
		for pp < ue && pp-p < 6 && isDigit(str[pp]) {
			pp++
		}
		switch {
		case pp-p > 0 && pp-p < 6 && (pp == ue || str[pp] == '/'):
			port := atoiPrefix(str[p:pp])
			if port < 0 || port > 65535 {
				return "", false
			}
			u.portSeen = true
			if s+1 < ue && str[s] == '/' && str[s+1] == '/' {
				s += 2
			}
			return "host", true
		case p == pp && pp == ue:
			return "", false
		case s+1 < ue && str[s] == '/' && str[s+1] == '/':
			s += 2
			return "host", true
		}
		return "path", true
	}

	next := ""
	if e > 0 {
		bad := false
		for p := 0; p < e; p++ {
			c := str[p]
			if !isAlpha(c) && !isDigit(c) && c != '+' && c != '.' && c != '-' {
				bad = true
				break
			}
		}
		if bad {
			// binary_strchr() returns NULL without a "?", and e < NULL is false.
			q := strings.IndexByte(str, '?')
			switch {
			case e+1 < ue && q >= 0 && e < q:
				var ok bool
				if next, ok = parsePort(e); !ok {
					return nil, false
				}
			case s+1 < ue && str[s] == '/' && str[s+1] == '/':
				s += 2
				next = "host"
			default:
				next = "path"
			}
		} else if e+1 == ue {
			u.scheme, u.hasScheme = str[:e], true
			return u, true
		} else if str[e+1] != '/' {
			p := e + 1
			for p < ue && isDigit(str[p]) {
				p++
			}
			if (p == ue || str[p] == '/') && p-e < 7 {
				var ok bool
				if next, ok = parsePort(e); !ok {
					return nil, false
				}
			} else {
				u.scheme, u.hasScheme = str[:e], true
				return u, true // the rest is a path
			}
		} else {
			u.scheme, u.hasScheme = str[:e], true
			if e+2 < ue && str[e+2] == '/' {
				s = e + 3
				if strings.EqualFold(u.scheme, "file") && e+3 < ue && str[e+3] == '/' {
					return u, true // file:///path
				}
				next = "host"
			} else {
				return u, true // scheme:/path
			}
		}
	} else if e == 0 {
		var ok bool
		if next, ok = parsePort(e); !ok {
			return nil, false
		}
	} else if s+1 < ue && str[s] == '/' && str[s+1] == '/' {
		s += 2
		next = "host"
	} else {
		next = "path"
	}
	if next == "path" {
		return u, true
	}

	// parse_host
	end := s + strcspnAny(str[s:], "/?#")
	auth := str[s:end]
	if at := strings.LastIndexByte(auth, '@'); at >= 0 {
		userinfo := auth[:at]
		if c := strings.IndexByte(userinfo, ':'); c >= 0 {
			u.user, u.hasUser = userinfo[:c], true
			u.pass, u.hasPass = userinfo[c+1:], true
		} else {
			u.user, u.hasUser = userinfo, true
		}
		s += at + 1
		auth = str[s:end]
	}
	hostEnd := len(auth)
	if !(len(auth) > 0 && auth[0] == '[' && auth[len(auth)-1] == ']') {
		if c := strings.LastIndexByte(auth, ':'); c >= 0 {
			if !u.portSeen {
				port := auth[c+1:]
				if len(port) > 5 {
					return nil, false
				}
				if len(port) > 0 {
					if n := atoiPrefix(port); n < 0 || n > 65535 {
						return nil, false
					}
				}
			}
			hostEnd = c
		}
	}
	if hostEnd < 1 {
		return nil, false
	}
	u.host, u.hasHost = auth[:hostEnd], true
	return u, true
}

// atoiPrefix is strtol(s, &end, 10) on a short buffer: the leading integer, or -1 when none.
func atoiPrefix(s string) int {
	i, neg := 0, false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	start, n := i, 0
	for i < len(s) && isDigit(s[i]) {
		n = n*10 + int(s[i]-'0')
		i++
	}
	if i == start {
		return -1
	}
	if neg {
		return -n
	}
	return n
}

func strcspnAny(s, set string) int {
	if i := strings.IndexAny(s, set); i >= 0 {
		return i
	}
	return len(s)
}

// validHostname is _php_filter_validate_domain with FILTER_FLAG_HOSTNAME. A trailing dot is ignored
// but still seen as the character after the last label (as the C code reads past its end pointer).
func validHostname(d string) bool {
	e := len(d)
	if e > 0 && d[e-1] == '.' {
		e--
	}
	if e > 253 || len(d) == 0 || !isAlnum(d[0]) {
		return false
	}
	at := func(i int) byte { // *(s + i), with the terminating NUL
		if i < len(d) {
			return d[i]
		}
		return 0
	}
	label := 1
	for i := 0; i < e; i++ {
		c := d[i]
		if c == '.' {
			if at(i+1) == '.' || !isAlnum(d[i-1]) || !isAlnum(at(i+1)) {
				return false
			}
			label = 1
			continue
		}
		if label > 63 || ((c != '-' || at(i+1) == 0) && !isAlnum(c)) {
			return false
		}
		label++
	}
	return true
}

// validUserinfo is is_userinfo_valid: unreserved, sub-delims, ":" and %XX escapes.
func validUserinfo(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isAlnum(c) || strings.IndexByte("-._~!$&'()*+,;=:", c) >= 0:
		case c == '%' && i+2 < len(s) && isHexDigit(s[i+1]) && isHexDigit(s[i+2]):
			i += 2
		default:
			return false
		}
	}
	return true
}

func isHexDigit(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// validIPv6 is _php_filter_validate_ipv6 (hex groups, one "::", an optional trailing IPv4).
func validIPv6(s string) bool {
	if s == "" {
		return false
	}
	if i := strings.LastIndexByte(s, ':'); i >= 0 && strings.IndexByte(s[i:], '.') >= 0 {
		if !validIPv4(s[i+1:]) {
			return false
		}
		s = s[:i+1] + "0:0"
	}
	if strings.Count(s, "::") > 1 {
		return false
	}
	compressed := strings.Contains(s, "::")
	groups := 0
	for _, part := range strings.Split(strings.Replace(s, "::", ":x:", 1), ":") {
		if part == "x" {
			continue
		}
		if part == "" {
			if compressed {
				continue
			}
			return false
		}
		if len(part) > 4 {
			return false
		}
		for i := 0; i < len(part); i++ {
			if !isHexDigit(part[i]) {
				return false
			}
		}
		groups++
	}
	if compressed {
		return groups < 8
	}
	return groups == 8
}

func validIPv4(s string) bool {
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return false
	}
	for _, p := range parts {
		if p == "" || len(p) > 3 || (len(p) > 1 && p[0] == '0') {
			return false
		}
		n := 0
		for i := 0; i < len(p); i++ {
			if !isDigit(p[i]) {
				return false
			}
			n = n*10 + int(p[i]-'0')
		}
		if n > 255 {
			return false
		}
	}
	return true
}
