package toolbox

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// errGrepDone stops the walk once enough matches were found.
var errGrepDone = errors.New("enough matches")

// grepState collects the matches of one grep.
type grepState struct {
	re       *regexp.Regexp
	limit    int
	out      strings.Builder
	matches  int
	more     bool // matches beyond the limit exist
	files    int
	binary   int
	skipped  int // not searched: too large, or too many files
	failed   int
	firstErr error
}

func (s *server) grep(req Request) Result {
	if req.Pattern == "" {
		return errorResult(req.ID, errors.New("missing pattern"))
	}
	re, err := regexp.Compile(req.Pattern)
	if err != nil {
		return errorResult(req.ID, fmt.Errorf("pattern: %w", err))
	}
	root, err := s.abs(orDot(req.Path))
	if err != nil {
		return errorResult(req.ID, err)
	}
	st, err := os.Stat(root)
	if err != nil {
		return errorResult(req.ID, err)
	}
	g := &grepState{re: re, limit: maxGrepMatches}
	if req.Limit > 0 && req.Limit < maxGrepMatches {
		g.limit = int(req.Limit)
	}
	if !st.IsDir() {
		if err := g.file(root); err != nil && !errors.Is(err, errGrepDone) {
			return errorResult(req.ID, err)
		}
	} else {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				g.fail(err)
				if d != nil && d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() {
				return nil
			}
			if g.files >= maxGrepFiles {
				g.skipped++
				return nil
			}
			if err := g.file(p); errors.Is(err, errGrepDone) {
				return fs.SkipAll
			} else if err != nil {
				g.fail(err)
			}
			return nil
		})
	}
	return g.result(req.ID, s.o.MaxOutput)
}

func (g *grepState) fail(err error) {
	g.failed++
	if g.firstErr == nil {
		g.firstErr = err
	}
}

// file searches one file, line by line; binary files are only counted.
func (g *grepState) file(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	g.files++
	r := bufio.NewReaderSize(io.LimitReader(f, maxGrepFile), 64<<10)
	head, _ := r.Peek(8 << 10)
	if bytes.IndexByte(head, 0) >= 0 {
		g.binary++
		return nil
	}
	for n := 1; ; n++ {
		line, err := r.ReadString('\n')
		if line != "" && g.re.MatchString(line) {
			if g.matches >= g.limit {
				g.more = true
				return errGrepDone
			}
			g.matches++
			text := strings.TrimRight(line, "\r\n")
			if len(text) > maxGrepLine {
				text = text[:maxGrepLine] + " [... line cut]"
			}
			fmt.Fprintf(&g.out, "%s:%d:%s\n", p, n, text)
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("read %s: %w", p, err)
		}
	}
}

func (g *grepState) result(id uint64, maxOutput int) Result {
	res := Result{ID: id, Truncated: g.more}
	out := g.out.String()
	if len(out) > maxOutput {
		out, res.Truncated = out[:maxOutput]+"\n[... output cut ...]\n", true
	}
	if g.matches == 0 {
		out = "no matches\n"
	}
	if g.more {
		out += fmt.Sprintf("[... stopped after %d matches; narrow the pattern or the path ...]\n", g.limit)
	}
	if g.binary > 0 {
		out += fmt.Sprintf("[%d binary files not searched]\n", g.binary)
	}
	if g.skipped > 0 {
		out += fmt.Sprintf("[%d files not searched: more than %d files]\n", g.skipped, maxGrepFiles)
	}
	if g.failed > 0 {
		out += fmt.Sprintf("[%d files or directories could not be read; the first: %v]\n", g.failed, g.firstErr)
		res.Errno = ErrnoName(g.firstErr)
	}
	res.Output = out
	return res
}
