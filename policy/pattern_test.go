package policy

import (
	"strings"
	"testing"
)

func TestParsePatternNormalises(t *testing.T) {
	tests := []struct {
		in, want  string
		recursive bool
		glob      bool
	}{
		{"/a/b", "/a/b", false, false},
		{"  /a/b/  ", "/a/b", false, false},
		{`\a\b`, "/a/b", false, false},
		{"/a/./c/../b", "/a/b", false, false},
		{"//a//b", "/a/b", false, false},
		{"/a/**", "/a/**", true, false},
		{"/a/b/../**", "/a/**", true, false},
		{"/**", "/**", true, false},
		{"/a/*.txt", "/a/*.txt", false, true},
		{"/a/[x]/**", "/a/[x]/**", true, true},
		{"/a/b?", "/a/b?", false, true},
		{"/", "/", false, false},
	}
	for _, tt := range tests {
		p, err := ParsePattern(tt.in)
		if err != nil {
			t.Errorf("ParsePattern(%q): %v", tt.in, err)
			continue
		}
		if p.String() != tt.want || p.Recursive() != tt.recursive || p.HasGlob() != tt.glob {
			t.Errorf("ParsePattern(%q) = %q recursive=%v glob=%v; want %q %v %v",
				tt.in, p.String(), p.Recursive(), p.HasGlob(), tt.want, tt.recursive, tt.glob)
		}
		if p.Raw() != tt.in {
			t.Errorf("Raw() = %q, want %q", p.Raw(), tt.in)
		}
	}
}

func TestParsePatternRejects(t *testing.T) {
	tests := []struct{ in, wantErr string }{
		{"", "empty"},
		{"   ", "empty"},
		{"a/b", "not an absolute path"},
		{"./a", "not an absolute path"},
		{"/a/**/b", `"**" is only allowed as a trailing "/**"`},
		{"/a/b**", `"**" is only allowed`},
		{"/**/**", `"**" is only allowed`},
		{"/" + strings.Repeat("x", MaxPatternBytes), "bytes long"},
	}
	for _, tt := range tests {
		_, err := ParsePattern(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("ParsePattern(%.40q) error = %v, want it to contain %q", tt.in, err, tt.wantErr)
		}
	}
}

func TestMatch(t *testing.T) {
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"/a/b", "/a/b", true},
		{"/a/b", "/a/b/c", false},
		{"/a/b", "/a", false},
		{"/a/*", "/a/b", true},
		{"/a/*", "/a/b/c", false},
		{"/a/*", "/a/.hidden", true},
		{"/a/*.csv", "/a/x.csv", true},
		{"/a/*.csv", "/a/x.CSV", false},
		{"/a/?.csv", "/a/ab.csv", false},
		{"/a/?.csv", "/a/b.csv", true},
		{"/a/[ab].csv", "/a/b.csv", true},
		{"/a/[ab].csv", "/a/c.csv", false},
		{"/a/[!a].csv", "/a/b.csv", true},
		{"/a/[!a].csv", "/a/a.csv", false},
		{"/a/[a-c]", "/a/b", true},
		{"/a/[a-c]", "/a/d", false},
		{"/a/[c-a]", "/a/b", false},
		{"/a/[!c-a]", "/a/b", true},
		{"/a/[]]", "/a/]", true},
		{"/a/[!]]", "/a/]", false},
		{"/a/[a-]", "/a/-", true},
		{"/a/[-a]", "/a/-", true},
		{"/a/[weird].txt", "/a/[weird].txt", false},
		{"/a/[weird].txt", "/a/w.txt", true},
		{"/a/[unclosed", "/a/[unclosed", true},
		{"/a/x[", "/a/x[", true},
		{"/a/**", "/a", true},
		{"/a/**", "/a/b/c/d", true},
		{"/a/**", "/ab", false},
		{"/a/*/**", "/a/b/c", true},
		{"/a/*/**", "/a", false},
		{"/**", "/", true},
		{"/**", "/anything/at/all", true},
		{"/a/*b*c", "/a/xxbyyczzc", true},
		{"/a/*b*c", "/a/xxbyycz", false},
		{"/a/é?", "/a/éx", true},
	}
	for _, tt := range tests {
		if got := MustPattern(tt.pattern).Match(tt.path); got != tt.want {
			t.Errorf("%q.Match(%q) = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}
