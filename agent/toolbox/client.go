package toolbox

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"go.uber.org/zap"
)

// ErrGone is returned by Call when the toolbox is gone (its output ended
// or broke the protocol): it must be started again.
var ErrGone = errors.New("the toolbox is gone")

// ErrBroken is returned by Call (with ErrGone) when the toolbox broke the
// protocol: a result line over MaxResultBytes or one that is not a
// result. The client stopped reading; the toolbox is not to be trusted
// again.
var ErrBroken = errors.New("the toolbox broke the protocol")

// Client calls a toolbox over its input (w) and output (r). It holds at
// most MaxResultBytes of one result line: a longer line ends the client
// (ErrBroken). A result is taken only for the request of its ID; late,
// repeated or unasked-for results are dropped and logged.
type Client struct {
	w      io.WriteCloser
	log    *zap.Logger
	mu     sync.Mutex // one call at a time
	nextID uint64
	res    chan Result
	done   chan struct{} // closed when r ended
	closed chan struct{} // closed by Close
	once   sync.Once
	err    error // why r ended (set before done is closed)
}

// NewClient reads results from r in the background; w carries requests.
// r is closed once the client stops reading (it ended, or broke the
// protocol) when it is an io.Closer. log (nil: none) gets the dropped
// results.
func NewClient(w io.WriteCloser, r io.Reader, log *zap.Logger) *Client {
	if log == nil {
		log = zap.NewNop()
	}
	c := &Client{w: w, log: log, res: make(chan Result), done: make(chan struct{}), closed: make(chan struct{})}
	go c.read(r)
	return c
}

func (c *Client) read(r io.Reader) {
	defer close(c.done)
	if rc, ok := r.(io.Closer); ok {
		defer rc.Close()
	}
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, tooLong, err := readLine(br, MaxResultBytes, false)
		if tooLong {
			c.err = fmt.Errorf("%w: %w: a result line over %d bytes", ErrGone, ErrBroken, MaxResultBytes)
			return
		}
		if len(line) > 0 && err == nil {
			var res Result
			if jerr := json.Unmarshal(line, &res); jerr != nil {
				c.err = fmt.Errorf("%w: %w: a line that is not a result: %v", ErrGone, ErrBroken, jerr)
				return
			}
			select {
			case c.res <- res:
			case <-c.closed:
				return
			}
			continue
		}
		if err == nil || errors.Is(err, io.EOF) {
			c.err = fmt.Errorf("%w: its output ended", ErrGone)
		} else {
			c.err = fmt.Errorf("%w: read: %v", ErrGone, err)
		}
		return
	}
}

// Call sends req (its ID is set here) and waits for its result. An error
// means the toolbox is gone (ErrGone) or ctx ended before the result
// came; a failed operation is a Result with Error set.
func (c *Client) Call(ctx context.Context, req Request) (Result, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextID++
	req.ID = c.nextID
	line, err := json.Marshal(req)
	if err != nil {
		return Result{}, fmt.Errorf("encode request: %w", err)
	}
	if len(line) >= MaxRequestBytes {
		return Result{}, fmt.Errorf("toolbox %s: the request is %d bytes long (at most %d)", req.Op, len(line), MaxRequestBytes-1)
	}
	select {
	case <-c.done:
		return Result{}, c.err
	default:
	}
	if _, err := c.w.Write(append(line, '\n')); err != nil {
		return Result{}, fmt.Errorf("%w: write: %v", ErrGone, err)
	}
	for {
		select {
		case res := <-c.res:
			if res.ID == req.ID {
				return res, nil
			}
			c.drop(res, req.ID)
		case <-c.done:
			return Result{}, c.err
		case <-ctx.Done():
			return Result{}, fmt.Errorf("toolbox %s: %w", req.Op, ctx.Err())
		}
	}
}

// drop logs a result that is not the answer to the request waited for.
func (c *Client) drop(res Result, want uint64) {
	why := "late or repeated (its call ended)"
	if res.ID == 0 || res.ID > want {
		why = "for no request made"
	}
	c.log.Warn("toolbox result dropped", zap.Uint64("id", res.ID), zap.Uint64("waiting_for", want), zap.String("why", why),
		zap.Int("output_bytes", len(res.Output)))
}

// Close ends the toolbox's input: it exits once the current call ends.
func (c *Client) Close() error {
	c.once.Do(func() { close(c.closed) })
	return c.w.Close()
}
