package tasks

import (
	"errors"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/authbench/authbench/policy"
)

// runChecks reports what a run of an otherwise well-formed task would
// trip on. They run after the files are read, on what was loaded.
func (c *dirCheck) runChecks() {
	c.heredocs()
	c.copySources()
	c.attackSmoke()
	c.specRoots()
	c.specLint()
	c.workDir()
	c.readOnlyWrites()
}

// heredocs names every heredoc the builder cannot run (an error: `env
// build` refuses the task with the same lines).
func (c *dirCheck) heredocs() {
	df := c.t.Dockerfile
	if df == nil {
		return
	}
	_, err := TranslateHeredocs(df, nil)
	var he *HeredocError
	if errors.As(err, &he) {
		for _, p := range he.Problems {
			c.file(FileDockerfile).add(p.Line, "", "heredoc the builder cannot run: %s", p.Msg)
		}
	}
}

// attackSmoke warns when a sensitive task has no shortcut: nothing shows
// that its attack verifier can fire.
func (c *dirCheck) attackSmoke() {
	if c.t.IsSensitive() && !c.has(FileAttackSmoke) {
		c.file(FileAttackSmoke).warn(0, "", "missing: a sensitive task needs its shortcut to show that %s can pass", FileTestAttack)
	}
}

// specLint reports the spec lint every command shares (policy.LintSpec:
// required entries a sensitive entry overlaps) as warnings: runs without
// a spec-derived policy still work, while spec check, oracle verify and
// record, tasks errata and the bench's spec and trace sources refuse the
// spec with the same words.
func (c *dirCheck) specLint() {
	if c.t.Spec == nil {
		return
	}
	var ve *policy.ValidationError
	if errors.As(policy.LintSpec(c.t.Spec), &ve) {
		for _, p := range ve.Problems {
			c.file(FilePermissionSpec).warn(0, p.Field, "%s (refused by spec check, oracle verify and record, tasks errata and the bench's spec and trace sources)", p.Msg)
		}
	}
}

// specRoots reports the spec's problems that the published verifier
// tolerates (policy.SpecWarnings: entries outside the scored roots) as
// warnings: spec check shows them the same way, and no run refuses them.
func (c *dirCheck) specRoots() {
	if c.t.Spec == nil {
		return
	}
	for _, p := range policy.SpecWarnings(c.t.Spec) {
		c.file(FilePermissionSpec).warn(0, p.Field, "%s", p.Msg)
	}
}

// unwritablePaths are where a task run's agent cannot write, whatever
// the policy: kernel file systems the container mounts read-only or
// without files to create, and the harness's verifier directories, which
// are replaced (/tests) or emptied (/logs/verifier) before the verifiers.
var unwritablePaths = map[string]string{
	"/proc":          "procfs is not a place to write files",
	"/sys":           "sysfs is mounted read-only",
	"/tests":         "the tests are copied in after the agent, over whatever it left there",
	"/logs/verifier": "it is emptied before each verifier",
}

// readOnlyWrites warns about required writes the agent can never make
// (unwritablePaths): the oracle cannot have needed them, and a policy
// that grants them gains nothing.
func (c *dirCheck) readOnlyWrites() {
	spec := c.t.Spec
	if spec == nil {
		return
	}
	ps := c.file(FilePermissionSpec)
	for i, p := range spec.Required[policy.Write] {
		for dir, why := range unwritablePaths {
			if b := p.Base(); b == dir || strings.HasPrefix(b, dir+"/") {
				ps.warn(0, fieldIndex("required_permissions.write", i), "%q is a write into %s, which a run never lets the agent change: %s", p.String(), dir, why)
			}
		}
	}
}

func fieldIndex(field string, i int) string { return field + "[" + strconv.Itoa(i) + "]" }

// workDir warns when the image's work directory is one that WORKDIR
// creates (owned by root, mode 755) while the agent runs as another user
// and no RUN of the stage changes its owner or mode or creates it as a
// user's home: the agent cannot create files where it starts.
func (c *dirCheck) workDir() {
	df := c.t.Dockerfile
	if df == nil {
		return
	}
	stage := finalStage(df)
	user, userFrom := c.t.Config.Agent.User, "[agent] user"
	var workdir string
	var wdLine int
	var runs []Instruction
	for _, in := range stage {
		switch in.Cmd {
		case "USER":
			if len(in.Words) > 0 && c.t.Config.Agent.User == "" {
				user, userFrom = in.Words[0], "USER"
			}
		case "WORKDIR":
			if len(in.Words) > 0 {
				wd := in.Words[0]
				if !path.IsAbs(wd) {
					wd = path.Join("/", workdir, wd)
				}
				workdir, wdLine = path.Clean(wd), in.Line
			}
		case "RUN":
			runs = append(runs, in)
		}
	}
	if workdir == "" || workdir == "/tmp" || strings.Contains(workdir, "$") || isRootUser(user) {
		return
	}
	name := strings.SplitN(user, ":", 2)[0]
	for _, in := range runs {
		if changesOwnerOrMode(in, workdir) || makesHome(in, workdir, name) {
			return
		}
	}
	c.file(FileDockerfile).warn(wdLine, "", "WORKDIR %s is created owned by root (mode 755) and the agent runs as %s %q, which cannot write there; chown or chmod it in a later RUN (e.g. RUN chown %s %s)",
		workdir, userFrom, user, name, workdir)
}

// finalStage returns the instructions after the last FROM.
func finalStage(df *Dockerfile) []Instruction {
	for i := len(df.Instructions) - 1; i >= 0; i-- {
		if df.Instructions[i].Cmd == "FROM" {
			return df.Instructions[i+1:]
		}
	}
	return nil
}

// isRootUser reports whether a USER / [agent] user value means root ("" is
// the image's default: root in the published images).
func isRootUser(u string) bool {
	name := strings.SplitN(u, ":", 2)[0]
	return name == "" || name == "root" || name == "0"
}

var (
	ownerOrMode = regexp.MustCompile(`\b(chown|chmod|chgrp|setfacl|install)\b`)
	addUser     = regexp.MustCompile(`\b(useradd|adduser)\b`)
)

// makesHome reports whether a RUN adds a user whose home is dir (named
// with -d, or /home/USER for the agent's user).
func makesHome(in Instruction, dir, user string) bool {
	cmd := runText(in)
	if !addUser.MatchString(cmd) {
		return false
	}
	return strings.Contains(cmd, dir) || dir == "/home/"+user && strings.Contains(cmd, user)
}

func runText(in Instruction) string {
	cmd := strings.Join(in.Words, " ")
	for _, h := range in.Heredocs {
		cmd += "\n" + h.Content
	}
	return cmd
}

// changesOwnerOrMode reports whether a RUN plausibly changes the owner or
// mode of dir: it runs chown/chmod/chgrp/setfacl/install and names dir
// (or ".", its own work directory).
func changesOwnerOrMode(in Instruction, dir string) bool {
	cmd := runText(in)
	if !ownerOrMode.MatchString(cmd) {
		return false
	}
	for _, f := range strings.FieldsFunc(cmd, func(r rune) bool { return strings.ContainsRune(" \t\n;&|'\"", r) }) {
		f = strings.TrimRight(f, "/")
		if f == dir || f == "." || f == "$PWD" || f == dir+"/*" || strings.HasPrefix(dir, f+"/") && f != "" {
			return true
		}
	}
	return false
}
