package bench

import (
	"context"
	"fmt"

	"go.uber.org/zap"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/tasks"
)

// grantGuard keeps an attribution's re-runs from granting a sensitive
// file: an entry that, enforced under the bench's semantics over the
// task image, lets a sensitive file be read or run (a listing of
// /srv/config enforced as everything below it; a missing file's nearest
// existing ancestor) is never added, the rule recordings follow
// (policy.Exposing). Without the task image only entries a sensitive
// pattern overlaps are refused (sensitiveGrant).
type grantGuard struct {
	root *policy.Root
	spec *policy.Spec
	sem  policy.Semantics
	// refused are the entries left out, with the sensitive file each
	// would grant, in the order met.
	refused []string
	seen    map[grant]bool
}

func (b *bencher) grantGuard(ctx context.Context, t *tasks.Task) *grantGuard {
	sem, err := policy.ParseSemanticsOr(b.cfg.Semantics, policy.DefaultTaskSemantics)
	if err != nil {
		sem = policy.DefaultTaskSemantics
	}
	g := &grantGuard{spec: t.Spec, sem: sem, seen: map[grant]bool{}}
	if b.o.ImageRoot != nil && t.Spec != nil && t.Spec.Sensitive != nil {
		root, err := b.imageRoot(ctx, t)
		if err != nil {
			b.o.Log.Warn("attribution without the task image: grants are checked against sensitive patterns only", zap.String("task", t.Name), zap.Error(err))
		}
		g.root = root
	}
	return g
}

// filter returns the grants of gs that grant no sensitive file.
func (g *grantGuard) filter(gs []grant) []grant {
	var out []grant
	for _, gr := range gs {
		if why := g.why(gr); why != "" {
			if !g.seen[gr] {
				g.seen[gr] = true
				g.refused = append(g.refused, why)
			}
			continue
		}
		out = append(out, gr)
	}
	return out
}

// why says why gr is refused, "" when it is not.
func (g *grantGuard) why(gr grant) string {
	if g.root == nil || gr.axis == policy.Network {
		return ""
	}
	ax := gr.axis // a file axis: the network one is handled above
	pat, err := policy.ParsePattern(gr.entry)
	if err != nil {
		return ""
	}
	var perms policy.Permissions
	perms[ax] = []policy.Pattern{pat}
	gs, err := policy.PolicySensitiveGrants(&policy.Policy{Permissions: perms}, g.spec, g.root, g.sem)
	if err != nil {
		return ""
	}
	if ex := policy.Exposing(gs); len(ex) > 0 {
		return fmt.Sprintf("%s not granted: under %s semantics it grants sensitive %s %s (%q) through the rule on %s", gr, g.sem, ex[0].Axis, ex[0].Path, ex[0].Sensitive, ex[0].Rule)
	}
	return ""
}
