package wptext

import (
	"strings"
)

// parsedBlock mirrors WP_Block_Parser_Block. name is "" for freeform HTML.
type parsedBlock struct {
	name         string
	attrsJSON    string
	innerBlocks  []*parsedBlock
	innerHTML    string
	innerContent []*string // nil entries mark inner block positions
}

type blockFrame struct {
	block            *parsedBlock
	tokenStart       int
	tokenLength      int
	prevOffset       int
	leadingHTMLStart int // -1 when absent
}

type blockParser struct {
	doc    string
	offset int
	output []*parsedBlock
	stack  []*blockFrame
}

// hasBlocks mirrors has_blocks() for strings.
func hasBlocks(s string) bool { return strings.Contains(s, "<!-- wp:") }

// parseBlocks mirrors parse_blocks() / WP_Block_Parser::parse().
func parseBlocks(doc string) []*parsedBlock {
	p := &blockParser{doc: doc}
	for p.proceed() {
	}
	return p.output
}

func freeform(html string) *parsedBlock {
	h := html
	return &parsedBlock{innerHTML: html, innerContent: []*string{&h}}
}

type blockToken struct {
	kind        string // no-more-tokens, void-block, block-opener, block-closer
	name, attrs string
	start, len  int
}

func (p *blockParser) proceed() bool {
	t := p.nextToken()
	depth := len(p.stack)
	leading := -1
	if t.start > p.offset {
		leading = p.offset
	}
	switch t.kind {
	case "no-more-tokens":
		if depth == 0 {
			p.addFreeform(-1)
			return false
		}
		if depth == 1 {
			p.addBlockFromStack(-1)
			return false
		}
		for len(p.stack) > 0 {
			p.addBlockFromStack(-1)
		}
		return false
	case "void-block":
		b := &parsedBlock{name: t.name, attrsJSON: t.attrs}
		if depth == 0 {
			if leading >= 0 {
				p.output = append(p.output, freeform(p.doc[leading:t.start]))
			}
			p.output = append(p.output, b)
			p.offset = t.start + t.len
			return true
		}
		p.addInnerBlock(b, t.start, t.len, -1)
		p.offset = t.start + t.len
		return true
	case "block-opener":
		p.stack = append(p.stack, &blockFrame{
			block: &parsedBlock{name: t.name, attrsJSON: t.attrs}, tokenStart: t.start, tokenLength: t.len,
			prevOffset: t.start + t.len, leadingHTMLStart: leading,
		})
		p.offset = t.start + t.len
		return true
	case "block-closer":
		if depth == 0 {
			p.addFreeform(-1)
			return false
		}
		if depth == 1 {
			p.addBlockFromStack(t.start)
			p.offset = t.start + t.len
			return true
		}
		top := p.stack[len(p.stack)-1]
		p.stack = p.stack[:len(p.stack)-1]
		html := p.doc[top.prevOffset:t.start]
		top.block.innerHTML += html
		h := html
		top.block.innerContent = append(top.block.innerContent, &h)
		top.prevOffset = t.start + t.len
		p.addInnerBlock(top.block, top.tokenStart, top.tokenLength, t.start+t.len)
		p.offset = t.start + t.len
		return true
	}
	p.addFreeform(-1)
	return false
}

func (p *blockParser) addFreeform(length int) {
	if length < 0 {
		length = len(p.doc) - p.offset
	}
	if length <= 0 {
		return
	}
	p.output = append(p.output, freeform(p.doc[p.offset:p.offset+length]))
}

func (p *blockParser) addInnerBlock(b *parsedBlock, tokenStart, tokenLength, lastOffset int) {
	parent := p.stack[len(p.stack)-1]
	parent.block.innerBlocks = append(parent.block.innerBlocks, b)
	html := p.doc[parent.prevOffset:tokenStart]
	if !phpEmpty(html) {
		parent.block.innerHTML += html
		h := html
		parent.block.innerContent = append(parent.block.innerContent, &h)
	}
	parent.block.innerContent = append(parent.block.innerContent, nil)
	if lastOffset > 0 {
		parent.prevOffset = lastOffset
	} else {
		parent.prevOffset = tokenStart + tokenLength
	}
}

func (p *blockParser) addBlockFromStack(endOffset int) {
	top := p.stack[len(p.stack)-1]
	p.stack = p.stack[:len(p.stack)-1]
	var html string
	if endOffset >= 0 {
		html = p.doc[top.prevOffset:endOffset]
	} else {
		html = p.doc[top.prevOffset:]
	}
	if !phpEmpty(html) {
		top.block.innerHTML += html
		h := html
		top.block.innerContent = append(top.block.innerContent, &h)
	}
	if top.leadingHTMLStart >= 0 {
		p.output = append(p.output, freeform(p.doc[top.leadingHTMLStart:top.tokenStart]))
	}
	p.output = append(p.output, top.block)
}

// nextToken finds the next block delimiter comment from p.offset.
func (p *blockParser) nextToken() blockToken {
	s := p.doc
	for from := p.offset; ; {
		k := strings.Index(s[from:], "<!--")
		if k < 0 {
			return blockToken{kind: "no-more-tokens"}
		}
		i := from + k
		if t, ok := matchBlockDelimiter(s, i); ok {
			return t
		}
		from = i + 1
	}
}

func isBlockNameStart(c byte) bool { return c >= 'a' && c <= 'z' }
func isBlockNameByte(c byte) bool {
	return (c >= 'a' && c <= 'z') || isDigit(c) || c == '_' || c == '-'
}

// matchBlockDelimiter matches
// <!--\s+(/)?wp:(ns/)?name\s+({…}\s+)?(/)?--> at i.
func matchBlockDelimiter(s string, i int) (blockToken, bool) {
	j := i + 4
	k := j
	for k < len(s) && pcreSpace(s[k]) {
		k++
	}
	if k == j {
		return blockToken{}, false
	}
	closer := false
	if k < len(s) && s[k] == '/' {
		closer = true
		k++
	}
	if !strings.HasPrefix(s[k:], "wp:") {
		return blockToken{}, false
	}
	k += 3
	readName := func(at int) int {
		if at >= len(s) || !isBlockNameStart(s[at]) {
			return -1
		}
		e := at + 1
		for e < len(s) && isBlockNameByte(s[e]) {
			e++
		}
		return e
	}
	name := ""
	e := readName(k)
	if e < 0 {
		return blockToken{}, false
	}
	if e < len(s) && s[e] == '/' {
		if e2 := readName(e + 1); e2 > 0 {
			name = s[k:e2]
			e = e2
		} else {
			return blockToken{}, false
		}
	} else {
		name = "core/" + s[k:e]
	}
	k = e
	sp := k
	for k < len(s) && pcreSpace(s[k]) {
		k++
	}
	if k == sp {
		return blockToken{}, false
	}
	attrs := ""
	hasAttrs := false
	if k < len(s) && s[k] == '{' {
		// The attributes end at the first '}' followed by \s+/?-->.
		for q := k + 1; q < len(s); q++ {
			if s[q] != '}' {
				continue
			}
			r := q + 1
			for r < len(s) && pcreSpace(s[r]) {
				r++
			}
			if r == q+1 {
				continue
			}
			rr := r
			if rr < len(s) && s[rr] == '/' {
				rr++
			}
			if strings.HasPrefix(s[rr:], "-->") {
				attrs = s[k : q+1]
				hasAttrs = true
				k = r
				break
			}
		}
	}
	void := false
	if k < len(s) && s[k] == '/' {
		void = true
		k++
	}
	if !strings.HasPrefix(s[k:], "-->") {
		return blockToken{}, false
	}
	end := k + 3
	t := blockToken{name: name, start: i, len: end - i}
	switch {
	case void:
		t.kind, t.attrs = "void-block", attrs
	case closer:
		t.kind = "block-closer"
	default:
		t.kind = "block-opener"
		if hasAttrs {
			t.attrs = attrs
		}
	}
	return t, true
}

// renderBlock mirrors render_block() for static blocks; dynamic blocks go
// through rc.RenderBlock when set.
func renderBlock(b *parsedBlock, rc *RenderContext) string {
	var sb strings.Builder
	idx := 0
	for _, chunk := range b.innerContent {
		if chunk != nil {
			sb.WriteString(*chunk)
			continue
		}
		if idx < len(b.innerBlocks) {
			sb.WriteString(renderBlock(b.innerBlocks[idx], rc))
		}
		idx++
	}
	out := sb.String()
	if b.name != "" && rc != nil && rc.RenderBlock != nil {
		if html, ok := rc.RenderBlock(b.name, b.attrsJSON, out); ok {
			return html
		}
	}
	return out
}

// doBlocks mirrors do_blocks(); it also reports whether the content had
// blocks (which removes wpautop from 'the_content').
func doBlocks(content string, rc *RenderContext) (string, bool) {
	if !hasBlocks(content) && (rc == nil || rc.RenderBlock == nil) {
		// Without delimiters the parser yields one freeform block whose
		// rendering is the content itself.
		return content, false
	}
	var sb strings.Builder
	for _, b := range parseBlocks(content) {
		sb.WriteString(renderBlock(b, rc))
	}
	return sb.String(), hasBlocks(content)
}

var (
	excerptInnerBlocks = map[string]bool{"": true, "core/freeform": true, "core/heading": true, "core/html": true,
		"core/list": true, "core/list-item": true, "core/media-text": true, "core/paragraph": true,
		"core/preformatted": true, "core/pullquote": true, "core/quote": true, "core/table": true, "core/verse": true}
	excerptWrapperBlocks = map[string]bool{"core/columns": true, "core/column": true, "core/group": true}
)

func excerptAllowed(name string) bool { return excerptInnerBlocks[name] || excerptWrapperBlocks[name] }

// excerptRemoveBlocks mirrors excerpt_remove_blocks().
func excerptRemoveBlocks(content string) string {
	if !hasBlocks(content) {
		return content
	}
	var out strings.Builder
outer:
	for _, b := range parseBlocks(content) {
		if !excerptAllowed(b.name) {
			continue
		}
		if len(b.innerBlocks) > 0 {
			if excerptWrapperBlocks[b.name] {
				out.WriteString(excerptRenderInner(b))
				continue
			}
			for _, ib := range b.innerBlocks {
				if !excerptInnerBlocks[ib.name] || len(ib.innerBlocks) > 0 {
					continue outer
				}
			}
		}
		out.WriteString(renderBlock(b, nil))
	}
	return out.String()
}

func excerptRenderInner(b *parsedBlock) string {
	var out strings.Builder
	for _, ib := range b.innerBlocks {
		if !excerptAllowed(ib.name) {
			continue
		}
		if len(ib.innerBlocks) == 0 {
			out.WriteString(renderBlock(ib, nil))
		} else {
			out.WriteString(excerptRenderInner(ib))
		}
	}
	return out.String()
}
