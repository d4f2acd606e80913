package native

/*
#include "tinystore.h"
*/
import "C"

// The DynamoDB guard's machine (the core's DynamoCheck): the register
// item's conditional put in the caller's own TransactWriteItems. Its first
// step is StepTransact (the register table Text, the resource Keys[0],
// the fence Params[0] and the condition's :digits Params[1]), or StepDone
// for bad input; the caller runs the transaction with its items and the
// register's put last, and observes ObservedWritten, ObservedCancelled
// (Reasons, Recorded and the exception's Failure) or ObservedFailed. After
// a cancellation that did not return the register item, the step is
// StepReadItem, observed as ObservedRow (the fence) or ObservedNoRow.

// NewDynamo is the guard of the fence (epoch, count) for resource in the
// register table, with items of the caller's in the same transaction. A
// table or resource that is not UTF-8 is an invalid error; the first step
// ends at once, invalid, for a bad resource, an empty table or more items
// than a transaction takes beside the register's.
func NewDynamo(table, resource string, epoch, count uint64, items uint) (*Machine, Step, error) {
	tp, tn := text(table)
	rp, rn := text(resource)
	var p *C.TsGuardMachine
	var step C.TsGuardStep
	var e C.TsError
	if !C.ts_guard_dynamo_new(tp, tn, rp, rn, cFence(epoch, count), C.size_t(items), &p, &step, &e) {
		return nil, Step{}, failure(&e)
	}
	return &Machine{p: p}, stepOf(&step), nil
}

// DynamoNames are the DynamoDB guard's fixed texts from the core: the
// register table unless the caller names another, the register put's
// ConditionExpression, the reason code of a failed condition, and the
// most items one transaction takes, the register's among them.
type DynamoNames struct {
	RegisterTable, Condition, ConditionFailed string
	MaxItems                                  int
}

// DynamoNamesOf reads the core's names.
func DynamoNamesOf() DynamoNames {
	var n C.TsDynamoNames
	C.ts_guard_dynamo_names(&n)
	return DynamoNames{
		RegisterTable:   C.GoString(n.register_table),
		Condition:       C.GoString(n.condition),
		ConditionFailed: C.GoString(n.condition_failed),
		MaxItems:        int(n.max_items),
	}
}

// DynamoAttempted tells the DynamoDB machine the answer of one attempt
// of its transaction: its HTTP status, 0 when no answer came (a lost
// connection, a timeout); before the last attempt's outcome is observed.
// Core decides whether that attempt may have been written (no answer, a
// 5xx, a 408): if so, a larger fence observed then ends in unavailable
// (the outcome unknown), not stale. An invalid error for a machine of
// another guard.
func (m *Machine) DynamoAttempted(status int) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.p == nil {
		return Invalid("a guard's machine was used after Free")
	}
	var e C.TsError
	if !C.ts_guard_dynamo_attempted(m.p, answer(status), &e) {
		return failure(&e)
	}
	return nil
}
