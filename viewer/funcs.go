package viewer

import (
	"fmt"
	"html/template"
	"net/url"
	"strings"
	"time"

	"github.com/authbench/authbench/internal/termtext"
	"github.com/authbench/authbench/verdict"
)

// funcs are the templates' helpers.
var funcs = template.FuncMap{
	"f2":   func(x float64) string { return fmt.Sprintf("%.2f", x) },
	"join": strings.Join,
	// classes lists a run's failure classes, ", " between them.
	"classes": func(cs []verdict.Class) string { return strings.ReplaceAll(verdict.Join(cs), ",", ", ") },
	// text escapes control characters (termtext), which an agent's output
	// may hold; html/template escapes the HTML.
	"text":  termtext.Escape,
	"lines": preText,
	// runURL is the path of a run's page: the id path-escaped, so that
	// an id is one path segment whatever it holds.
	"runURL": func(job int, id string) string { return fmt.Sprintf("/jobs/%d/runs/%s", job, url.PathEscape(id)) },
	"ts": func(ns int64) string {
		if ns == 0 {
			return ""
		}
		return time.Unix(0, ns).UTC().Format("15:04:05.000000")
	},
	"status":  func(s string) string { return "st-" + s },
	"verdict": verdictClass,
	"deref":   func(f *float64) float64 { return *f },
	"deref2":  func(b *bool) bool { return *b },
	"add":     func(a, b int) int { return a + b },
}

// preText is s for a <pre>: tabs as spaces, other control characters
// escaped (termtext.EscapeLines, which keeps the newlines).
func preText(s string) string {
	return termtext.EscapeLines(strings.ReplaceAll(s, "\t", "    "))
}
