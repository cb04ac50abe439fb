package daemon

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/authbench/authbench/runapi"
)

// TestOneShotKeepsRecordsInMemory: a OneShot manager keeps a run's
// record in memory, running or ended (nothing on disk, Get and List
// still answer).
func TestOneShotKeepsRecordsInMemory(t *testing.T) {
	requireRoot(t)
	m, err := NewManager(Config{StateDir: t.TempDir(), Self: testBinary, OneShot: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Shutdown(context.Background()) })
	api := NewLocal(m)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run, err := api.Submit(ctx, &runapi.RunRequest{Exec: &runapi.ExecRequest{Command: []string{"sleep", "30"}, UID: uid(65534), GID: uid(65534)}})
	if err != nil {
		t.Fatal(err)
	}
	running := waitState(t, api, run.ID, runapi.StateRunning)
	if running.Pid == 0 || running.StartedAt == nil || running.LandlockABI == 0 {
		t.Errorf("running record incomplete: %+v", running)
	}
	record := m.store.RunFile(run.ID, recordFile)
	if _, err := os.Stat(record); !os.IsNotExist(err) {
		t.Errorf("a running one-shot run has a record on disk (%v)", err)
	}
	if runs, err := api.List(ctx); err != nil || len(runs) != 1 || runs[0].State != runapi.StateRunning {
		t.Errorf("List while running = %v, %v", runs, err)
	}
	if _, err := api.Cancel(ctx, run.ID); err != nil {
		t.Fatal(err)
	}
	final, err := api.Wait(ctx, run.ID)
	if err != nil || final.State != runapi.StateCancelled || final.EndedAt == nil {
		t.Fatalf("final = %+v, %v", final, err)
	}
	if _, err := os.Stat(record); !os.IsNotExist(err) {
		t.Errorf("an ended one-shot run has a record on disk (%v)", err)
	}
	if got, err := api.Get(ctx, run.ID); err != nil || got.State != runapi.StateCancelled {
		t.Errorf("Get after the end = %+v, %v", got, err)
	}
	if runs, err := api.List(ctx); err != nil || len(runs) != 1 || runs[0].State != runapi.StateCancelled {
		t.Errorf("List after the end = %v, %v", runs, err)
	}
}
