// Package session is the host side of a model agent's toolbox: the
// toolbox (authbench agent-tools) runs as a gated agent container of the
// run (runbox.RunGated: confined by the run's plan, as the agent's uid,
// traced), talks to the model's loop over a sealed socket pair, is
// started again once when it dies, and is ended when the loop ends. Its
// calls get their trace window and event-log lines. The task run's
// openai:MODEL agent (package taskrun) and the exploration sandbox's
// openai generator (taskrun/explore) both run their loop through Run.
package session
