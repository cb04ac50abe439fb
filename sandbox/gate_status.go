package sandbox

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
)

// statusPipe is the parent's side of a ReportExit child's status pipe
// (its descriptor 5): "started" once the command runs, "exit N" when it
// ended. The reaper stays for the rest of the tree, so neither its exec
// nor its end tells the parent.
type statusPipe struct {
	r, w    *os.File
	started chan struct{}
	ended   chan int
	reading sync.Once
}

func newStatusPipe() (*statusPipe, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("sandbox gate: status pipe: %w", err)
	}
	return &statusPipe{r: r, w: w, started: make(chan struct{}), ended: make(chan int, 1)}, nil
}

// read starts reading the pipe (once) and returns the channel closed
// when the command started.
func (s *statusPipe) read() <-chan struct{} {
	s.reading.Do(func() { go s.scan() })
	return s.started
}

// scan reads the pipe's messages until its end.
func (s *statusPipe) scan() {
	defer close(s.ended)
	started := false
	sc := bufio.NewScanner(s.r)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == statusStarted && !started:
			started = true
			close(s.started)
		case strings.HasPrefix(line, statusExit+" "):
			if n, err := strconv.Atoi(strings.TrimPrefix(line, statusExit+" ")); err == nil {
				s.ended <- n
				return
			}
		}
	}
}
