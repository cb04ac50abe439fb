package policy

import "testing"

// pw is what a published write grants on a parent directory.
const pw = "write_file,read_dir,remove_dir,remove_file,make_char,make_dir,make_reg,make_sock,make_fifo,make_block,make_sym,refer,truncate"

func TestCompilePlanPublished(t *testing.T) {
	root := planFixture(t)
	tests := []planCase{
		{"read existing file", `{"read":["/d/f.txt"],"write":[],"execute":[]}`,
			[]string{"/d/f.txt: read_file"}, nil, nil},
		{"read existing dir", `{"read":["/d"],"write":[],"execute":[]}`,
			[]string{"/d/: read_file,read_dir"}, []string{"directory-hierarchy@/d"}, nil},
		{"read missing reads its parent", `{"read":["/d/none.txt"],"write":[],"execute":[]}`,
			[]string{"/d/: read_file,read_dir"}, []string{"read-ancestor@/d"}, nil},
		{"read missing reads its closest existing ancestor", `{"read":["/d/a/b/c.txt"],"write":[],"execute":[]}`,
			[]string{"/d/: read_file,read_dir"}, []string{"read-ancestor@/d"}, nil},
		{"read missing below / grants nothing", `{"read":["/nope/x"],"write":[],"execute":[]}`,
			nil, nil, []string{"no-match"}},
		{"read missing recursive grants nothing", `{"read":["/d/none/**"],"write":[],"execute":[]}`,
			nil, nil, []string{"no-match"}},
		{"read recursive is the directory", `{"read":["/d/**"],"write":[],"execute":[]}`,
			[]string{"/d/: read_file,read_dir"}, nil, nil},
		{"read glob is its current matches", `{"read":["/d/*.txt"],"write":[],"execute":[]}`,
			[]string{"/d/f.txt: read_file", "/d/g.txt: read_file"}, nil, nil},
		{"glob without matches grants nothing", `{"read":["/d/*.log"],"write":["/d/*.log"],"execute":[]}`,
			nil, nil, []string{"no-match", "no-match"}},
		{"write existing file: parent and file", `{"read":[],"write":["/d/f.txt"],"execute":[]}`,
			[]string{"/d/: " + pw, "/d/f.txt: write_file,truncate"}, []string{"write-parent-directory@/d"}, nil},
		{"write missing file: parent", `{"read":[],"write":["/d/new.txt"],"execute":[]}`,
			[]string{"/d/: " + pw}, []string{"write-parent-directory@/d"}, nil},
		{"write missing deep file: closest existing ancestor", `{"read":[],"write":["/e/a/b.txt"],"execute":[]}`,
			[]string{"/e/: " + pw}, []string{"write-parent-directory@/e"}, nil},
		{"write at top level: never /", `{"read":[],"write":["/x.txt"],"execute":[]}`,
			[]string{"/x.txt: write_file,truncate"}, nil, []string{"create-at-root"}},
		{"write existing dir: its parent and itself", `{"read":[],"write":["/d/sub"],"execute":[]}`,
			[]string{"/d/: " + pw, "/d/sub/: write_file,truncate"}, []string{"directory-hierarchy@/d/sub", "write-parent-directory@/d"}, nil},
		{"write recursive is the directory", `{"read":[],"write":["/d/**"],"execute":[]}`,
			[]string{"/d/: " + pw}, []string{"extra-rights@/d"}, nil},
		{"write missing recursive: closest existing ancestor", `{"read":[],"write":["/e/out/**"],"execute":[]}`,
			[]string{"/e/: " + pw}, []string{"write-parent-directory@/e"}, nil},
		{"write glob: each match and its parent", `{"read":[],"write":["/d/*.txt"],"execute":[]}`,
			[]string{"/d/: " + pw, "/d/f.txt: write_file,truncate", "/d/g.txt: write_file,truncate"},
			[]string{"write-parent-directory@/d", "write-parent-directory@/d"}, nil},
		{"write dangling symlink: the link's directory", `{"read":[],"write":["/d/dangling"],"execute":[]}`,
			[]string{"/d/: " + pw}, []string{"write-parent-directory@/d"}, nil},
		{"write device: no ioctl", `{"read":[],"write":["/dev/tty"],"execute":[]}`,
			[]string{"/dev/: " + pw, "/dev/tty: write_file,truncate"}, []string{"write-parent-directory@/dev"}, nil},
		{"execute existing", `{"read":[],"write":[],"execute":["/d/h.bin"]}`,
			[]string{"/d/h.bin: execute,read_file"}, []string{"execute-implies-read@/d/h.bin"}, nil},
		// The launcher's caller passes every execute entry as a read entry
		// too: a missing program reads its nearest existing ancestor, and
		// an executable tree may be listed.
		{"execute missing reads its nearest existing ancestor", `{"read":[],"write":[],"execute":["/d/none"]}`,
			[]string{"/d/: read_file,read_dir"}, []string{"read-ancestor@/d"}, nil},
		{"execute missing below / grants nothing", `{"read":[],"write":[],"execute":["/nope/x"]}`,
			nil, nil, []string{"no-match"}},
		{"execute recursive is read too", `{"read":[],"write":[],"execute":["/d/**"]}`,
			[]string{"/d/: execute,read_file,read_dir"}, []string{"execute-implies-read@/d"}, nil},
		// glob.glob at launch: wildcards skip dot files, a recursive glob
		// keeps directories; files made during the run match nothing.
		{"a glob does not match a dot file", `{"read":["/d/?hidden"],"write":[],"execute":[]}`,
			nil, nil, []string{"no-match"}},
		{"a dot glob matches a dot file", `{"read":["/d/.h*"],"write":[],"execute":[]}`,
			[]string{"/d/.hidden: read_file"}, nil, nil},
		{"a recursive glob keeps directories", `{"read":["/d/*/**"],"write":[],"execute":[]}`,
			[]string{"/d/sub/: read_file,read_dir"}, nil, nil},
		// The launcher puts directory rights on the file itself, which
		// Landlock refuses (EINVAL): its run never starts. Here the file
		// is granted as its exact entry would be.
		{"read file/** is the file (the launcher fails)", `{"read":["/d/f.txt/**"],"write":[],"execute":[]}`,
			[]string{"/d/f.txt: read_file"}, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pl, err := CompilePlanWith(mustPolicy(t, tc.policy), NoBaseline(), root, PlanOptions{Semantics: SemanticsPublished})
			if err != nil {
				t.Fatal(err)
			}
			if pl.Semantics != SemanticsPublished {
				t.Errorf("plan semantics %q", pl.Semantics)
			}
			checkPlan(t, pl, tc.rules, tc.wider, tc.warnings)
			for _, w := range pl.Wider {
				if !pl.Allowed(w.Path).Has(w.Extra) {
					t.Errorf("widening %+v names rights the plan does not grant", w)
				}
			}
		})
	}
}

// TestPublishedCompilesTheSpecBaselineAsTheLauncher: the published
// launcher takes a spec's implicit_permissions like the policy's entries
// (an implicit write's parent directory, a missing implicit read's
// ancestor); the default baseline, and every baseline under precise
// semantics, stay precise.
func TestPublishedCompilesTheSpecBaselineAsTheLauncher(t *testing.T) {
	root := planFixture(t)
	spec := &Spec{Source: "spec.json", Implicit: mustPermissions([3][]string{Read: {"/e/made-at-run-time.txt"}, Write: {"/d/new.txt"}})}
	pl, err := CompilePlanWith(nil, SpecBaseline(spec), root, PlanOptions{Semantics: SemanticsPublished})
	if err != nil {
		t.Fatal(err)
	}
	if r := pl.Rule("/d"); r == nil || r.Access.String() != pw || r.From[0].Origin != OriginBaseline {
		t.Errorf("published: baseline rule on /d = %+v, want the launcher's parent rights", r)
	}
	if r := pl.Rule("/e"); r == nil || r.Access != accessReadDir {
		t.Errorf("published: baseline rule on /e = %+v, want the missing read's ancestor", r)
	}
	if len(pl.Wider) != 0 || len(pl.Warnings) != 0 {
		t.Errorf("the baseline's widenings are reported as the policy's: %+v %+v", pl.Wider, pl.Warnings)
	}
	pl, err = CompilePlanWith(nil, SpecBaseline(spec), root, PlanOptions{Semantics: SemanticsPrecise})
	if err != nil {
		t.Fatal(err)
	}
	if r := pl.Rule("/d"); r == nil || r.Access != AccessMakeReg|AccessWriteFile|AccessTruncate {
		t.Errorf("precise: baseline rule on /d = %+v, want the precise create rights", r)
	}
	if r := pl.Rule("/e"); r != nil {
		t.Errorf("precise: a missing implicit read grants %+v", r)
	}
}

// TestPublishedRunTimeFiles: what the launcher's rules grant on a file
// that does not exist at launch (/d/new.txt, made during the run beside
// /d/f.txt), entry by entry, required (the policy's) and implicit (the
// spec baseline's) alike: reading it back takes an entry that grants its
// nearest existing ancestor (and so every file of /d); a read glob that
// would match it grants nothing on it; a write entry lets it be made and
// written but not read.
func TestPublishedRunTimeFiles(t *testing.T) {
	root := planFixture(t)
	const made = "/d/new.txt"
	tests := []struct {
		name            string
		axis            Axis
		entry           string
		readMade        bool // READ_FILE on /d/new.txt
		createMade      bool // MAKE_REG in /d
		readsSibling    bool // READ_FILE on /d/f.txt (the widening)
		ruleOnAncestors string
	}{
		{"an exact read of the file", Read, made, true, false, true, "/d"},
		{"a read glob that would match it", Read, "/d/new*.txt", false, false, false, ""},
		{"a read glob matching its siblings", Read, "/d/*.txt", false, false, true, ""},
		{"a read dir/** of its directory", Read, "/d/**", true, false, true, "/d"},
		{"an exact write of the file", Write, made, false, true, false, "/d"},
		{"an exact execute of the file", Execute, made, true, false, true, "/d"},
	}
	for _, tc := range tests {
		for _, layer := range []string{"required", "implicit"} {
			t.Run(tc.name+"/"+layer, func(t *testing.T) {
				var perms Permissions
				perms[tc.axis] = []Pattern{MustPattern(tc.entry)}
				var pol *Policy
				base := NoBaseline()
				if layer == "required" {
					pol = &Policy{Permissions: perms}
				} else {
					base = SpecBaseline(&Spec{Source: "spec.json", Implicit: perms})
				}
				pl, err := CompilePlanWith(pol, base, root, PlanOptions{Semantics: SemanticsPublished})
				if err != nil {
					t.Fatal(err)
				}
				if got := pl.Allowed(made).Has(AccessReadFile); got != tc.readMade {
					t.Errorf("read %s: %v, want %v (rules %+v)", made, got, tc.readMade, pl.Rules)
				}
				if got := pl.Allowed("/d").Has(AccessMakeReg); got != tc.createMade {
					t.Errorf("create in /d: %v, want %v", got, tc.createMade)
				}
				if got := pl.Allowed("/d/f.txt").Has(AccessReadFile); got != tc.readsSibling {
					t.Errorf("read the sibling /d/f.txt: %v, want %v", got, tc.readsSibling)
				}
				if tc.ruleOnAncestors != "" && pl.Rule(tc.ruleOnAncestors) == nil {
					t.Errorf("no rule on %s: %+v", tc.ruleOnAncestors, pl.Rules)
				}
			})
		}
	}
}
