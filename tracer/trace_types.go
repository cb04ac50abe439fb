package tracer

import "github.com/authbench/authbench/tracer/trace"

// The data of a trace — events, their JSON lines, the loader-exec
// detector, a session's summary — live in package tracer/trace, which
// touches no kernel interface, so that the packages that only read
// traces (audit, oracle, report, the run API) need not link the eBPF
// loader. The tracer produces them under these names.
type (
	// Event is trace.Event.
	Event = trace.Event
	// Op is trace.Op.
	Op = trace.Op
	// Axis is trace.Axis.
	Axis = trace.Axis
	// RealState is trace.RealState.
	RealState = trace.RealState
	// ProcID is trace.ProcID.
	ProcID = trace.ProcID
	// Summary is trace.Summary.
	Summary = trace.Summary
	// Writer is trace.Writer.
	Writer = trace.Writer
	// LoaderExec is trace.LoaderExec.
	LoaderExec = trace.LoaderExec
	// LoaderExecDetector is trace.LoaderExecDetector.
	LoaderExecDetector = trace.LoaderExecDetector
)

// Operations, axes and real-path states (see package trace).
const (
	OpOpen       = trace.OpOpen
	OpExec       = trace.OpExec
	OpMkdir      = trace.OpMkdir
	OpUnlink     = trace.OpUnlink
	OpRmdir      = trace.OpRmdir
	OpRename     = trace.OpRename
	OpLink       = trace.OpLink
	OpSymlink    = trace.OpSymlink
	OpTruncate   = trace.OpTruncate
	OpChdir      = trace.OpChdir
	OpFork       = trace.OpFork
	OpExit       = trace.OpExit
	OpURingSetup = trace.OpURingSetup
	OpMmap       = trace.OpMmap
	OpChown      = trace.OpChown
	OpChmod      = trace.OpChmod
	OpSetxattr   = trace.OpSetxattr
	OpMknod      = trace.OpMknod
	OpSetid      = trace.OpSetid

	AxisRead    = trace.AxisRead
	AxisWrite   = trace.AxisWrite
	AxisExecute = trace.AxisExecute
	AxisNone    = trace.AxisNone

	RealDeleted     = trace.RealDeleted
	RealUnreachable = trace.RealUnreachable
	RealTruncated   = trace.RealTruncated
)

// Functions of package trace, under the tracer's names.
var (
	// CapabilityOp is trace.CapabilityOp.
	CapabilityOp = trace.CapabilityOp
	// AxisOf is trace.AxisOf.
	AxisOf = trace.AxisOf
	// ErrnoName is trace.ErrnoName.
	ErrnoName = trace.ErrnoName
	// IsLoaderPath is trace.IsLoaderPath.
	IsLoaderPath = trace.IsLoaderPath
	// FindLoaderExecs is trace.FindLoaderExecs.
	FindLoaderExecs = trace.FindLoaderExecs
	// NewWriter is trace.NewWriter.
	NewWriter = trace.NewWriter
)
