package env

import (
	"context"
	"fmt"
	"strings"

	"github.com/authbench/authbench/env/imagemeta"
)

// runBuild runs the builder on spec. A buildah build is confined
// (docs/security.md, "Image builds"): its RUN steps run through the build
// runtime (buildRuntime) in namespaces of their own (confinedBuildArgs),
// on a network of the build's own whose only way out is an egress proxy
// allowing the build hosts (buildNetwork). Destinations the proxy refused
// are logged and, when the build fails, named in its error. Docker and
// podman builds run in their own engines' containers, as they did.
func runBuild(ctx context.Context, s Store, o BuildOptions, spec BuildSpec) error {
	if o.Builder.Kind != imagemeta.Buildah {
		_, err := runTool(ctx, o.Log, nil, o.Builder.BuildArgv(spec)...)
		return err
	}
	runtime, err := buildRuntime(s)
	if err != nil {
		return err
	}
	n, err := startBuildNetwork(buildHosts(o))
	if err != nil {
		return err
	}
	spec.Runtime, spec.NetNS, spec.Hosts = runtime, n.path(), n.addHosts()
	_, err = runTool(ctx, o.Log, nil, o.Builder.BuildArgv(spec)...)
	refused := n.close()
	if len(refused) > 0 {
		msg := "the build's network refused: " + strings.Join(refused, ", ") + " (allowed: " + strings.Join(buildHosts(o), ", ") + ")"
		if o.Log != nil {
			fmt.Fprintln(o.Log, msg)
		}
		if err != nil {
			err = fmt.Errorf("%w\n%s", err, msg)
		}
	}
	return err
}
