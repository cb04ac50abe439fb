package runapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"syscall"
	"time"
)

// API is what a caller can do with runs, whether the daemon is reached
// over its socket (Client) or embedded in the calling process (Local).
type API interface {
	Submit(ctx context.Context, req *RunRequest) (*Run, error)
	Get(ctx context.Context, id string) (*Run, error)
	List(ctx context.Context) ([]*Run, error)
	Cancel(ctx context.Context, id string) (*Run, error)
	// OpenLog streams "events", "stdout" or "stderr" of a run.
	OpenLog(ctx context.Context, id, log string, follow bool) (io.ReadCloser, error)
	Wait(ctx context.Context, id string) (*Run, error)
}

var _ API = (*Client)(nil)

// Client talks to a daemon over its unix socket.
type Client struct {
	socket string
	http   *http.Client
	mu     sync.Mutex
	first  net.Conn // DialClient's connection until a request takes it
}

// NewClient returns a client of the daemon listening on socket.
func NewClient(socket string) *Client {
	return newClient(socket, nil)
}

// DialClient connects to the daemon listening on socket, within timeout,
// and returns a client whose first request goes over that connection:
// the check that a daemon answers is the first request's connection, not
// one more (a daemon identifies every connection's peer). Close the
// client when it may go unused.
func DialClient(socket string, timeout time.Duration) (*Client, error) {
	conn, err := net.DialTimeout("unix", socket, timeout)
	if err != nil {
		return nil, err
	}
	return newClient(socket, conn), nil
}

// newClient is a client of socket whose first dial takes first when
// that is set.
func newClient(socket string, first net.Conn) *Client {
	c := &Client{socket: socket, first: first}
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			if conn := c.takeFirst(); conn != nil {
				return conn, nil
			}
			var d net.Dialer
			return d.DialContext(ctx, "unix", socket)
		},
	}
	c.http = &http.Client{Transport: tr}
	return c
}

// takeFirst returns the connection DialClient made, once (nil after).
func (c *Client) takeFirst() net.Conn {
	c.mu.Lock()
	defer c.mu.Unlock()
	conn := c.first
	c.first = nil
	return conn
}

// Close closes the client's idle connections, and the one DialClient
// made if no request took it.
func (c *Client) Close() {
	if conn := c.takeFirst(); conn != nil {
		conn.Close()
	}
	c.http.CloseIdleConnections()
}

// APIError is a non-2xx answer of the daemon.
type APIError struct {
	Status int
	ErrorResponse
}

func (e *APIError) Error() string {
	msg := e.ErrorResponse.Error
	if e.Field != "" && !bytes.HasPrefix([]byte(msg), []byte(e.Field+":")) {
		msg = e.Field + ": " + msg
	}
	return fmt.Sprintf("daemon: %s (HTTP %d)", msg, e.Status)
}

func (c *Client) do(ctx context.Context, method, path string, body any, out any) error {
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://authbench"+path, rd)
	if err != nil {
		return err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("daemon at %s: %w", c.socket, err)
	}
	defer resp.Body.Close()
	if err := checkResponse(resp); err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("daemon answer to %s %s: %w", method, path, err)
	}
	return nil
}

func checkResponse(resp *http.Response) error {
	if resp.StatusCode/100 == 2 {
		return nil
	}
	ae := &APIError{Status: resp.StatusCode}
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if json.Unmarshal(data, &ae.ErrorResponse) != nil || ae.ErrorResponse.Error == "" {
		ae.ErrorResponse.Error = string(bytes.TrimSpace(data))
	}
	return ae
}

// Artifact is the refusal of a file name a run's kind does not make (a
// 404 naming the names it serves), or nil for any other answer; its Kind
// and Name are not sent and stay empty.
func (e *APIError) Artifact() *ArtifactError {
	if e.Status != http.StatusNotFound || len(e.Allowed) == 0 {
		return nil
	}
	return &ArtifactError{Allowed: e.Allowed}
}

// Submit starts a run.
func (c *Client) Submit(ctx context.Context, req *RunRequest) (*Run, error) {
	var run Run
	if err := c.do(ctx, http.MethodPost, "/v1/runs", req, &run); err != nil {
		return nil, err
	}
	return &run, nil
}

// SubmitStatus starts a run and returns its status view (?view=status)
// as a record holding only those fields: for a client that needs only
// the run's id.
func (c *Client) SubmitStatus(ctx context.Context, req *RunRequest) (*Run, error) {
	var st RunStatus
	if err := c.do(ctx, http.MethodPost, "/v1/runs?view="+ViewStatus, req, &st); err != nil {
		return nil, err
	}
	return st.Run(), nil
}

// GetStatus returns the status view of run id (?view=status) as a
// record holding only those fields: for a client that reports a run's
// end (exit status, failure, processes left) and nothing else.
func (c *Client) GetStatus(ctx context.Context, id string) (*Run, error) {
	var st RunStatus
	if err := c.do(ctx, http.MethodGet, "/v1/runs/"+url.PathEscape(id)+"?view="+ViewStatus, nil, &st); err != nil {
		return nil, err
	}
	return st.Run(), nil
}

// Get returns the record of run id.
func (c *Client) Get(ctx context.Context, id string) (*Run, error) {
	var run Run
	if err := c.do(ctx, http.MethodGet, "/v1/runs/"+url.PathEscape(id), nil, &run); err != nil {
		return nil, err
	}
	return &run, nil
}

// List returns every run record.
func (c *Client) List(ctx context.Context) ([]*Run, error) {
	var runs []*Run
	err := c.do(ctx, http.MethodGet, "/v1/runs", nil, &runs)
	return runs, err
}

// Cancel kills the tree of run id and returns its final record.
func (c *Client) Cancel(ctx context.Context, id string) (*Run, error) {
	var run Run
	if err := c.do(ctx, http.MethodDelete, "/v1/runs/"+url.PathEscape(id), nil, &run); err != nil {
		return nil, err
	}
	return &run, nil
}

// Signal forwards sig to the tree of run id (POST /v1/runs/{id}/signal).
func (c *Client) Signal(ctx context.Context, id string, sig syscall.Signal) error {
	return c.do(ctx, http.MethodPost, "/v1/runs/"+url.PathEscape(id)+"/signal", &SignalRequest{Signal: SignalName(sig)}, nil)
}

// OpenLog streams one of the run's files by its API name (its kind's
// artifact table: "events", "stdout", "agent-stdout", "build", ...); a
// name the run's kind does not make is an *APIError whose Artifact names
// the ones it does.
func (c *Client) OpenLog(ctx context.Context, id, log string, follow bool) (io.ReadCloser, error) {
	path := "/v1/runs/" + url.PathEscape(id) + "/" + url.PathEscape(log)
	if follow {
		path += "?follow=1"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://authbench"+path, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("daemon at %s: %w", c.socket, err)
	}
	if err := checkResponse(resp); err != nil {
		resp.Body.Close()
		return nil, err
	}
	return resp.Body, nil
}

// FollowLogStatus follows log of run id (OpenLog with follow) asking for
// the run's status after it (?view=status): once the log has been read
// to its end, status returns the status view the daemon sent in the
// StatusTrailer as a record holding only those fields, or nil when it
// sent none (a daemon without it, or a log cut short).
func (c *Client) FollowLogStatus(ctx context.Context, id, log string) (rc io.ReadCloser, status func() (*Run, error), err error) {
	path := "/v1/runs/" + url.PathEscape(id) + "/" + url.PathEscape(log) + "?follow=1&view=" + ViewStatus
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://authbench"+path, nil)
	if err != nil {
		return nil, nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("daemon at %s: %w", c.socket, err)
	}
	if err := checkResponse(resp); err != nil {
		resp.Body.Close()
		return nil, nil, err
	}
	return resp.Body, func() (*Run, error) {
		st, err := DecodeStatusTrailer(resp.Trailer.Get(StatusTrailer))
		if st == nil || err != nil {
			return nil, err
		}
		return st.Run(), nil
	}, nil
}

// Wait follows the run until it ends and returns its final record: it
// follows the file of the run's kind that WaitLog names (a command's
// stderr, a task agent's, a generator's, a build's log).
func (c *Client) Wait(ctx context.Context, id string) (*Run, error) {
	run, err := c.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if run.State.Terminal() {
		return run, nil
	}
	kind, err := run.Request.Kind()
	if err != nil {
		return nil, fmt.Errorf("wait for run %s: %w", id, err)
	}
	rc, err := c.OpenLog(ctx, id, WaitLog(kind), true)
	if err != nil {
		return nil, err
	}
	_, err = io.Copy(io.Discard, rc)
	rc.Close()
	if err != nil {
		return nil, err
	}
	return c.Get(ctx, id)
}
