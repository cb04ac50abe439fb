package report

import (
	"io"
	"strings"
	"text/tabwriter"

	"github.com/authbench/authbench/internal/termtext"
)

// Table1Text writes Table 1 as aligned columns for a terminal.
func (r *Report) Table1Text(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	t := r.table1()
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
