package guardio

import "reflect"

// cancellationReason is the first reason code other than "None" of a
// DynamoDB transaction's cancellation found anywhere in err's chain
// (aws-sdk-go-v2's *types.TransactionCanceledException): the item that
// failed the transaction, "TransactionConflict" for a conflict with
// another transaction, "ConditionalCheckFailed" for a failed condition.
// A conflict is what the core classifies as a serialization failure,
// which the exception's own code, "TransactionCanceledException", does
// not tell: this is the core's reading of the Rust SDK's error too.
//
// The exception is read by its shape, through reflection, so that
// tinystore.dev/go needs no AWS module: a struct, or a pointer to one,
// with a slice CancellationReasons of structs whose Code is a *string (a
// nil Code is "None").
func cancellationReason(err error) (code string, ok bool) {
	visit(err, func(e error) bool {
		code, ok = cancellationShape(e)
		return ok
	})
	return code, ok
}

// cancellationShape reads e when it has the shape of
// *types.TransactionCanceledException and names a reason.
func cancellationShape(e error) (string, bool) {
	v := reflect.ValueOf(e)
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return "", false
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return "", false
	}
	reasons := v.FieldByName("CancellationReasons")
	if !reasons.IsValid() || reasons.Kind() != reflect.Slice || reasons.Type().Elem().Kind() != reflect.Struct {
		return "", false
	}
	for i := range reasons.Len() {
		c := reasons.Index(i).FieldByName("Code")
		if !c.IsValid() || c.Kind() != reflect.Pointer || c.Type().Elem().Kind() != reflect.String {
			return "", false
		}
		if !c.IsNil() && c.Elem().String() != "None" {
			return c.Elem().String(), true
		}
	}
	return "", false
}
