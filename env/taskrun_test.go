package env

import (
	"reflect"
	"testing"

	"github.com/authbench/authbench/env/imagemeta"
	"github.com/authbench/authbench/tasks"
)

func TestTaskRunConfig(t *testing.T) {
	img := &imagemeta.TaskImage{Config: imagemeta.ImageConfig{Env: []string{"PATH=/x", "A=1"}, WorkingDir: "/app"}}
	cases := []struct {
		name string
		env  tasks.Environment
		want RunConfig
	}{
		{"offline with limits", tasks.Environment{CPUs: 2, MemoryMB: 2048},
			RunConfig{Env: []string{"PATH=/x", "A=1"}, Cwd: "/app", Hostname: "my-task", CPUs: 2, MemoryMB: 2048, Controllers: HostControllers()}},
		{"internet", tasks.Environment{AllowInternet: true},
			RunConfig{Env: []string{"PATH=/x", "A=1"}, Cwd: "/app", Hostname: "my-task", AllowInternet: true, Controllers: HostControllers()}},
	}
	for _, tc := range cases {
		task := &tasks.Task{Name: "My_Task", Config: tasks.Config{Environment: tc.env}}
		if got := TaskRunConfig(task, img); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %+v\nwant %+v", tc.name, got, tc.want)
		}
	}
}
