package generate

import (
	"os"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/authbench/authbench/generate/genname"
	"github.com/authbench/authbench/policy"
)

// Bounds of the heuristic's reading.
const (
	heuristicMaxFileBytes = 256 << 10
	heuristicMaxFiles     = 200
	heuristicDepth        = 2
)

// The heuristic's regular expressions, compiled on first use (not in
// every process that links the package).
var (
	// absPathRE finds absolute paths in prose and code.
	absPathRE = lazyRegexp("(?:^|[\\s`'\"(\\[=:,])(/[A-Za-z0-9._+@%~\\-/]*[A-Za-z0-9_+@%~\\-/])")
	// codeSpanRE finds `inline code` in Markdown.
	codeSpanRE = lazyRegexp("`([^`\n]+)`")
	// commandSepRE splits a shell line into commands.
	commandSepRE = lazyRegexp(`\|\||&&|[|;&]|\$\(|` + "`")
	// urlRE finds URLs: scheme, host (a name or a bracketed IPv6
	// address) and port.
	urlRE = lazyRegexp(`(?i)\b(https?|wss?|ftp|git|ssh)://(?:[^\s/@'"]+@)?(\[[0-9a-f:.]+\]|[a-z0-9._-]+)(?::([0-9]{1,5}))?`)
	// writeVerbRE marks a sentence that asks for a change.
	writeVerbRE = lazyRegexp(`(?i)\b(fix|edit|update|modify|change|append|add|write|rotate|replace|remove|delete|rename|finish|complete|patch|clean|purge|install|create|put|save|move|redact|schedule|build|compile)`)
)

// lazyRegexp returns expr compiled on the first call.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// shellWords are words of shell syntax that start no program.
var shellWords = map[string]bool{
	"if": true, "then": true, "else": true, "elif": true, "fi": true, "for": true, "while": true, "until": true,
	"do": true, "done": true, "case": true, "esac": true, "in": true, "function": true, "{": true, "}": true,
	"[[": true, "]]": true, "!": true, "export": true, "local": true, "return": true, "exit": true, "set": true,
	"cd": true, "echo": true, "printf": true, "read": true, "shift": true, "trap": true, "unset": true, "eval": true,
	"exec": true, "source": true, ".": true, "true": true, "false": true, ":": true, "test": true, "[": true,
	"declare": true, "readonly": true, "wait": true, "let": true,
}

// commonTools are what an agent working in a shell runs almost always
// (chosen on the built-in suite: more tools cost more precision than
// they bring recall).
var commonTools = []string{"bash", "sh", "awk", "sort", "python3"}

// Heuristic is the static-analysis baseline: it reads the image's rootfs
// (root) without running anything. Paths named in the instruction (and,
// to depth 2, in the files it names) are read; named paths that do not
// exist yet, and named files in a sentence asking for a change, are
// written; a named directory is read (and written when asked to change)
// as a whole; the working directory is read as a whole, and written as a
// whole when nothing to write is named. Executable are the shells, awk,
// sort and python3, the real files of named executables, the programs the
// instruction's code spans, the named scripts, their "#!" lines and the
// named Makefiles' recipes start, found through path.
func Heuristic(root *policy.Root, instruction, workdir, path string) *policy.Policy {
	return HeuristicFor(root, instruction, workdir, path, false)
}

// HeuristicFor is Heuristic, answering the network axis too when network
// is true (the task's spec declares it): every host:port of a URL in the
// instruction or in the files it reads (http 80, https 443, ws 80, wss
// 443, ftp 21, git 9418, ssh 22 when the URL names no port).
func HeuristicFor(root *policy.Root, instruction, workdir, path string, network bool) *policy.Policy {
	h := &heuristic{root: root, path: path, seen: map[string]bool{}, hosts: map[string]bool{},
		sets: [len(policy.Axes)]map[string]bool{{}, {}, {}}}
	h.urls(instruction)
	for _, tool := range commonTools {
		h.program(tool)
	}
	wd := ""
	if workdir != "" && workdir != "/" {
		wd = strings.TrimSuffix(workdir, "/") + "/**"
		h.add(policy.Read, wd)
	}
	for _, span := range codeSpanRE().FindAllStringSubmatch(instruction, -1) {
		h.commandLine(span[1])
	}
	for _, sentence := range sentences(instruction) {
		change := writeVerbRE().MatchString(sentence)
		for _, p := range absPaths(sentence) {
			h.named(p, change, 0)
		}
		if workdir != "" {
			for _, span := range codeSpanRE().FindAllStringSubmatch(sentence, -1) {
				if rel := span[1]; !strings.ContainsAny(rel, " /$") && strings.Contains(rel, ".") {
					h.named(path2abs(workdir, rel), change, 0)
				}
			}
		}
	}
	if wd != "" && len(h.sets[policy.Write]) == 0 {
		// No output named: the agent works in its working directory.
		h.add(policy.Write, wd)
	}
	pol := &policy.Policy{Source: genname.KindHeuristic}
	for _, a := range policy.Axes {
		list := make([]string, 0, len(h.sets[a]))
		for p := range h.sets[a] {
			list = append(list, p)
		}
		sort.Strings(list)
		for _, p := range list {
			if pat, err := policy.ParsePattern(p); err == nil {
				pol.Permissions[a] = append(pol.Permissions[a], pat)
			}
		}
	}
	if network {
		pol.Network = []policy.HostPattern{}
		list := make([]string, 0, len(h.hosts))
		for e := range h.hosts {
			list = append(list, e)
		}
		sort.Strings(list)
		for _, e := range list {
			pol.Network = append(pol.Network, policy.MustHostPattern(e))
		}
	}
	return pol
}

// defaultPorts are the ports of URL schemes that name none.
var defaultPorts = map[string]string{"http": "80", "https": "443", "ws": "80", "wss": "443", "ftp": "21", "git": "9418", "ssh": "22"}

// urls adds the host:port of every URL in text.
func (h *heuristic) urls(text string) {
	for _, m := range urlRE().FindAllStringSubmatch(text, -1) {
		port := m[3]
		if port == "" {
			port = defaultPorts[strings.ToLower(m[1])]
		}
		host := strings.TrimRight(m[2], ".")
		if p, err := policy.ParseHostPattern(host + ":" + port); err == nil && p.IsExact() {
			h.hosts[p.String()] = true
		}
	}
}

type heuristic struct {
	root  *policy.Root
	path  string
	seen  map[string]bool
	files int
	sets  [len(policy.Axes)]map[string]bool
	hosts map[string]bool // normalised host:port entries
}

func (h *heuristic) add(a policy.Axis, p string) { h.sets[a][p] = true }

// named handles a path the instruction (depth 0) or a named file names.
func (h *heuristic) named(p string, change bool, depth int) {
	p = path.Clean(p)
	if p == "/" || strings.HasPrefix(p, "/proc") || strings.HasPrefix(p, "/dev") {
		return
	}
	st, err := h.root.Stat(p)
	switch {
	case err != nil:
		if depth == 0 {
			h.add(policy.Write, p) // something to create
			if !strings.Contains(path.Base(p), ".") {
				h.add(policy.Write, p+"/**") // may be a directory to create
			}
		}
	case st.IsDir():
		h.add(policy.Read, p+"/**")
		if change && depth == 0 {
			h.add(policy.Write, p+"/**")
		}
	default:
		h.add(policy.Read, p)
		if change && depth == 0 {
			h.add(policy.Write, p)
		}
		if st.Mode().Perm()&0o111 != 0 {
			h.add(policy.Execute, h.root.Realpath(p))
		}
		h.scan(p, depth)
	}
}

// scan reads a named file for the paths and programs it names.
func (h *heuristic) scan(p string, depth int) {
	if h.seen[p] || depth >= heuristicDepth || h.files >= heuristicMaxFiles {
		return
	}
	h.seen[p] = true
	h.files++
	data, err := readBounded(h.root.HostPath(h.root.Realpath(p)))
	if err != nil || !isText(data) {
		return
	}
	text := string(data)
	h.urls(text)
	for _, q := range absPaths(text) {
		h.named(q, false, depth+1)
	}
	base := path.Base(p)
	script := strings.HasPrefix(text, "#!") || strings.HasSuffix(base, ".sh")
	makefile := base == "Makefile" || base == "makefile" || base == "GNUmakefile" || strings.HasSuffix(base, ".mk")
	if line, _, _ := strings.Cut(text, "\n"); strings.HasPrefix(line, "#!") {
		words := strings.Fields(strings.TrimPrefix(line, "#!"))
		if len(words) > 0 {
			h.program(words[0])
			if path.Base(words[0]) == "env" && len(words) > 1 {
				h.program(words[1])
			}
		}
	}
	if makefile {
		h.program("make")
	}
	for _, line := range strings.Split(text, "\n") {
		switch {
		case makefile && strings.HasPrefix(line, "\t"):
			h.commandLine(strings.TrimLeft(line, "\t@-+ "))
		case script:
			h.commandLine(line)
		}
	}
	if makefile && (strings.Contains(text, "$(CC)") || strings.Contains(text, "gcc") || strings.Contains(text, ".c")) {
		h.program("gcc")
		h.program("cc")
	}
	if strings.HasSuffix(base, ".py") {
		h.program("python3")
	}
}

// commandLine adds the programs a shell line starts.
func (h *heuristic) commandLine(line string) {
	line = strings.TrimSpace(line)
	if i := strings.Index(line, "#"); i == 0 {
		return
	}
	for _, cmd := range commandSepRE().Split(line, -1) {
		words := strings.Fields(cmd)
		for len(words) > 0 && (strings.Contains(words[0], "=") || words[0] == "sudo" || words[0] == "env" || words[0] == "then" || words[0] == "do" || words[0] == "!") {
			words = words[1:]
		}
		if len(words) == 0 || shellWords[words[0]] {
			continue
		}
		w := strings.Trim(words[0], "()\"'")
		if w == "" || strings.ContainsAny(w, "$<>*{}") {
			continue
		}
		h.program(w)
	}
}

// program adds the real path of a program found through the PATH.
func (h *heuristic) program(name string) {
	if p := h.root.LookPath(name, h.path); p != "" {
		h.add(policy.Execute, p)
	}
}

// sentences splits prose roughly into sentences (and list items).
func sentences(s string) []string {
	return regexp.MustCompile(`[.!?]\s+|\n\s*\n|\n\s*[-*]\s`).Split(s, -1)
}

// absPaths returns the absolute paths in s, without trailing punctuation.
func absPaths(s string) []string {
	var out []string
	for _, m := range absPathRE().FindAllStringSubmatch(s, -1) {
		p := strings.TrimRight(m[1], ".,:;")
		if len(p) > 1 && !strings.HasPrefix(p, "//") {
			out = append(out, p)
		}
	}
	return out
}

func path2abs(dir, rel string) string { return path.Join(dir, rel) }

func readBounded(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, heuristicMaxFileBytes)
	n, _ := f.Read(buf)
	return buf[:n], nil
}

// isText reports whether data looks like text (no NUL in its start).
func isText(data []byte) bool {
	n := min(len(data), 4096)
	for _, b := range data[:n] {
		if b == 0 {
			return false
		}
	}
	return true
}

// imagePath is the PATH of an image's environment.
func imagePath(envv []string) string {
	for _, kv := range envv {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			return v
		}
	}
	return policy.DefaultPath
}
