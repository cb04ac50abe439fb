package report

import (
	"io"
	"strings"
	"text/tabwriter"

	"github.com/authbench/authbench/internal/termtext"
)

// Table1Text writes Table 1 as aligned columns for a terminal, then the
// runs not on the published image, tokens, permission requests and the
// attribution, when there are any.
func (r *Report) Table1Text(w io.Writer) error {
	if err := writeTextTable(w, r.table1()); err != nil {
		return err
	}
	if sub := r.substitutedTable(); len(sub.Rows) > 0 {
		if _, err := io.WriteString(w, "\nRuns not on the published image\n"); err != nil {
			return err
		}
		if err := writeTextTable(w, sub); err != nil {
			return err
		}
	}
	if tk := r.tokensTable(); len(tk.Rows) > 0 {
		if _, err := io.WriteString(w, "\nTokens and cost\n"); err != nil {
			return err
		}
		if err := writeTextTable(w, tk); err != nil {
			return err
		}
	}
	if err := r.requestsText(w); err != nil {
		return err
	}
	if len(r.Attribution) == 0 {
		return nil
	}
	if _, err := io.WriteString(w, "\nAttribution (bench --attribute)\n"); err != nil {
		return err
	}
	return writeTextTable(w, r.attributionTable())
}

func writeTextTable(w io.Writer, t table) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, cells := range append([][]string{t.Header}, t.Rows...) {
		for i, c := range cells {
			cells[i] = termtext.Escape(c)
		}
		if _, err := io.WriteString(tw, strings.Join(cells, "\t")+"\n"); err != nil {
			return err
		}
	}
	return tw.Flush()
}
