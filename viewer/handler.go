package viewer

import (
	"bytes"
	"embed"
	"errors"
	"html/template"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"

	"go.uber.org/zap"

	"github.com/authbench/authbench/internal/safefile"
	"github.com/authbench/authbench/report"
	"github.com/authbench/authbench/trial"
)

// CSP is the Content-Security-Policy of every response: nothing from
// outside, the embedded stylesheet and script, inline styles (the
// charts' SVG carries style attributes) and the charts' font as a data:
// URL.
const CSP = "default-src 'none'; style-src 'self' 'unsafe-inline'; style-src-attr 'unsafe-inline'; " +
	"font-src data:; img-src data: 'self'; script-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

//go:embed assets
var assets embed.FS

// Options configure a Handler.
type Options struct {
	// AnyHost serves requests whatever their Host header. Without it only
	// loopback names (localhost, 127.0.0.0/8, ::1) are served, so a page
	// of another site cannot read the viewer through a DNS name rebound to
	// 127.0.0.1.
	AnyHost bool
	// Log receives the errors of rendering (nil: none).
	Log *zap.Logger
}

// Handler serves the viewer's pages of jobs. It only reads.
type Handler struct {
	jobs []*Job
	opts Options
	tmpl *template.Template
	mux  *http.ServeMux
}

// NewHandler returns the viewer of jobs.
func NewHandler(jobs []*Job, opts Options) (*Handler, error) {
	if opts.Log == nil {
		opts.Log = zap.NewNop()
	}
	tmpl, err := template.New("").Funcs(funcs).ParseFS(assets, "assets/*.html")
	if err != nil {
		return nil, err
	}
	h := &Handler{jobs: jobs, opts: opts, tmpl: tmpl, mux: http.NewServeMux()}
	h.mux.HandleFunc("GET /assets/{name}", h.asset)
	h.mux.HandleFunc("GET /{$}", h.index)
	h.mux.HandleFunc("GET /jobs/{job}/{$}", h.job)
	h.mux.HandleFunc("GET /jobs/{job}/runs/{id}", h.run)
	h.mux.HandleFunc("GET /jobs/{job}/runs/{id}/events", h.events)
	h.mux.HandleFunc("GET /compare", h.compare)
	return h, nil
}

// staticAssets are the embedded files served as they are, with their
// types (the templates beside them are not served).
var staticAssets = map[string]string{"app.css": "text/css; charset=utf-8", "app.js": "text/javascript; charset=utf-8"}

func (h *Handler) asset(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	typ, ok := staticAssets[name]
	if !ok {
		http.Error(w, "no such asset", http.StatusNotFound)
		return
	}
	data, err := assets.ReadFile("assets/" + name)
	if err != nil {
		http.Error(w, "no such asset", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", typ)
	_, _ = w.Write(data)
}

// ServeHTTP sets the security headers, refuses a foreign Host and
// anything but GET and HEAD, and serves the page.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", CSP)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Cache-Control", "no-store")
	if !h.opts.AnyHost && !LoopbackHost(r.Host) {
		http.Error(w, "this viewer serves only loopback host names (localhost, 127.0.0.1, [::1])", http.StatusMisdirectedRequest)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hd.Set("Allow", "GET, HEAD")
		http.Error(w, "the viewer only reads", http.StatusMethodNotAllowed)
		return
	}
	h.mux.ServeHTTP(w, r)
}

// LoopbackHost reports whether the Host header host (with or without a
// port) names the loopback interface.
func LoopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// jobOf is the job the request's {job} names (its index), nil after a 404.
func (h *Handler) jobOf(w http.ResponseWriter, r *http.Request, name string) (int, *Job) {
	v := r.PathValue(name)
	if v == "" {
		v = r.URL.Query().Get(name)
	}
	i, err := strconv.Atoi(v)
	if err != nil || i < 0 || i >= len(h.jobs) || strconv.Itoa(i) != v {
		http.Error(w, "no such job", http.StatusNotFound)
		return 0, nil
	}
	return i, h.jobs[i]
}

// render executes the template name into a buffer, then writes it: a
// failing template leaves no half page.
func (h *Handler) render(w http.ResponseWriter, name string, data any) {
	var b bytes.Buffer
	if err := h.tmpl.ExecuteTemplate(&b, name, data); err != nil {
		h.opts.Log.Error("render page", zap.String("page", name), zap.Error(err))
		http.Error(w, "could not render the page", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(b.Bytes())
}

// page is what every template gets: the jobs (for the navigation), the
// charts' font where the page has charts, and the page's own data.
type page struct {
	Title    string
	Jobs     []*Job
	FontFace template.CSS
	Data     any
}

func (h *Handler) page(title string, data any) page {
	return page{Title: title, Jobs: h.jobs, Data: data}
}

func (h *Handler) index(w http.ResponseWriter, _ *http.Request) {
	h.render(w, "index.html", h.page("authbench view", nil))
}

// jobPage is the data of a job's page.
type jobPage struct {
	Index   int
	Job     *Job
	Tables  []tableView
	Figures []report.Figure
	FigErr  string
	Filters []FilterField
	Runs    []RunRow
	Query   string
}

func (h *Handler) job(w http.ResponseWriter, r *http.Request) {
	i, j := h.jobOf(w, r, "job")
	if j == nil {
		return
	}
	f := ParseFilter(r.URL.Query())
	p := jobPage{Index: i, Job: j, Tables: tableViews(j.Report), Filters: FilterFields(j.Records, f),
		Runs: RunRows(j.Records, f), Query: r.URL.RawQuery}
	figs, err := j.Figures()
	if err != nil {
		p.FigErr = err.Error()
	}
	p.Figures = figs
	pg := h.page(j.Name, p)
	pg.FontFace = report.FontFace() // the charts' font, on the one page with charts
	h.render(w, "job.html", pg)
}

// tableView is a report table as a page shows it; Links, when set, are
// a link per row (Table 1's to its runs).
type tableView struct {
	report.Table
	Links []string
}

// tableViews are the report's tables, Table 1's rows linked to their runs.
func tableViews(rep *report.Report) []tableView {
	var out []tableView
	for _, t := range rep.Tables() {
		v := tableView{Table: t}
		if t.ID == "table1" && len(t.Rows) == len(rep.Rows) {
			for _, row := range rep.Rows {
				v.Links = append(v.Links, "?"+url.Values{"source": {row.Source}, "agent": {row.Agent}}.Encode()+"#runs")
			}
		}
		out = append(out, v)
	}
	return out
}

// runOf is the run the request names, nil after a 404.
func (h *Handler) runOf(w http.ResponseWriter, r *http.Request) (int, *Job, string) {
	i, j := h.jobOf(w, r, "job")
	if j == nil {
		return 0, nil, ""
	}
	id := r.PathValue("id")
	if _, ok := j.Run(id); !ok {
		http.Error(w, "no such run", http.StatusNotFound)
		return 0, nil, ""
	}
	return i, j, id
}

// runView is the data of a run's page.
type runView struct {
	Index int
	*RunPage
}

func (h *Handler) run(w http.ResponseWriter, r *http.Request) {
	i, j, id := h.runOf(w, r)
	if j == nil {
		return
	}
	rec, _ := j.Run(id)
	out, err := safefile.OpenReadDir(j.Dir)
	if err != nil {
		http.Error(w, "open the out dir: "+err.Error(), http.StatusInternalServerError)
		return
	}
	defer out.Close()
	p := NewRunPage(j.Name, rec, ReadRunFiles(out, rec))
	h.render(w, "run.html", h.page(id, runView{Index: i, RunPage: p}))
}

// eventsView is the data of a run's events page.
type eventsView struct {
	Index     int
	Job, ID   string
	Page      *EventsPage
	Err       string
	Prev, Nxt string
}

func (h *Handler) events(w http.ResponseWriter, r *http.Request) {
	i, j, id := h.runOf(w, r)
	if j == nil {
		return
	}
	q := r.URL.Query()
	n, _ := strconv.Atoi(q.Get("page"))
	v := eventsView{Index: i, Job: j.Name, ID: id}
	v.Page, v.Err = h.scanEvents(j, id, q.Get("q"), n)
	if v.Page != nil {
		link := func(p int) string {
			return "?" + url.Values{"q": {q.Get("q")}, "page": {strconv.Itoa(p)}}.Encode()
		}
		if v.Page.Page > 0 {
			v.Prev = link(v.Page.Page - 1)
		}
		if v.Page.HasNext {
			v.Nxt = link(v.Page.Page + 1)
		}
	}
	h.render(w, "events.html", h.page(id+" events", v))
}

// scanEvents reads one page of the run's events; the error is shown.
func (h *Handler) scanEvents(j *Job, id, query string, n int) (*EventsPage, string) {
	out, err := safefile.OpenReadDir(j.Dir)
	if err != nil {
		return nil, err.Error()
	}
	defer out.Close()
	f, err := out.Open(path.Join(id, fileEvents))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "no event log in the trial directory"
	}
	if err != nil {
		return nil, "could not be read: " + err.Error()
	}
	defer f.Close()
	p, err := ScanEvents(f, query, n, maxEventBytes)
	if err != nil {
		return nil, err.Error()
	}
	return p, ""
}

// compareView is the data of the comparison page.
type compareView struct {
	A, B     int
	JobA     *Job
	JobB     *Job
	TablesA  []tableView
	TablesB  []tableView
	Rows     []CompareRow
	OnlyDiff bool
	Filters  []FilterField
}

func (h *Handler) compare(w http.ResponseWriter, r *http.Request) {
	a, ja := h.jobOf(w, r, "a")
	if ja == nil {
		return
	}
	b, jb := h.jobOf(w, r, "b")
	if jb == nil {
		return
	}
	f := ParseFilter(r.URL.Query())
	only := r.URL.Query().Get("only") == "diff"
	v := compareView{A: a, B: b, JobA: ja, JobB: jb, TablesA: []tableView{{Table: ja.Report.Tables()[0]}}, TablesB: []tableView{{Table: jb.Report.Tables()[0]}},
		Rows: CompareRuns(ja.Records, jb.Records, f, only), OnlyDiff: only,
		Filters: FilterFields(append(append([]trial.Record{}, ja.Records...), jb.Records...), f)}
	h.render(w, "compare.html", h.page(ja.Name+" vs "+jb.Name, v))
}
