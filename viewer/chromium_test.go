package viewer

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/authbench/authbench/internal/testenv"
)

// chromium runs headless Chromium on url with args and returns stdout.
func chromium(t *testing.T, url string, args ...string) []byte {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	testenv.Need(t, "chromium (Debian package chromium)", err == nil)
	dir := t.TempDir()
	base := []string{"--headless", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
		"--user-data-dir=" + filepath.Join(dir, "profile")}
	if os.Geteuid() == 0 {
		base = append(base, "--no-sandbox") // Chromium refuses root otherwise
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(append(base, args...), url)...)
	cmd.Env = append(os.Environ(), "HOME="+dir)
	inOwnGroup(cmd)
	defer killGroup(cmd) // what Chromium left, before TempDir's cleanup
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v %s: %v\n%s", args, url, err, stderr.Bytes())
	}
	return stdout.Bytes()
}

// dumpDOM is the DOM Chromium built of url, after its script ran.
func dumpDOM(t *testing.T, url string) *html.Node {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(chromium(t, url, "--dump-dom")))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestViewerInChromium(t *testing.T) {
	runs := fixtureRuns()
	srv := newServer(t, writeOutDir(t, runs), writeOutDir(t, runs[:2]))
	doc := dumpDOM(t, srv.URL+"/jobs/0/")
	if ids := runIDs(doc); len(ids) != 3 {
		t.Errorf("Chromium's runs table lists %v, want 3 runs", ids)
	}
	// The embedded script ran under the page's CSP.
	if htmlEl := find(doc, func(n *html.Node) bool { return n.Data == "html" }); len(htmlEl) == 0 || !strings.Contains(attr(htmlEl[0], "class"), "js") {
		t.Error("the page's script did not run (CSP or asset path)")
	}
	// The filter form's controls are what narrow the runs: submitting
	// source=spec is a GET of the page with that query.
	sel := find(byID(doc, "filters"), func(n *html.Node) bool { return n.Data == "select" && attr(n, "name") == "source" })
	if len(sel) != 1 {
		t.Fatal("no source filter")
	}
	doc = dumpDOM(t, srv.URL+"/jobs/0/?source=spec")
	if ids := runIDs(doc); len(ids) != 1 || ids[0] != runs[0].rec.Dir {
		t.Errorf("filtered by source=spec, Chromium lists %v", ids)
	}
	if cnt := text(byID(doc, "run-count")); !strings.Contains(cnt, "1 of 3 runs") {
		t.Errorf("run count %q", cnt)
	}
	doc = dumpDOM(t, srv.URL+"/jobs/0/runs/"+runs[1].rec.Dir)
	diff := byID(doc, "diff")
	if diff == nil {
		t.Fatal("the run page has no policy/spec diff")
	}
	axes := find(diff, hasClass("axis"))
	if len(axes) != 3 {
		t.Errorf("the diff shows %d axes, want read, write, execute", len(axes))
	}
	if d := text(diff); !strings.Contains(d, "/data/secret.txt") || !strings.Contains(d, "missing") || !strings.Contains(d, "extra") {
		t.Errorf("diff text: %s", d)
	}
	if len(find(doc, hasClass("deciding"))) != 1 {
		t.Error("no deciding denial marked")
	}
	doc = dumpDOM(t, srv.URL+"/compare?a=0&b=1")
	if len(find(doc, hasClass("differs"))) != 1 {
		t.Error("compare: want the one run job B lacks marked")
	}
}

// TestViewerScreenshot takes screenshots of a job page and a run page
// (kept in $AUTHBENCH_VIEWER_SHOTS when set, to be looked at) and checks
// they are not blank.
func TestViewerScreenshot(t *testing.T) {
	runs := fixtureRuns()
	srv := newServer(t, writeOutDir(t, runs))
	dir := os.Getenv("AUTHBENCH_VIEWER_SHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	for name, path := range map[string]string{"job": "/jobs/0/", "run": "/jobs/0/runs/" + runs[1].rec.Dir} {
		shot := filepath.Join(dir, name+".png")
		chromium(t, srv.URL+path, "--window-size=1400,2200", "--screenshot="+shot)
		f, err := os.Open(shot)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("decode %s: %v", shot, err)
		}
		colours := map[uint32]bool{}
		b := img.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y += 7 {
			for x := b.Min.X; x < b.Max.X; x += 7 {
				r, g, bl, _ := img.At(x, y).RGBA()
				colours[r>>12<<8|g>>12<<4|bl>>12] = true
			}
		}
		if len(colours) < 8 {
			t.Errorf("%s: %d colours, the page looks blank", name, len(colours))
		}
		t.Log(fmt.Sprintf("%s: %v, %d colours", shot, b.Size(), len(colours)))
	}
}
