package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/trial"
)

// hostileRecords are runs whose task, agent, denial and image
// substitution carry HTML, a Markdown link, terminal escapes (CSI, OSC 8),
// a bidi override and a 200-character command.
func hostileRecords() (recs []trial.Record, agent string) {
	agent = `cmd:"<script>alert(1)</script> [x](javascript:alert(2)) ` + "\x1b]8;;http://evil/\x07\x1b[2J\u202e " +
		strings.Repeat("python3 -c 'print(1)' && ", 8) + `"`
	task := "t<img src=x onerror=alert(3)>\x1b[31m"
	a := run(task, DatasetStandard, "spec", agent, 1)
	b := failed(run(task, DatasetSensitive, "spec", agent, 2), "read_insufficient", "openat read /k<b>\x1b[1m")
	b.ImageSubstitutions = []runapi.ImageSubstitution{{Service: "sink<script>alert(4)</script>\x1b[2J",
		Ref: "ubuntu:24.04\u202e", Used: "[x](javascript:alert(5))", Why: "offline <img src=y>\x07"}}
	c := failed(run("plain", DatasetStandard, "spec", agent, 1), "read_insufficient", "")
	return []trial.Record{a, b, c}, agent
}

// TestHostileLabelsRender: every format renders a report of hostile,
// long labels; none carries raw HTML from a name or a control character,
// the charts ellipsise the label and the tables keep it whole.
func TestHostileLabelsRender(t *testing.T) {
	recs, agent := hostileRecords()
	if len(agent) < 160 {
		t.Fatalf("agent label only %d characters", len(agent))
	}
	rep := Build(recs, Options{})
	outputs := map[string]*bytes.Buffer{}
	for name, render := range map[string]func(*bytes.Buffer) error{
		"markdown": func(b *bytes.Buffer) error { return rep.Markdown(b) },
		"html":     func(b *bytes.Buffer) error { return rep.HTML(b) },
		"text":     func(b *bytes.Buffer) error { return rep.Table1Text(b) },
	} {
		var buf bytes.Buffer
		if err := render(&buf); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out := buf.String()
		bads := map[string][]string{
			"markdown": {"<script", "<img", "[x](javascript"},
			"html":     {"<script", "<img"},
		}[name]
		for _, bad := range append(bads, "\x1b", "\x07", "\u202e") {
			if strings.Contains(out, bad) {
				t.Errorf("%s carries %q", name, bad)
			}
		}
		outputs[name] = &buf
	}
	md := outputs["markdown"].String()
	if !strings.Contains(md, `sink&lt;script&gt;alert(4)&lt;/script&gt;\\x1b[2J | ubuntu:24.04\\u202e | [x]\(javascript:alert(5)) | offline &lt;img src=y&gt;\\x07 |`) {
		t.Errorf("the Markdown report lacks the escaped image substitution:\n%s", md)
	}
	if !strings.Contains(outputs["text"].String(), `sink<script>alert(4)</script>\x1b[2J`) {
		t.Errorf("the text summary lacks the escaped image substitution:\n%s", outputs["text"])
	}
	if !strings.Contains(md, `cmd:"&lt;script&gt;alert(1)&lt;/script&gt; [x]\(javascript:alert(2)) \\x1b]8;;http://evil/\\x07\\x1b[2J\\u202e python3`) {
		t.Errorf("the Markdown table does not hold the whole escaped label:\n%s", md)
	}
	html := outputs["html"].String()
	if !strings.Contains(html, "&lt;script&gt;alert(1)") || !strings.Contains(html, "…") {
		t.Errorf("the HTML report lacks the escaped label or the charts' ellipsis")
	}
	// The whole label (its end) is in the HTML tables.
	if !strings.Contains(html, "python3 -c &#39;print(1)&#39; &amp;&amp; &#34;") {
		t.Errorf("the HTML tables cut the label")
	}
}

func TestFitLabel(t *testing.T) {
	short := "spec / oracle"
	if got := fitLabel(short, legendPt, labelMaxW); got != short {
		t.Fatalf("short label changed: %q", got)
	}
	long := strings.Repeat("wide label ", 60)
	got := fitLabel(long, legendPt, labelMaxW)
	if !strings.HasSuffix(got, "…") || !strings.HasPrefix(long, strings.TrimSuffix(got, "…")) || len(got) < 20 {
		t.Fatalf("long label: %q", got)
	}
	if w := plotTextWidth(got, legendPt); w > labelMaxW {
		t.Fatalf("ellipsised label %v wide, max %v", w, labelMaxW)
	}
	if got := fitLabel(strings.Repeat("é", 500), tickPt, 10); !strings.HasSuffix(got, "…") {
		t.Fatalf("runes: %q", got)
	}
}
