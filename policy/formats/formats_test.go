package formats

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/authbench/authbench/policy"
)

func mustPolicy(t *testing.T, doc string) *policy.Policy {
	t.Helper()
	p, err := policy.ParsePolicyFor([]byte(doc), "test", NetworkSpec)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// policyDoc is a policy's JSON text, for comparisons.
func policyDoc(t *testing.T, p *policy.Policy) string {
	t.Helper()
	data, err := p.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func hasWarning(ws []Warning, axis string, e Effect, substr string) bool {
	for _, w := range ws {
		if w.Axis == axis && w.Effect == e && strings.Contains(w.Message, substr) {
			return true
		}
	}
	return false
}

// exportTree is a small root for the path-hierarchy formats.
func exportTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{"usr/bin", "data/in", "out", "etc"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"usr/bin/tool", "data/in/a.csv", "data/in/b.csv", "etc/conf"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestExportPathFormats(t *testing.T) {
	root, err := policy.NewRoot(exportTree(t))
	if err != nil {
		t.Fatal(err)
	}
	pol := mustPolicy(t, `{"read":["/data/in/*.csv","/etc/conf"],"write":["/out/**","/data/report.txt"],"execute":["/usr/bin/tool"]}`)
	opts := ExportOptions{Root: root}
	cases := []struct {
		format   Format
		want     []string // substrings of the text, in order
		notWant  []string
		warnings []struct {
			axis string
			e    Effect
			msg  string
		}
	}{
		{Bwrap, []string{"bwrap --unshare-all", "--bind /data /data", "--ro-bind /data/in/a.csv /data/in/a.csv", "--ro-bind /data/in/b.csv", "--ro-bind /etc/conf /etc/conf",
			"--bind /out /out", "--ro-bind /usr/bin/tool /usr/bin/tool", "--"}, []string{"--share-net"},
			[]struct {
				axis string
				e    Effect
				msg  string
			}{{"execute", Wider, "no per-path noexec"}, {"read", Narrower, "glob is exported"}, {"write", Wider, "create-in-ancestor"}}},
		{Landrun, []string{"landrun", "--rw /data", "--ro /data/in/a.csv", "--ro /etc/conf", "--rw /out", "--rox /usr/bin/tool", "--"}, []string{"--connect-tcp"},
			[]struct {
				axis string
				e    Effect
				msg  string
			}{{"read", Narrower, "glob is exported"}}},
		{Systemd, []string{"[Service]", "ProtectSystem=strict", "NoExecPaths=/", "ReadWritePaths=-/out", "ExecPaths=-/usr/bin/tool", "PrivateNetwork=yes"}, []string{"ReadWritePaths=-/etc"},
			[]struct {
				axis string
				e    Effect
				msg  string
			}{{"read", Wider, "no read allowlist"}}},
	}
	for _, c := range cases {
		t.Run(string(c.format), func(t *testing.T) {
			out, err := Export(pol, c.format, opts)
			if err != nil {
				t.Fatal(err)
			}
			text := strings.ReplaceAll(out.Text, " \\\n  ", " ")
			at := 0
			for _, w := range c.want {
				i := strings.Index(text[at:], w)
				if i < 0 {
					t.Fatalf("%q missing (in order) from\n%s", w, out.Text)
				}
				at += i
			}
			for _, w := range c.notWant {
				if strings.Contains(text, w) {
					t.Fatalf("%q in\n%s", w, out.Text)
				}
			}
			for _, w := range c.warnings {
				if !hasWarning(out.Warnings, w.axis, w.e, w.msg) {
					t.Fatalf("no %s %s warning %q in %v", w.e, w.axis, w.msg, out.Warnings)
				}
			}
		})
	}
}

func TestExportNetwork(t *testing.T) {
	root, err := policy.NewRoot(exportTree(t))
	if err != nil {
		t.Fatal(err)
	}
	pol := mustPolicy(t, `{"read":["/etc/conf"],"write":[],"execute":[],"network":["mirror.local:443","10.0.0.1:8080"]}`)
	for f, want := range map[Format][]string{
		Bwrap:      {"--share-net"},
		Landrun:    {"--connect-tcp 443", "--connect-tcp 8080"},
		ClaudeCode: {`"WebFetch(domain:mirror.local)"`, `"WebFetch(domain:10.0.0.1)"`},
		Codex:      {"network_access = true"},
		SRT:        {`"mirror.local"`, `"10.0.0.1"`},
	} {
		out, err := Export(pol, f, ExportOptions{Root: root})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !strings.Contains(strings.ReplaceAll(out.Text, " \\\n  ", " "), w) {
				t.Fatalf("%s: %q missing from\n%s", f, w, out.Text)
			}
		}
		if f != ClaudeCode && !hasWarning(out.Warnings, "network", Wider, "") {
			t.Fatalf("%s: no wider network warning: %v", f, out.Warnings)
		}
	}
}

func TestExportAgentFormats(t *testing.T) {
	pol := mustPolicy(t, `{"read":["/work/**","/etc/hosts"],"write":["/work/out/**","/work/log.txt","/tmp/*.tmp"],"execute":["/usr/bin/python3","/usr/bin/*"]}`)
	cases := map[Format]struct {
		want  []string
		warns []string // axis:effect
	}{
		ClaudeCode: {[]string{`"Read(//work/**)"`, `"Read(//etc/hosts)"`, `"Edit(//work/out/**)"`, `"Edit(//tmp/*.tmp)"`, `"Bash(/usr/bin/python3:*)"`},
			[]string{"execute:narrower", ":wider"}},
		Codex: {[]string{`sandbox_mode = 'workspace-write'`, `writable_roots = ['/tmp', '/work/log.txt', '/work/out']`, "exclude_slash_tmp = true"},
			[]string{"read:wider", "execute:wider", "write:wider"}},
		SRT: {[]string{`"allowWrite": [`, `"/tmp"`, `"/work/out"`, `"denyRead": []`},
			[]string{"read:wider", "execute:wider", "write:wider"}},
	}
	for f, c := range cases {
		out, err := Export(pol, f, ExportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !strings.Contains(out.Text, w) {
				t.Fatalf("%s: %q missing from\n%s", f, w, out.Text)
			}
		}
		for _, w := range c.warns {
			axis, e, _ := strings.Cut(w, ":")
			if !hasWarning(out.Warnings, axis, Effect(e), "") {
				t.Fatalf("%s: no %s warning in %v", f, w, out.Warnings)
			}
		}
		if f == ClaudeCode && strings.Contains(out.Text, "Bash(/usr/bin/*") {
			t.Fatalf("a glob became a Bash rule:\n%s", out.Text)
		}
	}
}

func TestImport(t *testing.T) {
	cases := []struct {
		name   string
		format Format
		data   string
		opts   ImportOptions
		want   string
		warns  []string // axis:effect:substring
	}{
		{"claude", ClaudeCode, `{"permissions":{"allow":["Read(//srv/data/**)","Read(~/notes.md)","Edit(./out/**)","Edit(/src/**/*.ts)",
			"Bash(/usr/bin/git:*)","Bash(npm test)","WebFetch(domain:pypi.org)","TodoWrite"],"deny":["Read(//srv/data/secret)"]}}`,
			ImportOptions{Home: "/home/u", Dir: "/proj"},
			`{"execute":["/usr/bin/git"],"network":["pypi.org:443"],"read":["/home/u/notes.md","/srv/data/**"],"write":["/proj/out/**","/proj/src/**"]}`,
			[]string{":wider:deny rule", "write:wider:inside the path", "execute:narrower:by name", ":same:no file or network"}},
		{"claude-no-home", ClaudeCode, `{"permissions":{"allow":["Read(~/x)","Read(rel)"]}}`, ImportOptions{},
			`{"execute":[],"read":[],"write":[]}`, []string{"read:narrower:home directory", "read:narrower:relative to the project"}},
		{"codex-workspace", Codex, "sandbox_mode = \"workspace-write\"\n[sandbox_workspace_write]\nwritable_roots = [\"/data\"]\nnetwork_access = true\nexclude_tmpdir_env_var = true\n",
			ImportOptions{Dir: "/proj"},
			`{"execute":["/**"],"network":["*:*"],"read":["/**"],"write":["/data/**","/proj/**","/tmp/**"]}`, []string{"read:same:"}},
		{"codex-readonly", Codex, "sandbox_mode = \"read-only\"\n", ImportOptions{},
			`{"execute":["/**"],"read":["/**"],"write":[]}`, nil},
		{"srt", SRT, `{"network":{"allowedDomains":["github.com","*.npmjs.org"],"deniedDomains":["evil.com"]},
			"filesystem":{"denyRead":["~/.ssh"],"allowWrite":["/work","."],"denyWrite":["/work/.env"]}}`, ImportOptions{},
			`{"execute":["/**"],"network":["*.npmjs.org:*","github.com:*"],"read":["/**"],"write":["/work/**"]}`,
			[]string{"read:wider:denyRead", "write:wider:denyWrite", "write:narrower:relative", "network:wider:deniedDomains"}},
		{"systemd", Systemd, "[Unit]\nDescription=x\n[Service]\nExecStart=/usr/bin/app\nProtectSystem=strict\nReadWritePaths=-/var/lib/app \"/srv/with space\"\nBindPaths=/data:/mnt/data:rbind\nNoExecPaths=/\nExecPaths=/usr/bin /usr/lib\nPrivateNetwork=yes\nInaccessiblePaths=/etc/shadow\n",
			ImportOptions{},
			`{"execute":["/usr/bin/**","/usr/lib/**"],"read":["/**"],"write":["/mnt/data/**","/srv/with space/**","/var/lib/app/**"]}`,
			[]string{"read:wider:inaccessible"}},
		{"systemd-open", Systemd, "[Service]\nExecStart=/bin/true\n", ImportOptions{},
			`{"execute":["/**"],"network":["*:*"],"read":["/**"],"write":["/**"]}`, []string{"write:same:ProtectSystem"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pol, warns, err := Import([]byte(c.data), c.format, c.name, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := policyDoc(t, pol); got != c.want {
				t.Fatalf("policy\n%s\nwant\n%s\nwarnings %v", got, c.want, warns)
			}
			for _, w := range c.warns {
				parts := strings.SplitN(w, ":", 3)
				if !hasWarning(warns, parts[0], Effect(parts[1]), parts[2]) {
					t.Fatalf("no warning %s in %v", w, warns)
				}
			}
		})
	}
}

func TestImportRefusesMalformedFiles(t *testing.T) {
	for _, c := range []struct {
		f    Format
		data string
		want string
	}{
		{ClaudeCode, `{"permissions":`, "not a Claude Code settings file"},
		{Codex, "sandbox_mode = [", "not a Codex config.toml"},
		{Codex, `sandbox_mode = "yolo"`, `sandbox_mode "yolo"`},
		{SRT, `[1,2]`, "not srt settings"},
		{Systemd, "[Service\nX=1", "not a systemd unit"},
	} {
		_, _, err := Import([]byte(c.data), c.f, "bad."+string(c.f), ImportOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "bad."+string(c.f)) {
			t.Fatalf("%s: %v, want %q naming the file", c.f, err, c.want)
		}
	}
}

// TestRoundTrips: a policy exported to a format and imported back grants
// what the format can express of it.
func TestRoundTrips(t *testing.T) {
	pol := mustPolicy(t, `{"read":["/srv/**"],"write":["/srv/out/**"],"execute":["/usr/bin/python3"],"network":["pypi.org:443"]}`)
	out, err := Export(pol, ClaudeCode, ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	back, _, err := Import([]byte(out.Text), ClaudeCode, "rt", ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(policyDoc(t, back), policyDoc(t, pol)) {
		t.Fatalf("claude-code round trip\n%s\nwant\n%s", policyDoc(t, back), policyDoc(t, pol))
	}
	out, err = Export(pol, SRT, ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	back, _, err = Import([]byte(out.Text), SRT, "rt", ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"execute":["/**"],"network":["pypi.org:*"],"read":["/**"],"write":["/srv/out/**"]}`; policyDoc(t, back) != want {
		t.Fatalf("srt round trip %s, want %s", policyDoc(t, back), want)
	}
}
