package permreq

import (
	"bufio"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
)

// openPty opens a pseudo-terminal pair: the person's side (master) and
// the terminal the decider asks on (its slave, non-blocking so that it
// has read deadlines, as /dev/tty opened by the CLI has).
func openPty(t *testing.T) (person *os.File, tty TTY) {
	t.Helper()
	m, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	if err := unix.IoctlSetPointerInt(m, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(m, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := OpenTTY("/dev/pts/" + strconv.Itoa(n))
	if err != nil {
		t.Fatal(err)
	}
	person = os.NewFile(uintptr(m), "ptmx")
	t.Cleanup(func() { person.Close(); s.Close() })
	return person, s
}

// TestAskUnderAPty: the ask decider prompts on a terminal with the
// request and its reason (escaped); y grants, n or a long line refuses,
// no answer in time refuses, a sensitive request never reaches the
// person.
func TestAskUnderAPty(t *testing.T) {
	root, spec := fixture(t)
	person, tty := openPty(t)
	prompts := make(chan string, 16)
	go func() {
		r := bufio.NewReader(person)
		var b strings.Builder
		for {
			c, err := r.ReadByte()
			if err != nil {
				return
			}
			b.WriteByte(c)
			if strings.HasSuffix(b.String(), "refuses) ") {
				prompts <- b.String()
				b.Reset()
			}
		}
	}()
	desk := NewDesk(NewAskDecider(tty, spec), spec, root, policy.PlanOptions{}, Limits{Timeout: 2 * time.Second})
	for _, c := range []struct {
		path, reason, answer, want, why string
	}{
		{"/data/in.txt", "the task \x1b[2Jreads it", "y\n", runapi.RequestGranted, "granted by the person"},
		{"/src/main.go", "to build", "no\n", runapi.RequestRefused, "refused by the person"},
		{"/src/main.go", "to build", strings.Repeat("y", 200) + "\n", runapi.RequestRefused, "over 64 bytes"},
		{"/src/main.go", "to build", "", runapi.RequestRefused, "no answer"},
		{"/data/secret.key", "to deploy", "", runapi.RequestRefused, "is sensitive"},
	} {
		done := make(chan runapi.PermissionRequest, 1)
		go func() {
			_, rec, _ := desk.Ask(context.Background(), "read", c.path, c.reason)
			done <- rec
		}()
		if !strings.Contains(c.why, "sensitive") {
			select {
			case p := <-prompts:
				if !strings.Contains(p, "read "+c.path) || !strings.Contains(p, "Grant it? [y/N]") || strings.Contains(p, "\x1b") {
					t.Errorf("prompt %q", p)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("%s: no prompt", c.path)
			}
			if c.answer != "" {
				person.WriteString(c.answer)
			}
		}
		rec := <-done
		if rec.Decision != c.want || !strings.Contains(rec.Why, c.why) {
			t.Errorf("%s answered %q: %+v, want %s (%s)", c.path, c.answer, rec, c.want, c.why)
		}
	}
	select {
	case p := <-prompts:
		t.Errorf("the sensitive request reached the person: %q", p)
	default:
	}
	if _, err := OpenTTY(os.DevNull); err == nil {
		t.Error("/dev/null was taken for a terminal")
	}
}
