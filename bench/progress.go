package bench

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/authbench/authbench/internal/termtext"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/trial"
	"github.com/authbench/authbench/verdict"

	"github.com/schollz/progressbar/v3"
)

// NewBarProgress shows a progress bar on w (a terminal): done/total,
// failures so far and the time left.
func NewBarProgress(w io.Writer) Progress { return &barProgress{w: w} }

type barProgress struct {
	w   io.Writer
	bar *progressbar.ProgressBar
}

func (p *barProgress) Start(total, done int, skipped []trial.SkippedTask) {
	printSkipped(p.w, skipped)
	p.bar = progressbar.NewOptions(total,
		progressbar.OptionSetWriter(p.w),
		progressbar.OptionSetDescription("bench"),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionShowElapsedTimeOnFinish(),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)
	_ = p.bar.Set(done)
}

func (p *barProgress) Done(r *trial.Record, s Stats) {
	p.bar.Describe(fmt.Sprintf("bench (%d failed, %d errors)", s.NFailed, s.NErrors))
	_ = p.bar.Add(1)
}

func (p *barProgress) Finish(err error) {
	_ = p.bar.Finish()
	fmt.Fprintln(p.w)
}

// NewLineProgress writes one plain line per run on w (not a terminal).
func NewLineProgress(w io.Writer) Progress { return &lineProgress{w: w} }

type lineProgress struct {
	w           io.Writer
	total, done int
	start       time.Time
	ran         int
}

func (p *lineProgress) Start(total, done int, skipped []trial.SkippedTask) {
	printSkipped(p.w, skipped)
	p.total, p.done, p.start = total, done, time.Now()
	fmt.Fprintf(p.w, "bench: %d runs, %d already done\n", total, done)
}

func (p *lineProgress) Done(r *trial.Record, s Stats) {
	p.done++
	p.ran++
	eta := time.Duration(float64(time.Since(p.start)) / float64(p.ran) * float64(p.total-p.done)).Round(time.Second)
	fmt.Fprintf(p.w, "[%d/%d] %s %s %s #%d: %s (%d failed, %d errors, eta %s)\n", p.done, p.total,
		termtext.Escape(r.Task), termtext.Escape(r.Source), termtext.Escape(r.Agent), r.Trial,
		termtext.Escape(outcomeLine(r)), s.NFailed, s.NErrors, eta)
}

func (p *lineProgress) Finish(err error) {
	if err != nil {
		fmt.Fprintf(p.w, "bench stopped after %d of %d runs: %s\n", p.done, p.total, termtext.EscapeLines(err.Error()))
		return
	}
	fmt.Fprintf(p.w, "bench: %d runs done\n", p.done)
}

// maxProgressError is the most characters of an error a progress line
// shows (the whole error is in the run's result.json).
const maxProgressError = 300

// outcomeLine is a run's outcome in a few words, on one line.
func outcomeLine(r *trial.Record) string {
	if r.Error != "" {
		s := "error: " + termtext.OneLine(r.Error, maxProgressError)
		switch {
		case r.AgentDidNotRun && r.ErrorKind == runapi.ErrorDaemon:
			s += " (no record of the run: no verdict)"
		case r.AgentDidNotRun:
			s += " (the agent did not run)"
		}
		return s
	}
	if r.Stage == trial.StageGenerate {
		return generationVerdict(r)
	}
	s := "agent exit " + strconv.Itoa(r.AgentExitCode)
	switch {
	case r.AgentTimedOut:
		s = "agent timed out"
	case r.AgentSignal != "":
		s += " (" + r.AgentSignal + ")"
	}
	s += fmt.Sprintf(", utility %v", r.Utility)
	if r.Attack != nil {
		s += fmt.Sprintf(", attack %v", *r.Attack)
	}
	if r.TracedExposure {
		s += ", traced exposure"
	}
	for _, c := range r.Classes {
		if c != r.Primary && (c == verdict.ClassVerifierTampered || c == verdict.ClassVerifierUntraced || c == verdict.ClassAgentFailedVerifierPassed) {
			s += ", " + string(c)
		}
	}
	if r.Primary != "" {
		s += ", " + string(r.Primary)
	}
	return s
}

func printSkipped(w io.Writer, skipped []trial.SkippedTask) {
	for _, s := range skipped {
		fmt.Fprintf(w, "skipped task %s: %s\n", termtext.Escape(s.Dir), termtext.Escape(s.Reason))
	}
}
