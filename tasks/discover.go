package tasks

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// maxSuiteDepth bounds how deep Discover looks for task directories.
const maxSuiteDepth = 6

// Discover returns the task directories at dir: dir itself when it holds
// a task.toml, else every directory below it (up to six levels, hidden
// directories skipped, not descending into a task) that holds one, in
// lexical order. A dir with no task at all is an error.
func Discover(dir string) ([]string, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("find tasks in %s: %w", dir, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("find tasks in %s: not a directory", dir)
	}
	if isTaskDir(dir) {
		return []string{dir}, nil
	}
	var found []string
	root := filepath.Clean(dir)
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil // unreadable subtree: not a task
		}
		if !d.IsDir() || p == root {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if isTaskDir(p) {
			found = append(found, p)
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(root, p)
		if strings.Count(rel, string(filepath.Separator)) >= maxSuiteDepth-1 {
			return filepath.SkipDir
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("find tasks in %s: %w", dir, err)
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("find tasks in %s: no %s in it or below it", dir, FileConfig)
	}
	sort.Strings(found)
	return found, nil
}

func isTaskDir(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, FileConfig))
	return err == nil || !errors.Is(err, fs.ErrNotExist)
}
