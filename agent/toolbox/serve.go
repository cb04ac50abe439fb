package toolbox

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// Defaults and limits of a toolbox.
const (
	DefaultMaxOutput  = 64 << 10
	DefaultTimeout    = 120 * time.Second
	DefaultMaxTimeout = time.Hour
	// MaxRequestBytes bounds one request line (write_file's content).
	MaxRequestBytes = 16 << 20
)

// Options configure Serve.
type Options struct {
	// Dir is the shell's first working directory ("": the process's).
	Dir string
	// MaxOutput bounds each result's output (0: DefaultMaxOutput).
	MaxOutput int
	// DefaultTimeout is a shell command's time when the request names
	// none (0: DefaultTimeout); MaxTimeout bounds any (0: DefaultMaxTimeout).
	DefaultTimeout, MaxTimeout time.Duration
	// Shell is the shell's path ("": bash found in PATH, else /bin/sh).
	Shell string
	// Env is the shell's first environment (nil: the process's).
	Env []string
}

func (o Options) withDefaults() Options {
	if o.MaxOutput <= 0 {
		o.MaxOutput = DefaultMaxOutput
	}
	if o.DefaultTimeout <= 0 {
		o.DefaultTimeout = DefaultTimeout
	}
	if o.MaxTimeout <= 0 {
		o.MaxTimeout = DefaultMaxTimeout
	}
	if o.DefaultTimeout > o.MaxTimeout {
		o.DefaultTimeout = o.MaxTimeout
	}
	if o.Env == nil {
		o.Env = os.Environ()
	}
	if o.Dir == "" {
		o.Dir, _ = os.Getwd()
	}
	if o.Shell == "" {
		o.Shell = findShell(o.Env)
	}
	return o
}

// Serve answers the requests read from in, one JSON line each, on out,
// one at a time, until in ends (nil) or out fails. A line that is not a
// request is answered with an error result (ID 0 when it has none).
func Serve(in io.Reader, out io.Writer, opts Options) error {
	s := newServer(opts.withDefaults())
	r := bufio.NewReaderSize(in, 64<<10)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for {
		line, tooLong, err := readLine(r, MaxRequestBytes)
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			var res Result
			if tooLong {
				res = errorResult(0, fmt.Errorf("request longer than %d bytes", MaxRequestBytes))
			} else {
				res = s.handleLine(line)
			}
			if werr := enc.Encode(res); werr != nil {
				return fmt.Errorf("write result: %w", werr)
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read request: %w", err)
		}
	}
}

// readLine reads one line of at most max bytes; a longer one is read to
// its end and dropped (tooLong).
func readLine(r *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, tooLong, err
		}
	}
}

func (s *server) handleLine(line []byte) Result {
	var req Request
	if err := json.Unmarshal(line, &req); err != nil {
		var probe struct {
			ID uint64 `json:"id"`
		}
		_ = json.Unmarshal(line, &probe)
		return errorResult(probe.ID, fmt.Errorf("bad request: %w", err))
	}
	start := time.Now()
	res := s.handle(req)
	res.ID, res.StartNS, res.EndNS = req.ID, start.UnixNano(), time.Now().UnixNano()
	return res
}

func (s *server) handle(req Request) Result {
	switch req.Op {
	case OpListDir:
		return s.listDir(req)
	case OpReadFile:
		return s.readFile(req)
	case OpWriteFile:
		return s.writeFile(req)
	case OpGrep:
		return s.grep(req)
	case OpStat:
		return s.stat(req)
	case OpWhich:
		return s.which(req)
	case OpShell:
		return s.shell.run(req)
	case OpPing:
		return Result{ID: req.ID, Output: "pong"}
	}
	return errorResult(req.ID, fmt.Errorf("unknown op %q", req.Op))
}
