package env

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// DefaultMirror is used when the machine's apt sources name none for the
// suite.
const DefaultMirror = "http://deb.debian.org/debian"

// SourcesFile is one apt sources file: its name decides the format
// (".sources" is deb822, anything else one-line "deb URI SUITE ...").
type SourcesFile struct {
	Name    string
	Content string
}

// MirrorFromSources returns the first http(s) URI that the given apt
// sources files use for suite itself (not suite-updates or
// suite-security), or DefaultMirror.
func MirrorFromSources(files []SourcesFile, suite string) string {
	for _, f := range files {
		var uris []string
		if strings.HasSuffix(f.Name, ".sources") {
			uris = deb822URIs(f.Content, suite)
		} else {
			uris = oneLineURIs(f.Content, suite)
		}
		for _, u := range uris {
			if strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://") {
				return strings.TrimRight(u, "/")
			}
		}
	}
	return DefaultMirror
}

func oneLineURIs(content, suite string) []string {
	var out []string
	for _, line := range strings.Split(content, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		if len(f) < 3 || f[0] != "deb" {
			continue
		}
		f = f[1:]
		if strings.HasPrefix(f[0], "[") { // options: [arch=amd64 signed-by=...]
			for len(f) > 0 && !strings.HasSuffix(f[0], "]") {
				f = f[1:]
			}
			if len(f) > 0 {
				f = f[1:]
			}
		}
		if len(f) >= 2 && f[1] == suite {
			out = append(out, f[0])
		}
	}
	return out
}

func deb822URIs(content, suite string) []string {
	var out []string
	for _, stanza := range strings.Split(strings.ReplaceAll(content, "\r\n", "\n"), "\n\n") {
		fields := map[string]string{}
		for _, line := range strings.Split(stanza, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "#") {
				continue
			}
			k, v, ok := strings.Cut(line, ":")
			if ok && !strings.HasPrefix(line, " ") {
				fields[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
			}
		}
		if t, ok := fields["types"]; ok && !contains(strings.Fields(t), "deb") {
			continue
		}
		if strings.EqualFold(fields["enabled"], "no") || !contains(strings.Fields(fields["suites"]), suite) {
			continue
		}
		out = append(out, strings.Fields(fields["uris"])...)
	}
	return out
}

// MachineMirror reads /etc/apt/sources.list and /etc/apt/sources.list.d
// and returns the mirror they use for suite.
func MachineMirror(suite string) string {
	var files []SourcesFile
	add := func(p string) {
		if data, err := os.ReadFile(p); err == nil {
			files = append(files, SourcesFile{Name: p, Content: string(data)})
		}
	}
	add("/etc/apt/sources.list")
	more, _ := filepath.Glob("/etc/apt/sources.list.d/*")
	sort.Strings(more)
	for _, p := range more {
		if strings.HasSuffix(p, ".list") || strings.HasSuffix(p, ".sources") {
			add(p)
		}
	}
	return MirrorFromSources(files, suite)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
