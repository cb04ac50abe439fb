package formats

import (
	"strconv"

	"github.com/authbench/authbench/policy"
)

// exportLandrun writes landrun arguments: --ro, --rox, --rw and --rwx per
// path (landrun is Landlock too, but takes hierarchies, not globs), and
// --connect-tcp per port.
func exportLandrun(ms *mountSet, pol *policy.Policy) *Exported {
	out := &Exported{}
	args := []string{"landrun"}
	for _, m := range ms.mounts {
		flag := "--ro"
		switch {
		case m.Write && m.Exec:
			flag = "--rwx"
		case m.Write:
			flag = "--rw"
		case m.Exec:
			flag = "--rox"
		}
		args = append(args, flag, m.Path)
	}
	ports := map[int]bool{}
	for _, h := range pol.Network {
		if h.Port() == policy.AnyPort {
			args = append(args, "--unrestricted-network")
			out.Warnings = append(out.Warnings, Warning{Axis: "network", Entry: h.String(), Effect: Wider,
				Message: "landrun filters TCP ports, not hosts: any port is --unrestricted-network"})
			continue
		}
		if !ports[h.Port()] {
			ports[h.Port()] = true
			args = append(args, "--connect-tcp", strconv.Itoa(h.Port()))
		}
		if h.Host() != "*" {
			out.Warnings = append(out.Warnings, Warning{Axis: "network", Entry: h.String(), Effect: Wider,
				Message: "landrun filters TCP ports, not hosts: every host on port " + strconv.Itoa(h.Port()) + " is reachable"})
		}
	}
	args = append(args, "--")
	out.Args = args
	out.Text = commandText(args)
	return out
}
