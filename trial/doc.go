// Package trial is one benchmark trial as the results see it: the bench's
// row (Record: one task × policy source × agent × trial) with the
// failure classification its task run computed (package verdict), and
// Harbor's trial result.json (HarborResult). A row is derived from the
// task run's record (runapi.TaskResult) by one function, FromTaskResult;
// the result.json from the row by HarborResultOf. What only rows of one
// bench show together is decided here: MarkOracleFailures.
//
// Like the run API it is a leaf: it imports only pure packages (runapi,
// verdict, policy, audit, agent), so that the report, which aggregates rows, links
// nothing that touches the kernel, the daemon or task environments.
// Running trials is package bench's job.
package trial
