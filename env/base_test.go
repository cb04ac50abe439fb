package env

import (
	"reflect"
	"strings"
	"testing"
)

func TestBaseConfigKey(t *testing.T) {
	a := BaseConfig{Suite: "bookworm", Variant: "minbase", Arch: "amd64", Mirror: "http://m/debian", Packages: []string{"jq", "git", "git"}}
	b := a
	b.Packages = []string{"git", "jq"}
	b.Mirror = "http://m/debian/"
	if a.Key() != b.Key() || len(a.Key()) != 16 {
		t.Errorf("order, duplicates and a trailing slash must not change the key: %s %s", a.Key(), b.Key())
	}
	c := a
	c.Packages = []string{"git", "jq", "curl"}
	if c.Key() == a.Key() {
		t.Error("another package list must change the key")
	}
	if !strings.HasPrefix(a.Tag(), BaseImageName+":") {
		t.Errorf("tag = %s", a.Tag())
	}
}

func TestDebootstrapArgv(t *testing.T) {
	c := BaseConfig{Suite: "bookworm", Variant: "minbase", Arch: "amd64", Mirror: "http://m/debian", Packages: []string{"jq", "git"}}
	want := []string{"debootstrap", "--variant=minbase", "--arch=amd64", "--components=main", "--include=git,jq", "bookworm", "/x/rootfs", "http://m/debian"}
	if got := c.DebootstrapArgv("/x/rootfs"); !reflect.DeepEqual(got, want) {
		t.Errorf("argv = %v", got)
	}
	d := DefaultBaseConfig()
	for _, p := range []string{"python3", "python3-pytest", "git", "jq", "sqlite3", "curl", "gcc", "make", "acl", "procps", "file", "ca-certificates"} {
		if !contains(d.Packages, p) {
			t.Errorf("default base lacks %s", p)
		}
	}
}

func TestMirrorFromSources(t *testing.T) {
	deb822 := `Types: deb
# http://snapshot.debian.org/archive/debian/20250520T000000Z
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
`
	cases := []struct {
		name  string
		files []SourcesFile
		want  string
	}{
		{"deb822", []SourcesFile{{"debian.sources", deb822}}, "http://deb.debian.org/debian"},
		{"one-line with options", []SourcesFile{{"sources.list", "# x\ndeb-src http://src/debian bookworm main\ndeb [arch=amd64 signed-by=/k.gpg] http://mirror.example/debian/ bookworm main\n"}}, "http://mirror.example/debian"},
		{"security only is not the mirror", []SourcesFile{{"s.list", "deb http://security/debian-security bookworm-security main\n"}}, DefaultMirror},
		{"other suites skipped", []SourcesFile{{"n.sources", "Types: deb\nURIs: https://deb.nodesource.com/node_20.x\nSuites: nodistro\n"}, {"g.list", "deb https://packages.cloud.google.com/apt cloud-sdk-bookworm main\n"}}, DefaultMirror},
		{"disabled stanza", []SourcesFile{{"d.sources", "Enabled: no\nTypes: deb\nURIs: http://off/debian\nSuites: bookworm\n"}}, DefaultMirror},
		{"first file wins", []SourcesFile{{"a.list", "deb http://a/debian bookworm main\n"}, {"b.list", "deb http://b/debian bookworm main\n"}}, "http://a/debian"},
		{"non-http skipped", []SourcesFile{{"c.list", "deb file:/cdrom bookworm main\ndeb https://h/debian bookworm main\n"}}, "https://h/debian"},
	}
	for _, tc := range cases {
		if got := MirrorFromSources(tc.files, "bookworm"); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestParseEnvConfig(t *testing.T) {
	c, err := ParseConfig([]byte("[env]\nimages_dir = \"/x\"\nbuilder = \"podman\"\n[base_map]\n\"python:3.11-slim\" = \"authbench-base\"\n[daemon]\nsocket = \"/run/x\"\n"), "c.toml")
	if err != nil || c.Env.ImagesDir != "/x" || c.Env.Builder != "podman" || c.BaseMap["python:3.11-slim"] != "authbench-base" {
		t.Fatalf("config = %+v, %v", c, err)
	}
	for doc, want := range map[string]string{
		"[env]\nbuilder = \"kaniko\"\n": "env.builder",
		"[env]\nimages = \"/x\"\n":      "env.images: unknown key",
		"[env]\nimages_dir = 3\n":       "c.toml:2",
		"[base_map]\npython = [1]\n":    "c.toml:2",
		"[env\n":                        "c.toml:1",
	} {
		if _, err := ParseConfig([]byte(doc), "c.toml"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want %q", doc, err, want)
		}
	}
	if c, err := LoadConfig("/nonexistent/config.toml", false); err != nil || c == nil {
		t.Errorf("missing default config: %v", err)
	}
	if _, err := LoadConfig("/nonexistent/config.toml", true); err == nil {
		t.Error("missing explicit config: want an error")
	}
}
