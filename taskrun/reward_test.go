package taskrun

import (
	"errors"
	"strings"
	"testing"
)

func TestParseReward(t *testing.T) {
	long := strings.Repeat("garbage ", 20)
	tests := []struct {
		name      string
		files     rewardFiles
		want      float64
		pass      bool
		errQuotes string // the error quotes this content; "" with wantErr: any error
		wantErr   bool
	}{
		{name: "one", files: rewardFiles{text: []byte("1\n")}, want: 1, pass: true},
		{name: "one point zero", files: rewardFiles{text: []byte(" 1.0 ")}, want: 1, pass: true},
		{name: "zero", files: rewardFiles{text: []byte("0")}, want: 0},
		{name: "partial", files: rewardFiles{text: []byte("0.5")}, want: 0.5},
		{name: "json reward", files: rewardFiles{json: []byte(`{"reward": 1, "detail": "x"}`)}, want: 1, pass: true},
		{name: "json wins over text", files: rewardFiles{json: []byte(`{"reward": 0}`), text: []byte("1")}, want: 0},
		{name: "json without reward falls back to text", files: rewardFiles{json: []byte(`{"passed": 3, "total": 4}`), text: []byte("1")}, want: 1, pass: true},
		{name: "json single numeric field", files: rewardFiles{json: []byte(`{"score": 1, "note": "ok", "ok": true}`)}, want: 1, pass: true},
		{name: "nothing", files: rewardFiles{}, wantErr: true},
		{name: "empty text", files: rewardFiles{text: []byte("\n")}, wantErr: true},
		{name: "garbage text", files: rewardFiles{text: []byte("PASSED\n")}, errQuotes: "PASSED\n", wantErr: true},
		{name: "long garbage is cut", files: rewardFiles{text: []byte(long)}, errQuotes: long[:rewardQuoteBytes] + "…", wantErr: true},
		{name: "nan", files: rewardFiles{text: []byte("nan")}, errQuotes: "nan", wantErr: true},
		{name: "json garbage", files: rewardFiles{json: []byte("reward: 1")}, errQuotes: "reward: 1", wantErr: true},
		{name: "json array", files: rewardFiles{json: []byte("[1]")}, wantErr: true},
		{name: "json bool reward", files: rewardFiles{json: []byte(`{"reward": true}`)}, wantErr: true},
		{name: "json two numbers no reward", files: rewardFiles{json: []byte(`{"a": 1, "b": 0}`)}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseReward(tt.files)
			if tt.wantErr {
				var re *RewardError
				if !errors.As(err, &re) {
					t.Fatalf("want a RewardError, got %v (reward %v)", err, got)
				}
				if tt.errQuotes != "" && re.Content != tt.errQuotes {
					t.Fatalf("error quotes %q, want %q", re.Content, tt.errQuotes)
				}
				return
			}
			if err != nil || got != tt.want || rewardPasses(got) != tt.pass {
				t.Fatalf("got %v, %v (passes %v); want %v (passes %v)", got, err, rewardPasses(got), tt.want, tt.pass)
			}
		})
	}
}
