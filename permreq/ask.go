package permreq

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/authbench/authbench/internal/termtext"
	"github.com/authbench/authbench/policy"
)

// DeciderAsk prompts the person at the controlling terminal of a
// bare-host exec (never standard input, which the command may own).
const DeciderAsk = "ask"

// MaxAnswerBytes bounds the answer line read from the terminal; a longer
// one refuses.
const MaxAnswerBytes = 64

// Terminal is where the ask decider asks: the controlling terminal, with
// read deadlines (a pollable *os.File of /dev/tty is one).
type Terminal interface {
	io.ReadWriter
	SetReadDeadline(time.Time) error
}

// flusher discards input typed before the prompt (an answer typed late
// to an earlier one must not answer this one).
type flusher interface{ FlushInput() error }

// NewAskDecider makes the ask decider on term: it refuses what reaches a
// sensitive entry of spec (nil: none) before the person sees it, as
// every decider does, and asks about the rest.
func NewAskDecider(term Terminal, spec *policy.Spec) Decider {
	return guarded{Decider: ask{term: term}, sens: sensitiveOf(spec)}
}

// ask prompts on its terminal: y or yes grants; anything else, no
// answer by the decision's time limit, or a broken terminal refuses.
type ask struct{ term Terminal }

func (ask) Name() string { return DeciderAsk }

func (a ask) Decide(ctx context.Context, req Request, g *Grant) Decision {
	if f, ok := a.term.(flusher); ok {
		_ = f.FlushInput()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nauthbench: the command asks for a permission:\n  %s %s\n  reason: %s\n",
		req.Axis, termtext.Escape(req.Path.String()), termtext.Escape(req.Reason))
	for _, r := range g.Rules {
		fmt.Fprintf(&b, "  adds: %s %s\n", termtext.Escape(r.Path), r.Access)
	}
	for _, w := range g.Wider {
		fmt.Fprintf(&b, "  wider than asked: %s\n", termtext.Escape(w.Detail))
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(DefaultTimeout)
	}
	// Stop reading a little before the desk's own limit, so that the
	// person's terminal says it refused.
	deadline = deadline.Add(-min(100*time.Millisecond, time.Until(deadline)/10))
	fmt.Fprintf(&b, "Grant it? [y/N] (no answer in %s refuses) ", time.Until(deadline).Round(time.Second))
	if _, err := io.WriteString(a.term, b.String()); err != nil {
		return Decision{Why: "refused: the terminal could not be written: " + err.Error()}
	}
	line, err := readLine(a.term, deadline)
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		io.WriteString(a.term, "\nauthbench: no answer: refused\n")
		return Decision{Why: "refused: no answer at the terminal in time"}
	case err != nil:
		return Decision{Why: "refused: " + err.Error()}
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return Decision{Granted: true, Why: "granted by the person at the terminal"}
	}
	return Decision{Why: "refused by the person at the terminal"}
}

// readLine reads up to a newline by deadline, at most MaxAnswerBytes.
func readLine(r Terminal, deadline time.Time) (string, error) {
	if err := r.SetReadDeadline(deadline); err != nil {
		return "", fmt.Errorf("the terminal has no deadline: %w", err)
	}
	defer r.SetReadDeadline(time.Time{})
	var line []byte
	buf := make([]byte, 1)
	for {
		n, err := r.Read(buf)
		if n == 1 {
			if buf[0] == '\n' || buf[0] == '\r' {
				return string(line), nil
			}
			if line = append(line, buf[0]); len(line) > MaxAnswerBytes {
				return "", fmt.Errorf("an answer over %d bytes", MaxAnswerBytes)
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) && len(bytes.TrimSpace(line)) == 0 {
				return "", errors.New("the terminal closed")
			}
			return string(line), err
		}
	}
}
