package viewer

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/websocket"

	"github.com/authbench/authbench/internal/testenv"
)

// cdpPage is one page of a headless Chromium driven over the DevTools
// protocol, for checks that need the page's script to run on an action.
type cdpPage struct {
	ws *websocket.Conn
	id int
}

// openCDPPage starts headless Chromium with a debugging port and
// connects to its first page.
func openCDPPage(t *testing.T) *cdpPage {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	testenv.Need(t, "chromium (Debian package chromium)", err == nil)
	dir := t.TempDir()
	args := []string{"--headless", "--disable-gpu", "--no-first-run", "--remote-debugging-port=0",
		"--remote-allow-origins=*", "--user-data-dir=" + filepath.Join(dir, "profile")}
	if os.Geteuid() == 0 {
		args = append(args, "--no-sandbox")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	cmd := exec.CommandContext(ctx, bin, append(args, "about:blank")...)
	cmd.Env = append(os.Environ(), "HOME="+dir)
	inOwnGroup(cmd)
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait(); _ = killGroup(cmd) })
	var port string
	for deadline := time.Now().Add(time.Minute); port == "" && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if data, err := os.ReadFile(filepath.Join(dir, "profile", "DevToolsActivePort")); err == nil {
			port, _, _ = strings.Cut(string(data), "\n")
		}
	}
	if port == "" {
		t.Fatal("chromium wrote no DevToolsActivePort")
	}
	var targets []struct{ Type, WebSocketDebuggerURL string }
	for deadline := time.Now().Add(30 * time.Second); len(targets) == 0 && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		resp, err := http.Get("http://127.0.0.1:" + port + "/json/list")
		if err != nil {
			continue
		}
		var all []struct{ Type, WebSocketDebuggerURL string }
		_ = json.NewDecoder(resp.Body).Decode(&all)
		resp.Body.Close()
		for _, tg := range all {
			if tg.Type == "page" {
				targets = append(targets, tg)
			}
		}
	}
	if len(targets) == 0 {
		t.Fatal("chromium has no page target")
	}
	ws, err := websocket.Dial(targets[0].WebSocketDebuggerURL, "", "http://127.0.0.1/")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return &cdpPage{ws: ws}
}

// call sends a DevTools command and returns its result, skipping events.
func (p *cdpPage) call(t *testing.T, method string, params any) json.RawMessage {
	t.Helper()
	p.id++
	if err := websocket.JSON.Send(p.ws, map[string]any{"id": p.id, "method": method, "params": params}); err != nil {
		t.Fatal(err)
	}
	_ = p.ws.SetReadDeadline(time.Now().Add(30 * time.Second))
	for {
		var msg struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct{ Message string }
		}
		if err := websocket.JSON.Receive(p.ws, &msg); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		if msg.ID != p.id {
			continue
		}
		if msg.Error != nil {
			t.Fatalf("%s: %s", method, msg.Error.Message)
		}
		return msg.Result
	}
}

// eval evaluates a JavaScript expression in the page and returns its
// value as a string.
func (p *cdpPage) eval(t *testing.T, expr string) string {
	t.Helper()
	var res struct {
		Result struct {
			Value any `json:"value"`
		} `json:"result"`
	}
	if err := json.Unmarshal(p.call(t, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}), &res); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(res.Result.Value)
}

// waitFor polls expr until it is want.
func (p *cdpPage) waitFor(t *testing.T, expr, want string) {
	t.Helper()
	got := ""
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if got = p.eval(t, expr); got == want {
			return
		}
	}
	t.Fatalf("%s: %q, want %q", expr, got, want)
}

// TestFilterNarrowsRunsInChromium chooses a value in the source filter
// of a job page, as a user does: the page's script submits the form and
// the runs table lists only that source's runs.
func TestFilterNarrowsRunsInChromium(t *testing.T) {
	runs := fixtureRuns()
	srv := newServer(t, writeOutDir(t, runs))
	p := openCDPPage(t)
	p.call(t, "Page.navigate", map[string]any{"url": srv.URL + "/jobs/0/"})
	const state = `document.readyState + " " + location.search + " " + document.querySelectorAll("tr.run").length`
	p.waitFor(t, state, "complete  3")
	p.eval(t, `(() => { const s = document.querySelector("select[name=source]"); s.value = "spec"; s.dispatchEvent(new Event("change")); return 1 })()`)
	p.waitFor(t, state, "complete ?source=spec 1")
	if id := p.eval(t, `document.querySelector("tr.run").dataset.id`); id != runs[0].rec.Dir {
		t.Errorf("the run left is %s, want %s", id, runs[0].rec.Dir)
	}
	if v := p.eval(t, `document.querySelector("select[name=source]").value`); v != "spec" {
		t.Errorf("the filter shows %q after the reload, want spec", v)
	}
	// The run is one click away: following its link opens its page with
	// the policy/spec diff.
	p.eval(t, `(() => { document.querySelector("tr.run a").click(); return 1 })()`)
	p.waitFor(t, `document.readyState + " " + (document.getElementById("diff") !== null)`, "complete true")
}
