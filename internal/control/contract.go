package control

import "github.com/touchstone-harness/touchstone/internal/controlcontract"

// The control contract's operations, as the harness names them (package
// controlcontract holds the document both the harness and the sandbox
// read).
type (
	Operation    = controlcontract.Operation
	Capabilities = controlcontract.Capabilities
)

// Operations are the contract's calls, by path.
func Operations() []Operation { return controlcontract.Operations() }

// OperationByID returns the contract's operation with that id.
func OperationByID(id string) (Operation, bool) { return controlcontract.OperationByID(id) }

// OperationID is the id of a call (method and a path below the control
// URL), or "METHOD path" for a call the contract does not name.
func OperationID(method, path string) string { return controlcontract.OperationID(method, path) }

// IsClockOp tells whether an operation id reads or moves the clock.
func IsClockOp(id string) bool { return controlcontract.IsClockOp(id) }

// ClockOps are the calls that move the clock.
var ClockOps = controlcontract.ClockOps
