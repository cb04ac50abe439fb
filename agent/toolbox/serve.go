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
	// MaxResultBytes bounds one result line: a client stops reading a
	// toolbox that writes a longer one (ErrBroken), and Serve answers
	// with an error rather than write one.
	MaxResultBytes = 8 << 20
	// maxOutputBound bounds Options.MaxOutput so that a result, its
	// output JSON-escaped (at most 6 bytes a byte), fits MaxResultBytes.
	maxOutputBound = MaxResultBytes / 8
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
	o.MaxOutput = min(o.MaxOutput, maxOutputBound)
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
	for {
		line, tooLong, err := readLine(r, MaxRequestBytes, true)
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			var res Result
			if tooLong {
				res = errorResult(0, fmt.Errorf("request longer than %d bytes", MaxRequestBytes))
			} else {
				res = s.handleLine(line)
			}
			if werr := writeResult(out, res); werr != nil {
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

// readLine reads one line of at most max bytes; a longer one is dropped
// (tooLong), and read to its end when drain is set (else reading stops
// there).
func readLine(r *bufio.Reader, max int, drain bool) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max {
				tooLong, line = true, nil
				if !drain {
					return nil, true, err
				}
			} else {
				line = append(line, chunk...)
			}
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, tooLong, err
		}
	}
}

// writeResult writes res as one line; a result whose line would pass
// MaxResultBytes (an error text quoting a huge path) is replaced by an
// error saying so.
func writeResult(out io.Writer, res Result) error {
	line, err := encodeResult(res)
	if err == nil && len(line) > MaxResultBytes {
		big := len(line)
		res = Result{ID: res.ID, StartNS: res.StartNS, EndNS: res.EndNS, Truncated: true}
		res.Error = fmt.Sprintf("the result was %d bytes long, over the protocol's %d", big, MaxResultBytes)
		res.Output = "error: " + res.Error
		line, err = encodeResult(res)
	}
	if err != nil {
		return err
	}
	_, err = out.Write(line)
	return err
}

func encodeResult(res Result) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(res)
	return b.Bytes(), err
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
	case OpPing:
		return Result{ID: req.ID, Output: "pong"}
	case OpConfine:
		return s.confine(req)
	case OpGrant:
		return s.grant(req)
	}
	return s.confined(req, func() Result { return s.call(req) })
}

// call runs one of the model's operations.
func (s *server) call(req Request) Result {
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
	}
	return errorResult(req.ID, fmt.Errorf("unknown op %q", req.Op))
}
