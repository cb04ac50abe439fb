package formats

import (
	"strings"

	"github.com/kballard/go-shellquote"

	"github.com/authbench/authbench/policy"
)

// exportBwrap writes bubblewrap arguments: a new root of empty tmpfs with
// each path bound in (read-only, or writable) and the links on the way to
// them, fresh /proc and /dev, the root read-only, all namespaces unshared
// (the network too unless π has network entries).
func exportBwrap(ms *mountSet, pol *policy.Policy) *Exported {
	out := &Exported{}
	args := []string{"bwrap", "--unshare-all", "--die-with-parent", "--new-session"}
	if len(pol.Network) > 0 {
		args = append(args, "--share-net")
		out.Warnings = append(out.Warnings, Warning{Axis: "network", Entry: strings.Join(hostEntries(pol), " "), Effect: Wider,
			Message: "bwrap cannot filter hosts or ports: the command shares the host's network"})
	}
	args = append(args, "--proc", "/proc", "--dev", "/dev")
	for _, l := range ms.links {
		args = append(args, "--symlink", l.Target, l.Link)
	}
	readOnly, fresh := 0, map[string]bool{}
	for _, m := range ms.mounts {
		if top := freshTop(m.Path); top != "" {
			fresh[top] = true
			continue
		}
		if m.Write {
			args = append(args, "--bind", m.Path, m.Path)
		} else {
			args = append(args, "--ro-bind", m.Path, m.Path)
			if !m.Exec {
				readOnly++
			}
		}
	}
	// The new root itself (a tmpfs holding the mount points) takes no
	// writes: only the write paths' own mounts do.
	args = append(args, "--remount-ro", "/")
	if readOnly > 0 {
		out.Warnings = append(out.Warnings, Warning{Axis: "execute", Effect: Wider,
			Message: "bwrap has no per-path noexec: every file it binds in can be executed (the execute axis is not enforced)"})
	}
	out.Warnings = append(out.Warnings, Warning{Effect: Wider,
		Message: "bwrap mounts a fresh /proc and /dev for the command, whatever the policy says of them"})
	for top := range fresh {
		out.Warnings = append(out.Warnings, Warning{Entry: top, Effect: Same,
			Message: "the policy's paths below " + top + " are the fresh " + top + "'s, not bound from the host"})
	}
	args = append(args, "--")
	out.Args = args
	out.Text = commandText(args)
	return out
}

// freshTop is /proc or /dev when p lies there (bwrap mounts them anew).
func freshTop(p string) string {
	for _, top := range []string{"/proc", "/dev"} {
		if p == top || strings.HasPrefix(p, top+"/") {
			return top
		}
	}
	return ""
}

// commandText writes an argument list as a shell command line, one flag
// and its values a line.
func commandText(args []string) string {
	var lines []string
	for _, a := range args {
		q := shellquote.Join(a)
		if len(lines) > 0 && !strings.HasPrefix(a, "--") {
			lines[len(lines)-1] += " " + q
			continue
		}
		lines = append(lines, q)
	}
	return strings.Join(lines, " \\\n  ") + "\n"
}
