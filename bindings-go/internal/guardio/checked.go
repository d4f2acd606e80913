package guardio

import (
	"context"
	"errors"

	"tinystore.dev/go/internal/handles"
	"tinystore.dev/go/internal/native"
	"tinystore.dev/go/locks"
)

// Checked runs check, a guard's write of resource on backend ("s3",
// "dynamodb", "gcs", "azure", "redis"), with the fence of under: inside
// the process's Observer's GuardCheck when one is set (tinystoreotel's
// span and refused counter), and with a stale refusal told to the lease's
// store when under is the *locks.Lease (told), even once the lease was
// released (what the report needs is kept when a guard is first given the
// lease). A nil under is invalid, naming call, and nothing is checked.
func Checked(ctx context.Context, call string, under locks.Fenced, resource, backend string, check func(fence locks.Fence) error) error {
	if under == nil {
		return native.Invalid(call + ": the fence is nil: give a locks.Fence or the *locks.Lease")
	}
	fence := under.WriteFence()
	if lease, ok := under.(*locks.Lease); ok {
		if h := handles.Held(lease); h != nil {
			h.KeepRefusals() // for a refusal after its release
		}
	}
	if o, _ := handles.Observer().(locks.Observer); o != nil {
		end := o.GuardCheck(ctx, resource, fence, backend)
		err := told(under, resource, check(fence))
		end(err)
		return err
	}
	return told(under, resource, check(fence))
}

// told returns err, a guard's verdict on a write to resource made under
// under, after telling the lease's store (Lease.ReportRefused) when err
// is a stale refusal and under is a *locks.Lease.
func told(under locks.Fenced, resource string, err error) error {
	if lease, ok := under.(*locks.Lease); ok && lease != nil && errors.Is(err, locks.ErrStale) {
		lease.ReportRefused(resource)
	}
	return err
}
