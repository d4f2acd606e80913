package guardio

import "reflect"

// cloudAnswer is the HTTP status and the service's error code of an
// answer from Google Cloud Storage or Azure Blob Storage found anywhere
// in err's chain, read by their shapes, through reflection, so that
// tinystore.dev/go needs neither SDK:
//
//   - google.golang.org/api's *googleapi.Error (cloud.google.com/go/storage's
//     errors from the JSON API): an int Code (the HTTP status), a string
//     Body and a slice Errors of structs whose string Reason is the
//     service's code ("conditionNotMet", "forbidden"); the first Reason
//     given is the code;
//   - azcore's *azcore.ResponseError (azblob's errors): an int StatusCode
//     and a string ErrorCode ("BlobNotFound", "ConditionNotMet",
//     "AuthorizationFailure").
//
// An SDK version that renamed those fields would be read as one that
// reports only its text (class other: io).
func cloudAnswer(err error) (status int, code string, ok bool) {
	visit(err, func(e error) bool {
		status, code, ok = cloudShape(e)
		return ok
	})
	return status, code, ok
}

// cloudShape reads e when it has the shape of *googleapi.Error or
// *azcore.ResponseError.
func cloudShape(e error) (int, string, bool) {
	v := reflect.ValueOf(e)
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return 0, "", false
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return 0, "", false
	}
	// azcore.ResponseError.
	status, code := v.FieldByName("StatusCode"), v.FieldByName("ErrorCode")
	if status.IsValid() && status.CanInt() && code.IsValid() && code.Kind() == reflect.String {
		return int(status.Int()), code.String(), true
	}
	// googleapi.Error.
	status, body, items := v.FieldByName("Code"), v.FieldByName("Body"), v.FieldByName("Errors")
	if !status.IsValid() || !status.CanInt() || !body.IsValid() || body.Kind() != reflect.String ||
		!items.IsValid() || items.Kind() != reflect.Slice || items.Type().Elem().Kind() != reflect.Struct {
		return 0, "", false
	}
	reason := ""
	for i := range items.Len() {
		r := items.Index(i).FieldByName("Reason")
		if r.IsValid() && r.Kind() == reflect.String && r.String() != "" {
			reason = r.String()
			break
		}
	}
	return int(status.Int()), reason, true
}
