package calendard

import "testing"

// The strict-reads rule lets through exactly what read_post lets a single show (published posts
// always), for every role, status and author, minus what is hidden from everyone.
func TestReadRuleIsReadPost(t *testing.T) {
	const me, other = 7, 8
	users := map[string]*User{"anonymous": Anonymous, "subscriber": userWith(me, "subscriber"),
		"contributor": userWith(me, "contributor"), "author": userWith(me, "author"), "editor": userWith(me, "editor")}
	statuses := append([]string{"made-up-status"}, RegisteredStatuses...)
	for name, u := range users {
		for _, hidden := range [][]string{nil, {"trash"}} {
			rule := ReadRuleFor(u, PostTypeEvent, hidden...)
			for _, status := range statuses {
				for _, author := range []int64{me, other, 0} {
					want := status == "publish" || u.CanReadPost(&PostRef{Type: PostTypeEvent, Status: status, Author: author})
					if len(hidden) > 0 && status == hidden[0] {
						want = false
					}
					if got := rule.Allows(author, status); got != want {
						t.Errorf("%s, hidden %v: a %s post by %d: allowed %v, read_post says %v", name, hidden, status, author, got, want)
					}
				}
			}
		}
	}
}
