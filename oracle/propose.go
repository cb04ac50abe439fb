package oracle

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/authbench/authbench/internal/safefile"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/tasks"
)

// executeRoots are the proposed execute scored roots (those in the image).
var executeRoots = []string{"/usr/bin", "/bin", "/usr/local/bin"}

// ProposeSpec is the starting spec of a task that has none: scored_roots
// are the image's working directory (read and write) and /usr/bin, /bin
// and /usr/local/bin (execute, those the image has);
// implicit_permissions the documented default runtime baseline
// (policy.DefaultBaseline); no required entries yet.
func ProposeSpec(workdir string, root *policy.Root) (*policy.Spec, error) {
	workdir = path.Clean("/" + workdir)
	if workdir == "/" {
		return nil, errors.New("the image has no working directory (WORKDIR) below /: write scored_roots by hand")
	}
	spec := &policy.Spec{Source: "proposed spec", Implicit: policy.DefaultBaseline().Permissions}
	w := policy.MustPattern(workdir)
	spec.ScoredRoots[policy.Read] = []policy.Pattern{w}
	spec.ScoredRoots[policy.Write] = []policy.Pattern{w}
	for _, r := range executeRoots {
		if root != nil {
			if _, err := root.Lstat(r); err != nil {
				continue
			}
		}
		spec.ScoredRoots[policy.Execute] = append(spec.ScoredRoots[policy.Execute], policy.MustPattern(r))
	}
	return spec, nil
}

// SpecMissing reports whether err is a task loader error whose only
// problem is a missing tests/permission_eval_spec.json.
func SpecMissing(err error) bool {
	var te *tasks.Error
	if !errors.As(err, &te) || len(te.Problems) == 0 {
		return false
	}
	for _, p := range te.Problems {
		if p.File != tasks.FilePermissionSpec || p.Msg != "missing" {
			return false
		}
	}
	return true
}

// StageWithSpec copies the task directory dir into a new directory
// below tmp under the same name (so that its image is the same one),
// writes spec as its permission spec, and loads the copy.
func StageWithSpec(dir, tmp string, spec *policy.Spec) (*tasks.Task, error) {
	dst := filepath.Join(tmp, filepath.Base(dir))
	if _, err := os.Lstat(dst); errors.Is(err, fs.ErrNotExist) {
		if err := copyTree(dir, dst); err != nil {
			return nil, fmt.Errorf("stage task %s: %w", dir, err)
		}
	}
	data, err := FormatSpec(spec, DefaultStyle())
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dst, tasks.DirTests), 0o755); err != nil {
		return nil, err
	}
	if err := safefile.WriteFile(filepath.Join(dst, filepath.FromSlash(tasks.FilePermissionSpec)), data, 0o644); err != nil {
		return nil, err
	}
	return tasks.Load(dst)
}

// copyTree copies regular files, directories and symlinks of src to dst.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(target, info.Mode().Perm()|0o700)
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case d.Type().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(target, data, info.Mode().Perm())
		}
		return nil // devices, fifos, sockets: not part of a task
	})
}
