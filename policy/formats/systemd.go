package formats

import (
	"bytes"
	"io"
	"strings"

	"github.com/coreos/go-systemd/v22/unit"

	"github.com/authbench/authbench/policy"
)

// exportSystemd writes a [Service] section: the file system read-only
// (ProtectSystem=strict) with the policy's write paths writable
// (ReadWritePaths=), home directories hidden (ProtectHome=tmpfs) but for
// the read paths below them (BindReadOnlyPaths=), nothing executable
// (NoExecPaths=/) but the execute paths (ExecPaths=), and no network
// unless π has network entries.
func exportSystemd(ms *mountSet, pol *policy.Policy) *Exported {
	out := &Exported{}
	opts := []*unit.UnitOption{
		unit.NewUnitOption("Service", "ProtectSystem", "strict"),
		unit.NewUnitOption("Service", "ProtectHome", "tmpfs"),
		unit.NewUnitOption("Service", "PrivateTmp", "no"),
		unit.NewUnitOption("Service", "NoNewPrivileges", "yes"),
		unit.NewUnitOption("Service", "NoExecPaths", "/"),
	}
	var rw, exec, homeRO []string
	for _, m := range ms.mounts {
		if m.Write {
			rw = append(rw, m.Path)
		} else if underHome(m.Path) {
			homeRO = append(homeRO, m.Path)
		}
		if m.Exec {
			exec = append(exec, m.Path)
		}
	}
	for _, o := range []struct {
		key   string
		paths []string
	}{{"ReadWritePaths", rw}, {"BindReadOnlyPaths", homeRO}, {"ExecPaths", exec}} {
		for _, p := range o.paths {
			// "-": a path missing when the unit starts is not an error.
			opts = append(opts, unit.NewUnitOption("Service", o.key, "-"+systemdEscape(p)))
		}
	}
	out.Warnings = append(out.Warnings, Warning{Axis: "read", Effect: Wider,
		Message: "systemd has no read allowlist outside a RootDirectory=: the unit can read every file outside /home, /root and /run/user that its user may read; only home directories are limited to the policy's read paths"})
	if len(pol.Network) == 0 {
		opts = append(opts, unit.NewUnitOption("Service", "PrivateNetwork", "yes"))
	} else {
		out.Warnings = append(out.Warnings, Warning{Axis: "network", Entry: strings.Join(hostEntries(pol), " "), Effect: Wider,
			Message: "systemd filters IP addresses, not host names or ports: the network is left open"})
	}
	data, _ := io.ReadAll(unit.Serialize(opts))
	out.Text = "# A drop-in of the service (systemctl edit UNIT), from an authbench policy.\n" + string(bytes.TrimRight(data, "\n")) + "\n"
	return out
}

func underHome(p string) bool {
	for _, h := range []string{"/home", "/root", "/run/user"} {
		if p == h || strings.HasPrefix(p, h+"/") {
			return true
		}
	}
	return false
}

// systemdEscape quotes a path for a space-separated path list.
func systemdEscape(p string) string {
	if strings.ContainsAny(p, " \t\"'\\") {
		return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(p) + `"`
	}
	return p
}
