package tasks

import (
	"fmt"
	"sort"

	"github.com/compose-spec/compose-go/v2/template"
)

// interpolate applies compose's variable interpolation to every string
// of a sidecar's applied value v (compose's own template package): "$$"
// is a literal "$", ${VAR:-default} and ${VAR-default} take their
// default, ${VAR:+alt} its empty alternative and ${VAR:?message} is an
// error — a run sets no compose variables, since it takes nothing from
// the host's environment. A variable with no default ($VAR, ${VAR}) is
// an error too: docker compose would substitute an empty string with a
// warning, which would run the service with a value its author did not
// write.
func interpolate(v any) (any, error) {
	switch x := v.(type) {
	case string:
		return template.SubstituteWithOptions(x, unsetMapping, template.WithoutLogging, template.WithReplacementFunction(noBlankReplacement))
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			var err error
			if out[i], err = interpolate(e); err != nil {
				return nil, err
			}
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys) // the first error is the same on every run
		for _, k := range keys {
			var err error
			if out[k], err = interpolate(x[k]); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return v, nil
}

// unsetMapping is the run's compose environment: no variable is set.
func unsetMapping(string) (string, bool) { return "", false }

// noBlankReplacement is compose's replacement, refusing a variable that
// has no value and no default instead of substituting a blank.
func noBlankReplacement(substring string, mapping template.Mapping, cfg *template.Config) (string, error) {
	value, applied, err := template.DefaultReplacementAppliedFunc(substring, mapping, cfg)
	if err != nil {
		return "", err
	}
	if !applied {
		return "", fmt.Errorf("%s: the variable is not set (a run sets no compose variables): write the value, or a default as ${NAME:-value}", substring)
	}
	return value, nil
}
