package oracle

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/authbench/authbench/policy"
)

func roots(read, write, execute []string) policy.Permissions {
	var p policy.Permissions
	for ax, list := range [][]string{read, write, execute} {
		for _, s := range list {
			p[ax] = append(p[ax], policy.MustPattern(s))
		}
	}
	return p
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

func set(s ...string) map[string]bool {
	m := map[string]bool{}
	for _, x := range s {
		m[x] = true
	}
	return m
}

func TestCompact(t *testing.T) {
	appRoots := roots([]string{"/app"}, []string{"/app", "/tmp"}, []string{"/usr/bin"})
	var many, listed []string
	for i := range ListLimit + 1 {
		many = append(many, fmt.Sprintf("/app/build/obj/f%d.o", i))
	}
	for i := range ListLimit {
		listed = append(listed, fmt.Sprintf("/app/build/obj/f%d.o", i))
	}
	for _, c := range []struct {
		name    string
		write   []string
		read    []string
		exec    []string
		created []string
		removed []string
		roots   policy.Permissions
		want    []string // write entries
		wantR   []string // read entries
		wantX   []string // execute entries
		rules   []string
	}{
		{name: "nothing to compact", write: []string{"/app/out.txt"}, created: []string{"/app/out.txt"}, roots: appRoots,
			want: []string{"/app/out.txt"}},
		{name: "created then removed", write: []string{"/app/work/scratch", "/app/work/result"}, created: []string{"/app/work/scratch", "/app/work/result"},
			removed: []string{"/app/work/scratch"}, roots: appRoots,
			want: []string{"/app/work/**"}, rules: []string{RuleCreatedRemoved}},
		{name: "created then removed in a scored root stays exact", write: []string{"/app/scratch"}, created: []string{"/app/scratch"},
			removed: []string{"/app/scratch"}, roots: appRoots, want: []string{"/app/scratch"}},
		{name: "existing file removed is not debris", write: []string{"/app/data/old.csv"}, removed: []string{"/app/data/old.csv"}, roots: appRoots,
			want: []string{"/app/data/old.csv"}},
		{name: "generated name", write: []string{"/app/cache/3f2a9c0b1d4e5f60.bin"}, created: []string{"/app/cache/3f2a9c0b1d4e5f60.bin"}, roots: appRoots,
			want: []string{"/app/cache/**"}, rules: []string{RuleGeneratedName}},
		{name: "generated name in a scored root becomes a glob", write: []string{"/tmp/tmp.Xy3kQ9"}, created: []string{"/tmp/tmp.Xy3kQ9"}, roots: appRoots,
			want: []string{"/tmp/tmp.*"}, rules: []string{RuleGeneratedName}},
		{name: "generated directory in a scored root: globbed, its contents dir/**",
			write:   []string{"/tmp/tmpk2j3_x9a", "/tmp/tmpk2j3_x9a/a", "/tmp/tmpk2j3_x9a/b"},
			read:    []string{"/tmp/tmpk2j3_x9a/a"},
			created: []string{"/tmp/tmpk2j3_x9a", "/tmp/tmpk2j3_x9a/a", "/tmp/tmpk2j3_x9a/b"},
			removed: []string{"/tmp/tmpk2j3_x9a/a", "/tmp/tmpk2j3_x9a/b", "/tmp/tmpk2j3_x9a"},
			roots:   roots([]string{"/tmp"}, []string{"/tmp"}, nil),
			want:    []string{"/tmp/tmp*/**"}, wantR: []string{"/tmp/tmp*/**"},
			rules: []string{RuleCreatedRemoved, RuleCreatedRemoved}},
		{name: "many siblings: the highest created directory", write: append([]string{"/app/build", "/app/build/obj"}, many...),
			created: append([]string{"/app/build", "/app/build/obj"}, many...), roots: appRoots,
			want: []string{"/app/build/**"}, rules: []string{RuleManySiblings}},
		{name: "up to ListLimit siblings: listed one by one", write: append([]string{"/app/build", "/app/build/obj"}, listed...),
			created: append([]string{"/app/build", "/app/build/obj"}, listed...), roots: appRoots,
			want: sorted(append([]string{"/app/build", "/app/build/obj"}, listed...))},
		{name: "a scratch tree below one directory the oracle made: write names that directory, read the existing one",
			write:   []string{"/src/cli/Makefile", "/src/cli/dist", "/src/cli/dist/cli-1.0", "/src/cli/dist/cli-1.0/README", "/src/cli/dist/cli-1.0.tar.gz", "/src/cli/dist/SUMS"},
			read:    []string{"/src/cli/Makefile", "/src/cli/dist/cli-1.0.tar.gz"},
			created: []string{"/src/cli/dist", "/src/cli/dist/cli-1.0", "/src/cli/dist/cli-1.0/README", "/src/cli/dist/cli-1.0.tar.gz", "/src/cli/dist/SUMS"},
			removed: []string{"/src/cli/dist/cli-1.0/README", "/src/cli/dist/cli-1.0"},
			roots:   roots([]string{"/src"}, []string{"/src"}, nil),
			want:    []string{"/src/cli/Makefile", "/src/cli/dist/**"}, wantR: []string{"/src/cli/**"},
			rules: []string{RuleCreatedRemoved, RuleCreatedRemoved}},
		{name: "scratch in two directories the oracle made below one: the existing one",
			write:   []string{"/r/.git/objects/ab/tmp_a", "/r/.git/objects/cd/tmp_b", "/r/.git/HEAD"},
			created: []string{"/r/.git/objects/ab", "/r/.git/objects/ab/tmp_a", "/r/.git/objects/cd", "/r/.git/objects/cd/tmp_b"},
			removed: []string{"/r/.git/objects/ab/tmp_a", "/r/.git/objects/cd/tmp_b"},
			roots:   roots(nil, []string{"/r"}, nil),
			want:    []string{"/r/.git/HEAD", "/r/.git/objects/**"}, rules: []string{RuleCreatedRemoved}},
		{name: "never / and never a scored root", write: []string{"/x.12345", "/app/y.12345"}, created: []string{"/x.12345", "/app/y.12345"},
			removed: []string{"/x.12345", "/app/y.12345"}, roots: roots(nil, []string{"/", "/app"}, nil),
			want: []string{"/app/y.*", "/x.*"}, rules: []string{RuleGeneratedName, RuleGeneratedName}},
		{name: "never above a scored root", read: []string{"/srv/w/tmp.Ab3dE9"}, write: []string{"/srv/w/tmp.Ab3dE9"},
			created: []string{"/srv/w/tmp.Ab3dE9"}, roots: roots([]string{"/srv/w/tmp.Ab3dE9"}, []string{"/srv"}, nil),
			want: []string{"/srv/w/tmp.*"}, wantR: []string{"/srv/w/tmp.*"}, rules: []string{RuleGeneratedName, RuleGeneratedName}},
		{name: "a program built then run: the dir/** of its directory in the image, a scored root included",
			write: []string{"/home/lab/heat/heat"}, exec: []string{"/home/lab/heat/heat", "/home/lab/heat/out/bin/tool", "/usr/bin/make"},
			created: []string{"/home/lab/heat/heat", "/home/lab/heat/out", "/home/lab/heat/out/bin", "/home/lab/heat/out/bin/tool"},
			roots:   roots(nil, []string{"/home/lab/heat"}, []string{"/usr/bin", "/home/lab/heat"}),
			want:    []string{"/home/lab/heat/heat"}, wantX: []string{"/home/lab/heat/**", "/usr/bin/make"},
			rules: []string{RuleCreatedExecuted}},
		{name: "a program created outside every execute root stays exact",
			exec: []string{"/tmp/run.sh"}, created: []string{"/tmp/run.sh"}, roots: roots(nil, nil, []string{"/tmp/run.sh"}),
			want: []string{}, wantX: []string{"/tmp/run.sh"}},
	} {
		in := CompactInput{Created: set(c.created...), Removed: set(c.removed...), Roots: c.roots}
		in.Paths[policy.Write] = c.write
		in.Paths[policy.Read] = c.read
		in.Paths[policy.Execute] = c.exec
		entries, log := Compact(in)
		if !reflect.DeepEqual(entries[policy.Write], c.want) {
			t.Errorf("%s: write %q, want %q", c.name, entries[policy.Write], c.want)
		}
		if len(c.read) > 0 && !reflect.DeepEqual(entries[policy.Read], c.wantR) {
			t.Errorf("%s: read %q, want %q", c.name, entries[policy.Read], c.wantR)
		}
		if len(c.exec) > 0 && !reflect.DeepEqual(entries[policy.Execute], c.wantX) {
			t.Errorf("%s: execute %q, want %q", c.name, entries[policy.Execute], c.wantX)
		}
		var rules []string
		for _, l := range log {
			rules = append(rules, l.Rule)
		}
		if !reflect.DeepEqual(rules, c.rules) {
			t.Errorf("%s: rules %q, want %q (%+v)", c.name, rules, c.rules, log)
		}
	}
}

func TestMerge(t *testing.T) {
	run := func(r, w, x []string) [len(policy.Axes)][]string { return [len(policy.Axes)][]string{r, w, x} }
	merged, nd := Merge([][len(policy.Axes)][]string{
		run([]string{"/app/a", "/app/b"}, []string{"/app/out", "/app/once"}, []string{"/usr/bin/wc"}),
		run([]string{"/app/a"}, []string{"/app/out"}, []string{"/usr/bin/wc", "/usr/bin/sort"}),
	})
	want := [len(policy.Axes)][]string{{"/app/a", "/app/b"}, {"/app/out"}, {"/usr/bin/sort", "/usr/bin/wc"}}
	if !reflect.DeepEqual(merged, want) {
		t.Errorf("merged %q, want %q", merged, want)
	}
	wantND := []Nondeterministic{
		{Axis: "read", Entry: "/app/b", Runs: []int{1}, Kept: true},
		{Axis: "write", Entry: "/app/once", Runs: []int{1}, Kept: false},
		{Axis: "execute", Entry: "/usr/bin/sort", Runs: []int{2}, Kept: true},
	}
	if !reflect.DeepEqual(nd, wantND) {
		t.Errorf("nondeterministic %+v, want %+v", nd, wantND)
	}
	merged, nd = Merge([][len(policy.Axes)][]string{run([]string{"/app/a"}, nil, nil)})
	if len(nd) != 0 || !reflect.DeepEqual(merged[policy.Read], []string{"/app/a"}) {
		t.Errorf("one run: %q %+v", merged, nd)
	}
}
