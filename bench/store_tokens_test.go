package bench

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/trial"
	"github.com/authbench/authbench/verdict"
)

// TestStoreKeepsTokens: a database made before the token columns gains
// them when opened (its old row NULL there); a run's tokens per stage are
// stored in tokens_in/tokens_out and the record, read back whole, and
// carried in result.json as Harbor's agent_result.
func TestStoreKeepsTokens(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, DBFile))
	if err != nil {
		t.Fatal(err)
	}
	old := strings.Replace(strings.Replace(schema, "\ttokens_in INTEGER,\n", "", 1), "\ttokens_out INTEGER,\n", "", 1)
	old = strings.Replace(strings.Replace(old, "\texposure_access TEXT,\n", "", 1), "\tnetwork_f1 REAL,\n", "", 1) // added later still
	if strings.Contains(old, "tokens_") {
		t.Fatalf("old schema keeps the token columns:\n%s", old)
	}
	if _, err := db.Exec(old); err != nil {
		t.Fatal(err)
	}
	oldCols := strings.Replace(runColumns, ", tokens_in, tokens_out, exposure_access, network_f1", "", 1)
	if _, err := db.Exec(`INSERT INTO runs (` + oldCols + `) VALUES ('old','spec','oracle',1,'standard','',1,NULL,0,1,1,1,1,'','','','',0,0,0,0,0,'d','2026-01-01T00:00:00Z','{"task":"old","source":"spec","agent":"oracle","trial":1,"classes":[],"dir":"d"}',NULL,0,NULL,0,0,NULL,NULL,NULL)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if err := os.MkdirAll(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	oldRec := `{"task":"old","source":"spec","agent":"oracle","trial":1,"classes":[],"dir":"d"}`
	if err := os.WriteFile(filepath.Join(dir, "d", JobResultFile), []byte(`{"authbench": `+oldRec+`}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s := testStore(t, dir)
	defer s.Close()
	r := &trial.Record{Identity: trial.Identity{Task: "t", Source: "gen:st:m", Agent: "openai:a", Trial: 1}, Classes: []verdict.Class{}, Dir: "t"}
	r.AddGenerationTokens(&runapi.GenerationRecord{Stages: []runapi.GenerationStage{
		{Stage: "sufficiency", Tokens: &runapi.TokenCounts{Prompt: 300, Completion: 30}},
		{Stage: "tightness", Tokens: &runapi.TokenCounts{Prompt: 50, Completion: 5}},
	}}, "m")
	r.AddTokens(trial.TokenStageAgent, "a", &runapi.TokenCounts{Prompt: 1000, Completion: 100})
	r.AddTokens(trial.TokenStageAgent, "a", nil)
	if err := s.Put(r); err != nil {
		t.Fatal(err)
	}
	var in, out, oldIn sql.NullInt64
	if err := s.db.QueryRow(`SELECT tokens_in, tokens_out FROM runs WHERE task = 't'`).Scan(&in, &out); err != nil {
		t.Fatal(err)
	}
	if in.Int64 != 1350 || out.Int64 != 135 {
		t.Errorf("tokens_in %+v tokens_out %+v, want 1350 and 135", in, out)
	}
	if err := s.db.QueryRow(`SELECT tokens_in FROM runs WHERE task = 'old'`).Scan(&oldIn); err != nil || oldIn.Valid {
		t.Errorf("old row's tokens_in %+v %v, want NULL", oldIn, err)
	}
	recs, err := s.Records()
	if err != nil {
		t.Fatal(err)
	}
	var back *trial.Record
	for i := range recs {
		if recs[i].Task == "t" {
			back = &recs[i]
		}
	}
	if back == nil || back.Tokens == nil || len(back.Tokens.Stages) != 3 || back.Tokens.Stages[1].Stage != "generator:tightness" || back.Tokens.Stages[2].Model != "a" {
		t.Fatalf("read back %+v", back)
	}
	data, err := os.ReadFile(filepath.Join(dir, "t", JobResultFile))
	if err != nil {
		t.Fatal(err)
	}
	var res trial.HarborResult
	if err := json.Unmarshal(data, &res); err != nil || res.AgentResult == nil || res.AgentResult.InputTokens != 1350 || res.AgentResult.OutputTokens != 135 {
		t.Errorf("result.json agent_result %+v %v", res.AgentResult, err)
	}
}
