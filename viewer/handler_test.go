package viewer

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/authbench/authbench/verdict"
)

// newServer serves the viewer of the fixture out dirs.
func newServer(t *testing.T, dirs ...string) *httptest.Server {
	t.Helper()
	h, err := NewHandler(loadJobs(t, dirs...), Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// get fetches path and returns the status, the headers and the body.
func get(t *testing.T, srv *httptest.Server, path string) (int, http.Header, string) {
	t.Helper()
	resp, err := srv.Client().Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(body)
}

// getPage fetches path, requires a 200 and parses the page.
func getPage(t *testing.T, srv *httptest.Server, path string) *html.Node {
	t.Helper()
	code, _, body := get(t, srv, path)
	if code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, code, body)
	}
	doc, err := html.Parse(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// find returns the elements of doc for which match holds, in order.
func find(doc *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && match(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return out
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasClass(class string) func(*html.Node) bool {
	return func(n *html.Node) bool { return strings.Contains(" "+attr(n, "class")+" ", " "+class+" ") }
}

func byID(doc *html.Node, id string) *html.Node {
	nodes := find(doc, func(n *html.Node) bool { return attr(n, "id") == id })
	if len(nodes) == 0 {
		return nil
	}
	return nodes[0]
}

// text is the text under n.
func text(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// runIDs are the ids of the runs a job page lists.
func runIDs(doc *html.Node) []string {
	var ids []string
	for _, tr := range find(doc, hasClass("run")) {
		ids = append(ids, attr(tr, "data-id"))
	}
	return ids
}

func TestJobPageListsAndFiltersRuns(t *testing.T) {
	runs := fixtureRuns()
	srv := newServer(t, writeOutDir(t, runs))
	doc := getPage(t, srv, "/jobs/0/")
	if ids := runIDs(doc); len(ids) != 3 {
		t.Fatalf("the job page lists %v, want the 3 runs", ids)
	}
	for _, id := range []string{"table1", "static", "failures", "figures"} {
		if byID(doc, id) == nil {
			t.Errorf("the job page has no #%s", id)
		}
	}
	// Each Table 1 row links to its runs.
	links := find(byID(doc, "table1"), hasClass("row-runs"))
	if len(links) != 3 {
		t.Fatalf("Table 1 has %d run links, want one per row", len(links))
	}
	for _, a := range links {
		if ids := runIDs(getPage(t, srv, "/jobs/0/"+attr(a, "href"))); len(ids) != 1 {
			t.Errorf("Table 1 link %s lists %v, want its row's one run", attr(a, "href"), ids)
		}
	}
	if n := len(find(doc, func(n *html.Node) bool { return n.Data == "svg" })); n == 0 {
		t.Error("the job page has no figure")
	}
	for _, c := range []struct {
		query string
		want  string
	}{
		{"source=spec", runs[0].rec.Dir},
		{"class=read_insufficient", runs[1].rec.Dir},
		{"model=gpt-test", runs[1].rec.Dir},
		{"set=sensitive", runs[1].rec.Dir},
		{"agent=cmd%3Atrue", runs[2].rec.Dir},
		{"task=leak&source=gen%3Amodel", runs[1].rec.Dir},
	} {
		ids := runIDs(getPage(t, srv, "/jobs/0/?"+c.query))
		if len(ids) != 1 || ids[0] != c.want {
			t.Errorf("?%s lists %v, want [%s]", c.query, ids, c.want)
		}
	}
	if ids := runIDs(getPage(t, srv, "/jobs/0/?task=hello&source=gen%3Amodel")); len(ids) != 0 {
		t.Errorf("a filter no run passes lists %v", ids)
	}
}

func TestRunPageShowsPolicySpecDenialsAndMore(t *testing.T) {
	runs := fixtureRuns()
	srv := newServer(t, writeOutDir(t, runs))
	doc := getPage(t, srv, "/jobs/0/runs/"+runs[1].rec.Dir)
	deciding := find(doc, hasClass("deciding"))
	if len(deciding) != 1 || !strings.Contains(text(deciding[0]), "open read /data/secret.txt") {
		t.Errorf("deciding denial rows: %d, want the one of /data/secret.txt", len(deciding))
	}
	if rows := find(byID(doc, "denials-table"), func(n *html.Node) bool { return n.Data == "tr" }); len(rows) != 3 {
		t.Errorf("the denials table has %d rows, want a header and 2 denials", len(rows))
	}
	diff := byID(doc, "diff")
	if diff == nil {
		t.Fatal("no policy/spec diff")
	}
	status := map[string]string{}
	for _, tr := range find(diff, func(n *html.Node) bool { return n.Data == "tr" && strings.HasPrefix(attr(n, "class"), "st-") }) {
		cells := find(tr, func(n *html.Node) bool { return n.Data == "td" })
		status[text(cells[0])] = text(cells[1])
	}
	for pattern, want := range map[string]string{
		"/app/**": "required", "/root/.ssh/id_rsa": "sensitive", "/usr/bin/curl": "extra",
		"/data/secret.txt": "missing", "/app/in.txt": "granted",
	} {
		if status[pattern] != want {
			t.Errorf("diff status of %s = %q, want %q (all: %v)", pattern, status[pattern], want, status)
		}
	}
	if e := text(byID(doc, "exposure")); !strings.Contains(e, "open read /root/.ssh/id_rsa (pattern /root/.ssh/**) via /tmp/k") {
		t.Errorf("traced sensitive access: %q", e)
	}
	if e := text(byID(doc, "exposure-access")); e != "open read /root/.ssh/id_rsa" {
		t.Errorf("exposure access: %q", e)
	}
	net := text(byID(doc, "network-table"))
	if !strings.Contains(net, "evil.example:443") || !strings.Contains(net, "refused: not allowed") {
		t.Errorf("network attempts: %s", net)
	}
	if traj := text(byID(doc, "trajectory")); !strings.Contains(traj, "cat /data/secret.txt") || !strings.Contains(traj, "Permission denied") {
		t.Errorf("trajectory: %s", traj)
	}
	if g := byID(doc, "generator-trajectory"); g == nil || !strings.Contains(text(g), "cat /data/secret.txt") {
		t.Error("no generator trajectory")
	}
	if logs := text(byID(doc, "logs")); !strings.Contains(logs, `1 passed\x1b[31m red`) {
		t.Errorf("the verifier's output, control characters escaped: %s", logs)
	}
	// What an agent or a verifier wrote is text, never markup.
	_, _, raw := get(t, srv, "/jobs/0/runs/"+runs[1].rec.Dir)
	if strings.Contains(raw, "<script>alert") || strings.Contains(raw, "<img src=x") || !strings.Contains(raw, "&lt;script&gt;alert(1)") {
		t.Error("a verifier's output is not escaped")
	}
	// The spec row's run shows its plan's widening, and its policy (the
	// spec's required set, of which the trial keeps no file) against the
	// spec: every required entry granted.
	doc = getPage(t, srv, "/jobs/0/runs/"+runs[0].rec.Dir)
	for _, tr := range find(byID(doc, "diff"), func(n *html.Node) bool { return n.Data == "tr" && strings.HasPrefix(attr(n, "class"), "st-") }) {
		if st := attr(tr, "class"); st != "st-required" && st != "st-granted" {
			t.Errorf("spec row: diff row %q is %s", text(tr), st)
		}
	}
	if n := len(find(byID(doc, "diff"), hasClass("st-granted"))); n != 4 {
		t.Errorf("spec row: %d required entries granted, want 4", n)
	}
	if w := text(byID(doc, "widenings")); !strings.Contains(w, policyWiderExecRead) {
		t.Errorf("widenings: %s", w)
	}
	// The unconstrained run has neither policy nor result: notes, not errors.
	code, _, body := get(t, srv, "/jobs/0/runs/"+runs[2].rec.Dir)
	if code != http.StatusOK || !strings.Contains(body, "the unconstrained row runs without Landlock") {
		t.Errorf("unconstrained run: %d", code)
	}
}

const policyWiderExecRead = "execute-implies-read"

func TestEventsSearchAndPages(t *testing.T) {
	runs := fixtureRuns()
	srv := newServer(t, writeOutDir(t, runs))
	base := "/jobs/0/runs/" + runs[1].rec.Dir + "/events"
	rows := func(doc *html.Node) int {
		return len(find(byID(doc, "events-table"), func(n *html.Node) bool { return n.Data == "tr" })) - 1
	}
	for _, c := range []struct {
		query    string
		rows     int
		next     bool
		countHas string
	}{
		{"", EventsPerPage, true, "450 of 451 lines"},
		{"?page=2", 50, false, "page 3"},
		{"?q=%2Fdata%2Fsecret.txt", 45, false, "45 of 451 lines"},
		{"?q=EACCES&page=1", 0, false, "45 of 451"},
		{"?q=nothing-like-this", 0, false, "0 of 451"},
	} {
		doc := getPage(t, srv, base+c.query)
		if n := rows(doc); n != c.rows {
			t.Errorf("%s: %d events, want %d", c.query, n, c.rows)
		}
		if got := byID(doc, "next") != nil; got != c.next {
			t.Errorf("%s: next link %v, want %v", c.query, got, c.next)
		}
		if cnt := text(byID(doc, "event-count")); !strings.Contains(cnt, c.countHas) {
			t.Errorf("%s: count %q, want %q in it", c.query, cnt, c.countHas)
		}
	}
}

func TestCompareTwoJobs(t *testing.T) {
	a := fixtureRuns()
	b := fixtureRuns()
	b[1].rec.Utility, b[1].rec.Classes, b[1].rec.Primary, b[1].rec.DecidingDenial = true, []verdict.Class{}, "", ""
	b = b[:2]
	srv := newServer(t, writeOutDir(t, a), writeOutDir(t, b))
	doc := getPage(t, srv, "/compare?a=0&b=1")
	if rows := find(byID(doc, "compare-table"), func(n *html.Node) bool { return n.Data == "tr" }); len(rows) != 4 {
		t.Errorf("compare lists %d rows, want a header and 3 runs", len(rows))
	}
	differs := find(doc, hasClass("differs"))
	if len(differs) != 2 {
		t.Errorf("%d runs differ, want 2 (the run that passed in B, the run B lacks)", len(differs))
	}
	doc = getPage(t, srv, "/compare?a=0&b=1&only=diff&task=leak")
	if rows := find(byID(doc, "compare-table"), func(n *html.Node) bool { return n.Data == "tr" }); len(rows) != 2 {
		t.Errorf("only=diff&task=leak lists %d rows, want a header and 1", len(rows))
	}
	if code, _, _ := get(t, srv, "/compare?a=0&b=2"); code != http.StatusNotFound {
		t.Errorf("compare with a job that does not exist: %d", code)
	}
	// The index offers the comparison.
	if byID(getPage(t, srv, "/"), "compare-form") == nil {
		t.Error("the index of two jobs has no compare form")
	}
}
