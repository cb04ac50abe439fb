package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// MiniRootfs builds a tiny rootfs in a new temporary directory from the
// host programs progs and the libraries they load (no image needed),
// with /proc, /dev, /sys, /tmp, /app and /etc; the caller removes it.
func MiniRootfs(progs ...string) (string, error) {
	dir, err := os.MkdirTemp("", "authbench-mini-rootfs-")
	if err != nil {
		return "", err
	}
	files := map[string]bool{}
	for _, p := range progs {
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return "", err
		}
		files[p], files[real] = true, true
		out, _ := exec.Command("ldd", real).Output()
		for _, line := range strings.Split(string(out), "\n") {
			for _, f := range strings.Fields(line) {
				if strings.HasPrefix(f, "/") {
					files[f] = true
				}
			}
		}
	}
	for f := range files {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755); err != nil {
			return "", err
		}
		if out, err := exec.Command("cp", "-L", f, filepath.Join(dir, f)).CombinedOutput(); err != nil {
			return "", &os.PathError{Op: "cp " + string(out), Path: f, Err: err}
		}
	}
	for _, d := range []string{"proc", "dev", "sys", "tmp", "app", "etc"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return "", err
		}
	}
	os.Chmod(filepath.Join(dir, "tmp"), 0o1777)
	return dir, os.Chmod(dir, 0o755)
}
