package calendard

import "testing"

func TestStripslashesIsPHPs(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain text is kept", "O'Brien & Sons", "O'Brien & Sons"},
		{"escaped quote loses its backslash", `O\'Brien`, "O'Brien"},
		{"double backslash becomes one", `C:\\path`, `C:\path`},
		{"lone backslash before a letter is dropped", `C:\path`, "C:path"},
		{"backslash zero is a NUL byte", `a\0b`, "a\x00b"},
		{"trailing backslash is dropped", `end\`, "end"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Unslash(tc.in); got != tc.want {
				t.Errorf("Unslash(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
