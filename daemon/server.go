package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/authbench/authbench/runapi"
	"go.uber.org/zap"
)

// maxRequestBytes bounds a POST /v1/runs body.
const maxRequestBytes = 4 << 20

// Server serves the API of one Manager on a unix socket.
type Server struct {
	m    *Manager
	auth *Authorizer
	log  *zap.Logger
	http *http.Server
	ln   *connLimiter
	// writeTimeout bounds writing a response, or one chunk of a followed
	// log.
	writeTimeout time.Duration
}

// Listen creates the socket (refusing to take over a live one or to
// replace a non-socket) and returns a Server ready to Serve.
func Listen(m *Manager, socket string, auth *Authorizer) (*Server, error) {
	ln, err := listenSocket(socket, auth.GID)
	if err != nil {
		return nil, err
	}
	fileLimit, err := raiseFileLimit()
	if err != nil {
		m.log.Warn("file descriptor limit", zap.Error(err))
		fileLimit = 1024
	}
	total := nonRootConnCap(fileLimit)
	m.log.Info("connection limits", zap.Uint64("nofile", fileLimit),
		zap.Int("per_uid", m.cfg.MaxConnsPerUID), zap.Int("non_root_total", total))
	s := &Server{m: m, auth: auth, log: m.log, writeTimeout: writeTimeout}
	s.ln = newConnLimiter(ln, m.cfg.MaxConnsPerUID, total, m.metrics, m.log)
	s.http = &http.Server{
		Handler:           s.routes(),
		ConnContext:       func(ctx context.Context, c net.Conn) context.Context { return connContext(ctx, c, auth) },
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    64 << 10,
	}
	return s, nil
}

// Serve answers requests until Shutdown.
func (s *Server) Serve() error {
	err := s.http.Serve(s.ln)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Shutdown stops accepting requests, aborts every active run and waits
// for their records.
func (s *Server) Shutdown(ctx context.Context) error {
	runsErr := s.m.Shutdown(ctx)
	httpErr := s.http.Shutdown(ctx)
	return errors.Join(runsErr, httpErr)
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "ok\n")
	})
	mux.Handle("GET /metrics", rootOnly(s.m.metrics.Handler()))
	mux.HandleFunc("POST /v1/runs", s.createRun)
	mux.HandleFunc("GET /v1/runs", s.listRuns)
	mux.HandleFunc("GET /v1/runs/{id}", s.getRun)
	mux.HandleFunc("DELETE /v1/runs/{id}", s.cancelRun)
	mux.HandleFunc("POST /v1/runs/{id}/signal", s.signalRun)
	mux.HandleFunc("GET /v1/runs/{id}/{log}", s.streamLog)
	return s.authorize(s.withWriteDeadline(mux))
}

// rootOnly serves next to root only: the metrics count and time every
// user's runs, which a member may not see (GET /v1/runs shows a member
// only their own). Another caller gets 403 naming the rule.
func rootOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if peer, ok := peerFrom(r.Context()); !ok || peer.UID != 0 {
			writeError(w, forbidden(RuleRootOnly, "%s is root's only: it counts every user's runs", r.URL.Path))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// withWriteDeadline bounds the writing of each response (streamLog moves
// the deadline with every chunk it writes).
func (s *Server) withWriteDeadline(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(s.writeTimeout))
		next.ServeHTTP(w, r)
	})
}

// authorize refuses every request of a connection whose peer was
// refused when it connected (Authorizer.identify: confined, or neither
// root nor in the daemon's group), with the reason and rule; the refusal
// is logged once per connection.
func (s *Server) authorize(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cp := connPeerFrom(r.Context())
		refusal := forbidden(RulePeerUnverified, "the caller's credentials are unknown (not a unix socket peer)")
		if cp != nil {
			refusal = cp.refusal
		}
		if refusal == nil {
			next.ServeHTTP(w, r)
			return
		}
		s.m.metrics.Refused()
		logIt := cp == nil
		if cp != nil {
			cp.logOnce.Do(func() { logIt = true })
		}
		if logIt {
			var peer Peer
			if cp != nil {
				peer = cp.peer
			}
			s.log.Warn("connection refused", zap.Int32("pid", peer.PID), zap.Uint32("uid", peer.UID),
				zap.String("rule", refusal.Rule), zap.String("reason", refusal.Reason),
				zap.String("method", r.Method), zap.String("path", r.URL.Path))
		}
		writeError(w, refusal)
	})
}

func (s *Server) createRun(w http.ResponseWriter, r *http.Request) {
	peer, _ := peerFrom(r.Context())
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBytes+1))
	if err != nil {
		writeError(w, badField("", "read request: %v", err))
		return
	}
	if len(body) > maxRequestBytes {
		writeError(w, badField("", "request is larger than %d bytes", maxRequestBytes))
		return
	}
	req, err := decodeRequest(body)
	if err != nil {
		writeError(w, err)
		return
	}
	view, err := runView(r)
	if err != nil {
		writeError(w, err)
		return
	}
	run, err := s.m.Submit(req, peer)
	if err != nil {
		var fe *ForbiddenError
		if errors.As(err, &fe) {
			s.m.metrics.Refused()
			s.log.Warn("request refused", zap.Int32("pid", peer.PID), zap.Uint32("uid", peer.UID),
				zap.String("rule", fe.Rule), zap.String("reason", fe.Reason),
				zap.String("method", r.Method), zap.String("path", r.URL.Path))
		}
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, view(run))
}

// runView is the view of a run the request asks for with ?view=: the
// whole record (none) or its status (runapi.ViewStatus); another view is
// bad input.
func runView(r *http.Request) (func(*runapi.Run) any, error) {
	switch v := r.URL.Query().Get("view"); v {
	case "":
		return func(run *runapi.Run) any { return run }, nil
	case runapi.ViewStatus:
		return func(run *runapi.Run) any { return run.Status() }, nil
	default:
		return nil, badField("view", "unknown view %q (want %q or none)", v, runapi.ViewStatus)
	}
}

func (s *Server) listRuns(w http.ResponseWriter, r *http.Request) {
	peer, _ := peerFrom(r.Context())
	runs, err := s.m.ListFor(peer)
	if err != nil {
		s.log.Warn("list runs", zap.Error(err))
	}
	if runs == nil {
		runs = []*runapi.Run{}
	}
	writeJSON(w, http.StatusOK, runs)
}

func (s *Server) getRun(w http.ResponseWriter, r *http.Request) {
	peer, _ := peerFrom(r.Context())
	view, err := runView(r)
	if err != nil {
		writeError(w, err)
		return
	}
	run, err := s.m.GetFor(peer, r.PathValue("id"))
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, view(run))
}

func (s *Server) cancelRun(w http.ResponseWriter, r *http.Request) {
	peer, _ := peerFrom(r.Context())
	run, err := s.m.CancelFor(peer, r.PathValue("id"))
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, run)
}

// signalRun forwards a signal to the run's tree (SignalRequest).
func (s *Server) signalRun(w http.ResponseWriter, r *http.Request) {
	peer, _ := peerFrom(r.Context())
	var req runapi.SignalRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 1024)).Decode(&req); err != nil {
		writeError(w, badField("signal", "read request: %v", err))
		return
	}
	sig, err := ParseSignal(req.Signal)
	if err == nil {
		err = s.m.SignalFor(peer, r.PathValue("id"), sig)
	}
	if err != nil {
		writeError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// streamLog serves one of a run's files, a name of its kind's artifact
// table only (OpenArtifact; else a 404 naming them); with ?follow=1 it
// keeps the response open and streams what is appended until the run has
// ended.
func (s *Server) streamLog(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	follow := q.Get("follow") == "1"
	// A follower that asks for the status view gets it after the log,
	// in a trailer, once the run has ended: no request more for it.
	status := follow && q.Get("view") == runapi.ViewStatus
	peer, _ := peerFrom(r.Context())
	id := r.PathValue("id")
	rc, name, err := s.m.OpenArtifactFor(r.Context(), peer, id, r.PathValue("log"), follow)
	if err != nil {
		writeError(w, err)
		return
	}
	defer rc.Close()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if name == eventsFile {
		w.Header().Set("Content-Type", "application/x-ndjson")
	}
	if status {
		w.Header().Set("Trailer", runapi.StatusTrailer)
	}
	w.WriteHeader(http.StatusOK)
	if !s.copyFlushing(w, rc) || !status {
		return
	}
	if run, err := s.m.GetFor(peer, id); err == nil && run.State.Terminal() {
		if v, err := runapi.EncodeStatusTrailer(run.Status()); err == nil {
			w.Header().Set(runapi.StatusTrailer, v)
		}
	}
}

// copyFlushing copies src to w, flushing after every read so followers
// see data as it comes; each chunk has writeTimeout to be written. It
// reports whether src was copied to its end.
func (s *Server) copyFlushing(w http.ResponseWriter, src io.Reader) bool {
	rc := http.NewResponseController(w)
	buf := make([]byte, 64<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			_ = rc.SetWriteDeadline(time.Now().Add(s.writeTimeout))
			if _, werr := w.Write(buf[:n]); werr != nil {
				return false
			}
			if rc.Flush() != nil {
				return false
			}
		}
		if err != nil {
			return err == io.EOF
		}
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

func writeError(w http.ResponseWriter, err error) {
	resp := runapi.ErrorResponse{Error: err.Error()}
	var re *RequestError
	var fe *ForbiddenError
	if errors.As(err, &re) {
		resp.Field = re.Field
	}
	if errors.As(err, &fe) {
		resp.Rule = fe.Rule
	}
	status := httpStatus(err)
	var ae *runapi.ArtifactError
	if errors.As(err, &ae) {
		resp.Allowed, status = ae.Allowed, http.StatusNotFound
	}
	writeJSON(w, status, resp)
}
