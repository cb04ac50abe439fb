package toolbox

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// ErrGone is returned by Call when the toolbox is gone (its output ended
// or broke the protocol): it must be started again.
var ErrGone = errors.New("the toolbox is gone")

// Client calls a toolbox over its stdin (w) and stdout (r).
type Client struct {
	w      io.WriteCloser
	mu     sync.Mutex // one call at a time
	nextID uint64
	res    chan Result
	done   chan struct{} // closed when r ended
	closed chan struct{} // closed by Close
	once   sync.Once
	err    error // why r ended (set before done is closed)
}

// NewClient reads results from r in the background; w carries requests.
func NewClient(w io.WriteCloser, r io.Reader) *Client {
	c := &Client{w: w, res: make(chan Result), done: make(chan struct{}), closed: make(chan struct{})}
	go c.read(r)
	return c
}

func (c *Client) read(r io.Reader) {
	defer close(c.done)
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 && err == nil {
			var res Result
			if jerr := json.Unmarshal(line, &res); jerr != nil {
				c.err = fmt.Errorf("%w: bad result line: %v", ErrGone, jerr)
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
			if res.ID < req.ID && res.ID != 0 {
				continue // the answer to a call whose ctx ended
			}
			return res, nil
		case <-c.done:
			return Result{}, c.err
		case <-ctx.Done():
			return Result{}, fmt.Errorf("toolbox %s: %w", req.Op, ctx.Err())
		}
	}
}

// Close closes the toolbox's stdin: it exits once the current call ends.
func (c *Client) Close() error {
	c.once.Do(func() { close(c.closed) })
	return c.w.Close()
}
