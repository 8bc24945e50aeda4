package strtotime

import (
	"regexp/syntax"
	"slices"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// The scanner needs, at each position, the longest prefix matched by any rule
// and, among rules matching that prefix, the first one: re2c compiles the
// grammar into a DFA with exactly that semantics. Running ~25 backtracking
// regexps per token costs tens of microseconds, so this file builds the same
// kind of DFA lazily from the rules' compiled programs (regexp/syntax.Prog):
// each DFA state is the set of NFA instructions alive after the input read so
// far, transitions are created on first use and then read without locking.
// TestDFAMatchesRegexps checks it against the rules' own regexps.

// nfaInst identifies one instruction of one rule's program.
type nfaInst struct {
	rule ruleID
	pc   uint32
}

type dfaState struct {
	insts  []nfaInst // rune-consuming and match instructions, sorted
	accept ruleID    // first rule whose match is reached here, or -1

	ascii   [128]atomic.Pointer[dfaState]
	mu      sync.Mutex
	unicode map[rune]*dfaState // transitions on non-ASCII runes (rare)
}

type dfa struct {
	progs  [numRules]*syntax.Prog
	mu     sync.Mutex
	states map[string]*dfaState
	start  *dfaState
	dead   *dfaState
}

// scanner is compiled on first use, not at package init: every start of calendard (and of each of
// its tool commands) would otherwise pay for it, and most of them parse no date at all.
var scanner = sync.OnceValue(newDFA)

func newDFA() *dfa {
	d := &dfa{states: make(map[string]*dfaState)}
	for i, src := range ruleDefs {
		re, err := syntax.Parse(src, syntax.Perl)
		if err != nil {
			panic("strtotime: bad rule: " + err.Error())
		}
		prog, err := syntax.Compile(re.Simplify())
		if err != nil {
			panic("strtotime: bad rule: " + err.Error())
		}
		d.progs[i] = prog
	}
	var init []nfaInst
	for i, prog := range d.progs {
		init = append(init, nfaInst{ruleID(i), uint32(prog.Start)})
	}
	d.dead = &dfaState{accept: -1}
	d.mu.Lock()
	d.start = d.stateFor(d.closure(init))
	d.mu.Unlock()
	return d
}

// closure follows the non-consuming instructions and returns the sorted set
// of rune-consuming and match instructions reachable from seeds.
func (d *dfa) closure(seeds []nfaInst) []nfaInst {
	seen := make(map[nfaInst]bool)
	var out []nfaInst
	stack := append([]nfaInst(nil), seeds...)
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[n] {
			continue
		}
		seen[n] = true
		inst := &d.progs[n.rule].Inst[n.pc]
		switch inst.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			stack = append(stack, nfaInst{n.rule, inst.Out}, nfaInst{n.rule, inst.Arg})
		case syntax.InstCapture, syntax.InstNop, syntax.InstEmptyWidth:
			// The rules contain no anchors or word boundaries, so an
			// empty-width instruction can only be a no-op here.
			stack = append(stack, nfaInst{n.rule, inst.Out})
		case syntax.InstMatch, syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			out = append(out, n)
		}
	}
	slices.SortFunc(out, func(a, b nfaInst) int {
		if a.rule != b.rule {
			return int(a.rule) - int(b.rule)
		}
		return int(a.pc) - int(b.pc)
	})
	return out
}

// stateFor interns the state for a closed instruction set. d.mu must be held.
func (d *dfa) stateFor(insts []nfaInst) *dfaState {
	if len(insts) == 0 {
		return d.dead
	}
	key := make([]byte, 0, len(insts)*5)
	for _, n := range insts {
		key = append(key, byte(n.rule), byte(n.pc>>24), byte(n.pc>>16), byte(n.pc>>8), byte(n.pc))
	}
	if s, ok := d.states[string(key)]; ok {
		return s
	}
	s := &dfaState{insts: insts, accept: -1}
	for _, n := range insts {
		if d.progs[n.rule].Inst[n.pc].Op == syntax.InstMatch {
			s.accept = n.rule // insts are sorted by rule: the first is the winner
			break
		}
	}
	d.states[string(key)] = s
	return s
}

// next returns the state after reading r from s, building it on first use.
func (d *dfa) next(s *dfaState, r rune) *dfaState {
	if r >= 0 && r < 128 {
		if n := s.ascii[r].Load(); n != nil {
			return n
		}
	} else {
		s.mu.Lock()
		n := s.unicode[r]
		s.mu.Unlock()
		if n != nil {
			return n
		}
	}
	var seeds []nfaInst
	for _, n := range s.insts {
		inst := &d.progs[n.rule].Inst[n.pc]
		var ok bool
		switch inst.Op {
		case syntax.InstRune, syntax.InstRune1:
			ok = inst.MatchRune(r)
		case syntax.InstRuneAny:
			ok = true
		case syntax.InstRuneAnyNotNL:
			ok = r != '\n'
		}
		if ok {
			seeds = append(seeds, nfaInst{n.rule, inst.Out})
		}
	}
	d.mu.Lock()
	n := d.stateFor(d.closure(seeds))
	d.mu.Unlock()
	if r >= 0 && r < 128 {
		s.ascii[r].Store(n)
	} else {
		s.mu.Lock()
		if s.unicode == nil {
			s.unicode = make(map[rune]*dfaState)
		}
		s.unicode[r] = n
		s.mu.Unlock()
	}
	return n
}

// match returns the rule and length of the longest rule match at the start
// of src (ties going to the earliest rule), or -1 when no rule matches. Like
// Go's regexp, it reads src as UTF-8 (an invalid byte is one U+FFFD).
func (d *dfa) match(src string) (ruleID, int) {
	best, bestLen := ruleID(-1), 0
	s := d.start
	for i := 0; i < len(src); {
		r, w := rune(src[i]), 1
		if r >= utf8.RuneSelf {
			r, w = utf8.DecodeRuneInString(src[i:])
		}
		s = d.next(s, r)
		if s == d.dead {
			break
		}
		i += w
		if s.accept >= 0 {
			best, bestLen = s.accept, i
		}
	}
	return best, bestLen
}
