package viewer

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestResponsesCarryCSPAndOnlyRead(t *testing.T) {
	runs := fixtureRuns()
	srv := newServer(t, writeOutDir(t, runs))
	for _, p := range []string{"/", "/jobs/0/", "/jobs/0/runs/" + runs[1].rec.Dir, "/assets/app.css", "/jobs/9/"} {
		_, h, _ := get(t, srv, p)
		if h.Get("Content-Security-Policy") != CSP || h.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: headers %v", p, h)
		}
	}
	if !strings.Contains(CSP, "default-src 'none'") || !strings.Contains(CSP, "script-src 'self'") {
		t.Errorf("CSP %q", CSP)
	}
	for p, want := range map[string]int{"/assets/app.css": 200, "/assets/app.js": 200, "/assets/": 404, "/assets/run.html": 404, "/assets/layout.html": 404} {
		if code, _, _ := get(t, srv, p); code != want {
			t.Errorf("GET %s: %d, want %d", p, code, want)
		}
	}
	resp, err := srv.Client().Post(srv.URL+"/jobs/0/", "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d, want 405", resp.StatusCode)
	}
	// A page names no outside asset.
	_, _, body := get(t, srv, "/jobs/0/")
	for _, bad := range []string{"http://", "https://", "//cdn"} {
		if i := strings.Index(body, bad); i >= 0 && !strings.Contains(body[max(0, i-200):i], "xmlns") {
			t.Errorf("the job page names %q: %s", bad, body[max(0, i-80):min(len(body), i+80)])
		}
	}
}

func TestForeignHostIsRefused(t *testing.T) {
	srv := newServer(t, writeOutDir(t, fixtureRuns()))
	for host, want := range map[string]int{
		"evil.example": http.StatusMisdirectedRequest, "evil.example:80": http.StatusMisdirectedRequest,
		"127.0.0.1": http.StatusOK, "localhost:1234": http.StatusOK, "[::1]:8080": http.StatusOK, "127.5.6.7": http.StatusOK,
	} {
		req, err := http.NewRequest("GET", srv.URL+"/", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %s: %d, want %d", host, resp.StatusCode, want)
		}
	}
}

func TestRunIDPathTricks(t *testing.T) {
	runs := fixtureRuns()
	out := writeOutDir(t, runs)
	// A file beside the out dir that a path trick would reach.
	if err := os.WriteFile(filepath.Join(filepath.Dir(out), "secret"), []byte("TOPSECRET"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := newServer(t, out)
	id := runs[1].rec.Dir
	// Redirects are not followed: the mux sends a path with dot segments
	// to its clean form (/jobs/0/runs/.. to /jobs/0/), a page of the
	// viewer's own, not the trick's target.
	client := *srv.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	for _, p := range []string{
		"/jobs/0/runs/..", "/jobs/0/runs/%2e%2e", "/jobs/0/runs/..%2Fsecret", "/jobs/0/runs/..%2f..%2fetc%2fpasswd",
		"/jobs/0/runs/" + id + "%2F..", "/jobs/0/runs/" + id + "%2Fauthbench", "/jobs/0/runs/%2Fetc%2Fpasswd",
		"/jobs/0/runs/" + id + "%5C..", "/jobs/0/runs/" + id + "%00", "/jobs/0/runs/nosuchrun", "/jobs/0/runs/..%2F/events",
		"/jobs/0/runs/" + id + "/../../../../secret", "/jobs/00/", "/jobs/-1/", "/jobs/1/", "/jobs/+0/", "/jobs/0x0/", "/compare?a=0&b=%2e%2e",
	} {
		resp, err := client.Get(srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK || strings.Contains(string(body), "TOPSECRET") {
			t.Errorf("GET %s: %d %.200s", p, resp.StatusCode, body)
		}
		// Followed, a redirect reaches a page of the viewer or nothing.
		if _, _, body := get(t, srv, p); strings.Contains(body, "TOPSECRET") || strings.Contains(body, "root:") {
			t.Errorf("GET %s, redirects followed: %.200s", p, body)
		}
	}
}

func TestValidRunID(t *testing.T) {
	for id, want := range map[string]bool{
		"task__spec__oracle__0": true, "a.b-c_d": true,
		"": false, ".": false, "..": false, "a/b": false, `a\b`: false, "a\x00b": false, "a\nb": false,
		strings.Repeat("a", maxRunIDBytes+1): false,
	} {
		if got := ValidRunID(id); got != want {
			t.Errorf("ValidRunID(%q) = %v, want %v", id, got, want)
		}
	}
}

// TestHostileTrialFiles: links and a FIFO planted in a trial directory
// are shown as errors, never followed or opened, and no page hangs.
func TestHostileTrialFiles(t *testing.T) {
	runs := fixtureRuns()
	out := writeOutDir(t, runs)
	secret := filepath.Join(t.TempDir(), "secret.log")
	if err := os.WriteFile(secret, []byte("TOPSECRET"), 0o644); err != nil {
		t.Fatal(err)
	}
	trialDir := filepath.Join(out, runs[1].rec.Dir)
	replace := func(rel string, plant func(string) error) {
		p := filepath.Join(trialDir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if err := plant(p); err != nil {
			t.Fatal(err)
		}
	}
	replace(fileUtilityLog, func(p string) error { return os.Symlink("/etc/shadow", p) })
	replace(fileAttackLog, func(p string) error { return os.Symlink(secret, p) })
	replace(fileAgentStdout, func(p string) error { return syscall.Mkfifo(p, 0o644) })
	replace(fileEvents, func(p string) error { return syscall.Mkfifo(p, 0o644) })
	replace(filePlan, func(p string) error { return syscall.Mkfifo(p, 0o644) })
	replace(fileNetwork, func(p string) error { return syscall.Mknod(p, syscall.S_IFCHR|0o644, 1<<8|3) }) // /dev/null's numbers
	// A directory on the way swapped for a link to another directory.
	agentDir := filepath.Join(trialDir, "agent")
	if err := os.RemoveAll(filepath.Join(trialDir, "agent2")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(agentDir, filepath.Join(trialDir, "agent2")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(trialDir, "agent2"), agentDir); err != nil {
		t.Fatal(err)
	}
	srv := newServer(t, out)
	srv.Client().Timeout = 20 * time.Second
	code, _, body := get(t, srv, "/jobs/0/runs/"+runs[1].rec.Dir)
	if code != http.StatusOK {
		t.Fatalf("run page: %d %s", code, body)
	}
	if strings.Contains(body, "TOPSECRET") || strings.Contains(body, "root:") {
		t.Error("a planted link was followed")
	}
	for _, want := range []string{"is a symbolic link", "is not a regular file", "(a character device)", "(a FIFO)"} {
		if !strings.Contains(body, want) {
			t.Errorf("the run page does not say %q", want)
		}
	}
	code, _, body = get(t, srv, "/jobs/0/runs/"+runs[1].rec.Dir+"/events")
	if code != http.StatusOK || !strings.Contains(body, "(a FIFO)") {
		t.Errorf("events page over a FIFO: %d %.300s", code, body)
	}
}
