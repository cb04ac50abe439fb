package tracer

import "github.com/authbench/authbench/tracer/trace"

// WriteSession writes to w every event of s until its Events channel closes,
// and returns the first write error; it keeps reading after one, so that
// Session.Close is never kept waiting.
func WriteSession(w *trace.Writer, s *Session) error {
	var werr error
	for batch := range s.Events() {
		for i := range batch {
			if werr == nil {
				werr = w.Write(&batch[i])
			}
		}
		s.Recycle(batch)
	}
	return werr
}
