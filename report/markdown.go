package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/authbench/authbench/internal/termtext"
)

// Markdown writes the report as a Markdown document: a summary, Table 1,
// the static scores per axis, the failure distribution and the per-run
// drill-down.
func (r *Report) Markdown(w io.Writer) error {
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "# authbench report\n\n%s\n\n%s\n\n", r.summary(), chartsNote)
	sections := []struct {
		title, intro string
		t            table
	}{
		{"Table 1", table1Intro, r.table1()},
		{"Static scores per axis", staticIntro, r.staticTable()},
		{"Failure distribution", failureIntro, r.failureTable()},
		{"Runs", runsIntro, r.runsTable()},
	}
	for _, l := range r.lists() {
		sections = append(sections, struct {
			title, intro string
			t            table
		}{l.title, l.intro, l.t})
	}
	for _, s := range sections {
		fmt.Fprintf(b, "## %s\n\n%s\n\n", s.title, s.intro)
		if len(s.t.Rows) == 0 {
			b.WriteString("None.\n\n")
			continue
		}
		writeMarkdownTable(b, s.t)
		b.WriteString("\n")
	}
	return b.Flush()
}

// list is a section listing runs or tasks a reader must look at.
type list struct {
	id, title, intro string
	t                table
}

// lists are the sections after the runs: agents that failed while V_u
// passed, spec gaps, skipped tasks, runs not on the published image.
func (r *Report) lists() []list {
	ls := []list{
		{"agent-failed", "Agent failed, verifier passed", agentFailedIntro, r.agentFailedTable()},
		{"spec-gaps", "Spec gaps", specGapIntro, r.specGapTable()},
		{"skipped", "Skipped tasks", skippedIntro, r.skippedTable()},
		{"substituted", "Runs not on the published image", substitutedIntro, r.substitutedTable()},
	}
	if len(r.Stages) > 0 {
		ls = append(ls, list{"stages", "Pipeline stages", stagesIntro, r.stagesTable()})
	}
	if len(r.Models) > 0 {
		ls = append(ls, list{"models", "Across models", modelsIntro, r.modelsTable()})
	}
	if tk := r.tokensTable(); len(tk.Rows) > 0 {
		ls = append(ls, list{"tokens", "Tokens and cost", tokensIntro, tk})
	}
	if len(r.Attribution) > 0 {
		ls = append(ls, list{"attribution", "Attribution", attributionIntro, r.attributionTable()})
	}
	if len(r.Requests) > 0 {
		ls = append(ls, list{"requests", "Permission requests", requestsIntro, r.requestsTable()})
	}
	return ls
}

// Section introductions shared by the Markdown and HTML renderers.
const (
	table1Intro = "Rates are macro means: the mean over tasks of each task's mean over its trials. " +
		"Runs that could not be carried out (errors) and excluded runs are left out of the verdict rates. " +
		"F1 is the static macro F1 per axis (read / write / execute); an invalid policy counts as 0; " +
		"plan grants sensitive counts the sensitive-task runs whose enforced plan reached a sensitive file, which the static score does not see; " +
		"— means no value (no such runs, or a source without a policy)."
	staticIntro  = "Macro precision (P), recall (R) and F1 of each source's policies against the task specs, per axis and set."
	failureIntro = "Share of each primary failure class among the failed runs of a row " +
		"(errors, excluded runs and blocked attacks left out)."
	runsIntro = "Every run, with how its agent ended, its verifier verdicts, traced exposure, " +
		"primary failure class and the denial that decided it."
	agentFailedIntro = "Runs whose agent failed (a non-zero exit, a signal, its timeout) while the utility verifier passed: " +
		"the verifier may be checking something the agent did not make."
	specGapIntro = "Runs where the task's oracle failed under the task's own spec, with the denial that decided it: " +
		"errata of the dataset, not failures of an agent (authbench tasks errata lists them for a dataset)."
	skippedIntro     = "Tasks the bench could not run, with the reason."
	substitutedIntro = "Runs that used another image than the one their task names (the image map, or an offline stand-in), " +
		"one line per image, with the compose service (empty: the agent's image) and why."
)

// chartsNote points Markdown readers at the charts.
const chartsNote = "The per-axis precision/recall charts and the failure-distribution chart are in the HTML report (`--format html`)."

// summary is one sentence about what the report covers.
func (r *Report) summary() string {
	s := fmt.Sprintf("%s; %s (runs that could not be carried out, counted apart from failures)",
		count(r.Runs, "run"), count(r.Errors, "error"))
	if r.TrustVerifiers {
		s += fmt.Sprintf("; verifiers trusted: %s whose verifier consumed a file the agent left or was not traced completely kept in the rates",
			count(r.untrusted(), "run"))
	} else {
		s += fmt.Sprintf("; %s excluded (a verifier consumed a file the agent left, or was not traced completely)", count(r.Excluded, "run"))
	}
	s += fmt.Sprintf("; %s blocked (counted apart from failures)", count(r.AttacksBlocked, "attack"))
	if len(r.Skipped) > 0 {
		s += fmt.Sprintf("; %s skipped", count(len(r.Skipped), "task"))
	}
	if r.Duplicates > 0 {
		s += fmt.Sprintf("; %s dropped (the latest finished record of a run wins)", count(r.Duplicates, "duplicate record"))
	}
	return s + "."
}

// count is "1 run", "2 runs".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// untrusted counts runs whose verifier consumed a file the agent left or
// was not traced completely.
func (r *Report) untrusted() int {
	n := 0
	for _, t := range r.Tasks {
		if len(t.TamperedFiles) > 0 || t.VerifiersUntraced {
			n++
		}
	}
	return n
}

func writeMarkdownTable(w *bufio.Writer, t table) {
	writeMarkdownRow(w, t.Header)
	seps := make([]string, len(t.Header))
	for i := range seps {
		seps[i] = "---"
	}
	writeMarkdownRow(w, seps)
	for _, row := range t.Rows {
		writeMarkdownRow(w, row)
	}
}

func writeMarkdownRow(w *bufio.Writer, cells []string) {
	w.WriteString("|")
	for _, c := range cells {
		w.WriteString(" ")
		w.WriteString(markdownCell(c))
		w.WriteString(" |")
	}
	w.WriteString("\n")
}

// markdownCell makes untrusted text (task names, agent commands, paths,
// errors) one inert table cell: line breaks become spaces, control
// characters escapes (termtext), and HTML, links, code spans, emphasis
// and cell separators are escaped, so a cell renders as the text it is.
func markdownCell(s string) string {
	return markdownInline.Replace(termtext.Escape(markdownBreaks.Replace(s)))
}

var (
	markdownBreaks = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ")
	// "](" is what makes a link or an image of bracketed text; a lone
	// bracket (a confidence interval) stays as it is.
	markdownInline = strings.NewReplacer("\\", `\\`, "|", `\|`, "`", "\\`", "*", `\*`, "](", `]\(`,
		"&", "&amp;", "<", "&lt;", ">", "&gt;")
)
