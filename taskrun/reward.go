package taskrun

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/authbench/authbench/internal/safefile"
)

// Harbor's reward files, relative to the rootfs.
const (
	rewardTextFile = verifierLogDir + "/reward.txt"
	rewardJSONFile = verifierLogDir + "/reward.json"
)

// maxRewardBytes bounds what is read of a reward file.
const maxRewardBytes = 1 << 20

// RewardError says that a verifier's reward file is missing, empty or
// not a number; Content holds the first bytes of what it held.
type RewardError struct {
	File    string
	Reason  string
	Content string
}

func (e *RewardError) Error() string {
	if e.Content == "" {
		return fmt.Sprintf("/%s: %s", e.File, e.Reason)
	}
	return fmt.Sprintf("/%s: %s: %q", e.File, e.Reason, e.Content)
}

// rewardQuoteBytes is how much of a bad reward file an error quotes.
const rewardQuoteBytes = 64

func quote(data []byte) string {
	if len(data) > rewardQuoteBytes {
		return string(data[:rewardQuoteBytes]) + "…"
	}
	return string(data)
}

// rewardFiles are the contents of the reward files (nil: absent).
type rewardFiles struct {
	text, json []byte
}

// parseReward reads the reward the way Harbor does: reward.json when it
// exists (an object; its numeric "reward" field, else reward.txt's
// number, else its only numeric field), otherwise reward.txt (a number,
// surrounding space allowed). Missing, empty, non-finite or non-numeric
// rewards are errors. Pure.
func parseReward(f rewardFiles) (float64, error) {
	if f.json != nil {
		return parseRewardJSON(f)
	}
	if f.text != nil {
		return parseRewardText(f.text)
	}
	return 0, &RewardError{File: rewardTextFile, Reason: "the verifier wrote no reward (neither reward.txt nor reward.json)"}
}

func parseRewardText(data []byte) (float64, error) {
	s := strings.TrimSpace(string(data))
	if s == "" {
		return 0, &RewardError{File: rewardTextFile, Reason: "empty reward file", Content: quote(data)}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, &RewardError{File: rewardTextFile, Reason: "reward is not a number", Content: quote(data)}
	}
	return v, nil
}

func parseRewardJSON(f rewardFiles) (float64, error) {
	if len(strings.TrimSpace(string(f.json))) == 0 {
		return 0, &RewardError{File: rewardJSONFile, Reason: "empty reward file", Content: quote(f.json)}
	}
	var obj map[string]any
	if err := json.Unmarshal(f.json, &obj); err != nil || obj == nil {
		return 0, &RewardError{File: rewardJSONFile, Reason: "reward.json is not a JSON object", Content: quote(f.json)}
	}
	numeric := map[string]float64{}
	for k, v := range obj {
		if n, ok := v.(float64); ok { // JSON numbers; true/false are bool
			numeric[k] = n
		}
	}
	if v, ok := numeric["reward"]; ok {
		return v, nil
	}
	if f.text != nil {
		if v, err := parseRewardText(f.text); err == nil {
			return v, nil
		}
	}
	if len(numeric) == 1 {
		for _, v := range numeric {
			return v, nil
		}
	}
	keys := make([]string, 0, len(numeric))
	for k := range numeric {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return 0, &RewardError{File: rewardJSONFile, Reason: fmt.Sprintf("no numeric \"reward\" field (numeric fields: %v)", keys), Content: quote(f.json)}
}

// rewardPasses is Harbor's passing rule: a reward of exactly 1.
func rewardPasses(v float64) bool { return v == 1 }

// readRewardFiles reads the reward files of the rootfs at dir, beneath
// dir's descriptor (the verifier ran there as root and may have left
// links or FIFOs: none is followed or read, internal/safefile).
func readRewardFiles(dir string) (rewardFiles, error) {
	root, err := safefile.OpenReadDir(dir)
	if err != nil {
		return rewardFiles{}, err
	}
	defer root.Close()
	var f rewardFiles
	if f.text, err = readBounded(root, rewardTextFile); err != nil {
		return f, err
	}
	f.json, err = readBounded(root, rewardJSONFile)
	return f, err
}

// readBounded reads up to maxRewardBytes of name; a missing file is nil.
func readBounded(root *safefile.Dir, name string) ([]byte, error) {
	data, err := root.ReadFileLimit(name, maxRewardBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read /%s: %w", name, err)
	}
	if data == nil {
		data = []byte{}
	}
	return data, nil
}
