package runbox

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/authbench/authbench/env/imagemeta"
	"github.com/authbench/authbench/internal/safefile"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tasks"
)

// UnknownUserError says that the agent's user (or group) is not in the
// image's /etc/passwd (or /etc/group).
type UnknownUserError struct {
	Task string
	User string
	// What is "user" or "group"; Name the name that was not found.
	What, Name string
}

func (e *UnknownUserError) Error() string {
	file := "/etc/passwd"
	if e.What == "group" {
		file = "/etc/group"
	}
	return fmt.Sprintf("task %s: agent user %q: %s %q is not in the image's %s", e.Task, e.User, e.What, e.Name, file)
}

// AgentUserSpec is the user the task's agent runs as, before resolution:
// task.toml's [agent] user, else the image's USER, else root (Harbor's
// convention: the agent runs as the image's user).
func AgentUserSpec(t *tasks.Task, img *imagemeta.TaskImage) string {
	if u := strings.TrimSpace(t.Config.Agent.User); u != "" {
		return u
	}
	if img != nil {
		if u := strings.TrimSpace(img.Config.User); u != "" {
			return u
		}
	}
	return "root"
}

// ResolveAgent resolves the task's agent user through the rootfs's
// /etc/passwd and /etc/group, read beneath rootfs (no link followed, a
// FIFO refused: internal/safefile).
func ResolveAgent(t *tasks.Task, img *imagemeta.TaskImage, rootfs string) (runapi.Identity, error) {
	user := AgentUserSpec(t, img)
	root, err := safefile.OpenReadDir(rootfs)
	if err != nil {
		return runapi.Identity{}, fmt.Errorf("task %s: agent user: %w", t.Name, err)
	}
	defer root.Close()
	passwd, err := readOptional(root, "etc/passwd")
	if err != nil {
		return runapi.Identity{}, fmt.Errorf("task %s: agent user %q: %w", t.Name, user, err)
	}
	group, err := readOptional(root, "etc/group")
	if err != nil {
		return runapi.Identity{}, fmt.Errorf("task %s: agent user %q: %w", t.Name, user, err)
	}
	id, err := resolveUser(user, passwd, group)
	if err != nil {
		var ue *UnknownUserError
		if errors.As(err, &ue) {
			ue.Task = t.Name
			return runapi.Identity{}, ue
		}
		return runapi.Identity{}, fmt.Errorf("task %s: agent user %q: %w", t.Name, user, err)
	}
	return id, nil
}

// maxAccountFileBytes bounds /etc/passwd and /etc/group.
const maxAccountFileBytes = 4 << 20

// readOptional reads name in root; a missing file is empty.
func readOptional(root *safefile.Dir, name string) ([]byte, error) {
	data, err := root.ReadFileLimit(name, maxAccountFileBytes+1)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read /%s: %w", name, err)
	}
	if len(data) > maxAccountFileBytes {
		return nil, fmt.Errorf("/%s is larger than %d bytes", name, maxAccountFileBytes)
	}
	return data, nil
}

// account is one line of /etc/passwd or /etc/group: name, numeric id,
// for passwd the primary gid and home, for group its members.
type account struct {
	name    string
	id      int
	gid     int
	home    string
	members []string
}

// parseAccounts reads passwd (name:x:uid:gid:gecos:home:shell) or group
// (name:x:gid:members) lines; malformed lines are skipped, as libc does.
func parseAccounts(data []byte, passwd bool) []account {
	var out []account
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), maxAccountFileBytes)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, ":")
		if (passwd && len(f) < 7) || (!passwd && len(f) < 3) {
			continue
		}
		id, err := strconv.Atoi(f[2])
		if err != nil || id < 0 {
			continue
		}
		a := account{name: f[0], id: id}
		if passwd {
			if a.gid, err = strconv.Atoi(f[3]); err != nil || a.gid < 0 {
				continue
			}
			a.home = f[5]
		} else if len(f) > 3 && f[3] != "" {
			a.members = strings.Split(f[3], ",")
		}
		out = append(out, a)
	}
	return out
}

// resolveUser resolves "user", "user:group", "uid" or "uid:gid" the way
// runc and Docker do: names must be in passwd/group; a numeric uid
// without an entry runs with gid 0 and home "/"; a user's gid is its
// passwd entry's unless a group is given. Pure.
func resolveUser(spec string, passwd, group []byte) (runapi.Identity, error) {
	id := runapi.Identity{User: spec, Home: "/"}
	userPart, groupPart, hasGroup := strings.Cut(spec, ":")
	if userPart == "" || (hasGroup && groupPart == "") {
		return runapi.Identity{}, fmt.Errorf("malformed user %q (want user, user:group, uid or uid:gid)", spec)
	}
	users := parseAccounts(passwd, true)
	groups := parseAccounts(group, false)
	found := false
	name := ""
	if n, err := strconv.Atoi(userPart); err == nil {
		if n < 0 {
			return runapi.Identity{}, fmt.Errorf("negative uid in %q", spec)
		}
		id.UID = n
		for _, u := range users {
			if u.id == n {
				id.GID, id.Home, name, found = u.gid, u.home, u.name, true
				break
			}
		}
	} else {
		for _, u := range users {
			if u.name == userPart {
				id.UID, id.GID, id.Home, name, found = u.id, u.gid, u.home, u.name, true
				break
			}
		}
		if !found {
			return runapi.Identity{}, &UnknownUserError{User: spec, What: "user", Name: userPart}
		}
	}
	if hasGroup {
		if n, err := strconv.Atoi(groupPart); err == nil {
			if n < 0 {
				return runapi.Identity{}, fmt.Errorf("negative gid in %q", spec)
			}
			id.GID = n
		} else {
			found := false
			for _, g := range groups {
				if g.name == groupPart {
					id.GID, found = g.id, true
					break
				}
			}
			if !found {
				return runapi.Identity{}, &UnknownUserError{User: spec, What: "group", Name: groupPart}
			}
		}
	}
	if id.Home == "" {
		id.Home = "/"
	}
	id.Groups = memberGroups(id.GID, name, groups)
	return id, nil
}

// memberGroups are gid and the groups that list user (when named) as a
// member, without repeats, in /etc/group's order.
func memberGroups(gid int, user string, groups []account) []int {
	out := []int{gid}
	for _, g := range groups {
		if user != "" && slices.Contains(g.members, user) && !slices.Contains(out, g.id) {
			out = append(out, g.id)
		}
	}
	return out
}

// ResolveIn resolves a USER (root when empty) in rootfs, read beneath
// rootfs as ResolveAgent reads (a compose service's user).
func ResolveIn(rootfs, user string) (runapi.Identity, error) {
	if strings.TrimSpace(user) == "" {
		user = "root"
	}
	root, err := safefile.OpenReadDir(rootfs)
	if err != nil {
		return runapi.Identity{}, err
	}
	defer root.Close()
	passwd, err := readOptional(root, "etc/passwd")
	if err != nil {
		return runapi.Identity{}, err
	}
	group, err := readOptional(root, "etc/group")
	if err != nil {
		return runapi.Identity{}, err
	}
	return resolveUser(user, passwd, group)
}
