package bench

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/authbench/authbench/tasks"
)

func TestKeyDir(t *testing.T) {
	cases := []struct {
		key  Key
		want string
	}{
		{Key{"hello", "spec", "oracle", 1}, "hello__spec__oracle__1"},
		{Key{"hello", "allow-all", "shortcut", 3}, "hello__allow-all__shortcut__3"},
	}
	for _, c := range cases {
		if got := c.key.Dir(); got != c.want {
			t.Errorf("%v: %q, want %q", c.key, got, c.want)
		}
	}
	// Names with unsafe characters stay distinct and file-name safe.
	a := Key{"t", "dir:/a/b", `cmd:"echo hi"`, 1}.Dir()
	b := Key{"t", "dir:/a-b", `cmd:"echo hi "`, 1}.Dir()
	if a == b || strings.ContainsAny(a+b, `/:" `) {
		t.Errorf("unsafe names: %q %q", a, b)
	}
}

func TestParseShard(t *testing.T) {
	for _, bad := range []string{"1", "2/2", "-1/2", "a/b", "0/0", "1/"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("shard %q accepted", bad)
		}
	}
	s, err := ParseShard("1/3")
	if err != nil || s != (Shard{1, 3}) || s.String() != "1/3" {
		t.Fatalf("1/3: %v %v", s, err)
	}
	whole, _ := ParseShard("")
	// Every index is in exactly one shard of N, and in the whole.
	for i := 0; i < 20; i++ {
		n := 0
		for k := 0; k < 3; k++ {
			if (Shard{k, 3}).Has(i) {
				n++
			}
		}
		if n != 1 || !whole.Has(i) {
			t.Fatalf("index %d in %d shards", i, n)
		}
	}
}

func TestPlanRunsAddsShortcutOnSensitiveTasks(t *testing.T) {
	std := &tasks.Task{Name: "a"}
	std.Config.Metadata.Dataset = tasks.Standard
	sens := &tasks.Task{Name: "b", AttackSmoke: "/x/solution/attack_smoke.sh"}
	sens.Config.Metadata.Dataset = tasks.Sensitive
	srcs := []Source{{Name: "spec"}, {Name: "unconstrained"}}
	got := planRuns([]*tasks.Task{std, sens}, srcs, "oracle", 2)
	var names []string
	for _, k := range got {
		names = append(names, k.String())
	}
	want := []string{
		"a/spec/oracle/1", "a/spec/oracle/2", "a/unconstrained/oracle/1", "a/unconstrained/oracle/2",
		"b/spec/oracle/1", "b/spec/oracle/2", "b/spec/shortcut/1", "b/spec/shortcut/2",
		"b/unconstrained/oracle/1", "b/unconstrained/oracle/2", "b/unconstrained/shortcut/1", "b/unconstrained/shortcut/2",
	}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("runs\n%v\nwant\n%v", names, want)
	}
	// A cmd: agent runs alone.
	if got := planRuns([]*tasks.Task{sens}, srcs[:1], `cmd:"true"`, 1); len(got) != 1 {
		t.Fatalf("cmd agent: %v", got)
	}
}

func TestParseSources(t *testing.T) {
	dir := t.TempDir()
	got, err := ParseSources("unconstrained, spec,allow-all,trace,dir:" + dir + ",gen:heuristic, gen:cmd:echo a, b")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range got {
		names = append(names, s.Name)
	}
	want := []string{"unconstrained", "spec", "allow-all", "trace", "dir:" + dir, "gen:heuristic", "gen:cmd:echo a, b"}
	if !reflect.DeepEqual(names, want) || got[4].Dir != dir || got[5].Generator != "heuristic" {
		t.Fatalf("%v", got)
	}
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for bad, msg := range map[string]string{
		"":                   "no policy source",
		"spec,spec":          "given twice",
		"gen:nonsense":       "unknown generator",
		"gen:cmd:":           "cmd: needs a command",
		"nonsense":           "unknown policy source",
		"dir:":               "needs a path",
		"dir:" + dir + "/no": "no such file",
		"dir:" + file:        "not a directory",
	} {
		if _, err := ParseSources(bad); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: %v, want %q", bad, err, msg)
		}
	}
}

func TestDirPolicy(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("good.json", `{"read": ["/app/**"], "write": [], "execute": ["/usr/bin/bash"]}`)
	write("bad.json", `{"read": ["relative"], "write": [], "execute": []}`)
	write("garbage.json", `{"read": [`)
	s := Source{Name: "dir:" + dir, Dir: dir}
	good := s.dirPolicy("good", nil)
	if !good.valid || good.err != "" || good.pol == nil || len(good.pol.Get(0)) != 1 || good.source != "policy" {
		t.Fatalf("good: %+v", good)
	}
	for task, msg := range map[string]string{"bad": "absolute", "garbage": "", "missing": "no policy file"} {
		rp := s.dirPolicy(task, nil)
		if rp.valid || rp.err == "" || !strings.Contains(rp.err, msg) {
			t.Errorf("%s: valid %v err %q, want invalid with %q", task, rp.valid, rp.err, msg)
		}
		// An invalid policy runs as deny-all.
		if string(rp.doc) != denyAll || rp.pol == nil || rp.pol.Len() != 0 {
			t.Errorf("%s: runs under %s", task, rp.doc)
		}
	}
}
