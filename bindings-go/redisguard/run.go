package redisguard

import (
	"context"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"

	"tinystore.dev/go/internal/guardio"
	"tinystore.dev/go/internal/native"
)

// run drives m from its first step: the script it asks for, run on
// client through go-redis's Script.Run (EVALSHA, then EVAL on NOSCRIPT),
// its reply handed back; it gives the script's reply when accepted, and
// frees m.
func run(ctx context.Context, client redis.Scripter, m *native.Machine, first native.Step, made *scripts) (any, error) {
	defer m.Free()
	var reply any
	err := guardio.Run(m, first, func(step native.Step) (native.Observed, error) {
		if step.Kind != native.StepEval {
			return native.Observed{}, nil // a step of no Redis machine: the machine says so
		}
		args := make([]any, len(step.Params))
		for i, a := range step.Params {
			args[i] = a
		}
		got, err := made.of(step.Text).Run(ctx, client, step.Keys, args...).Result()
		if err != nil {
			return native.Observed{Kind: native.ObservedFailed, Failure: describe(err)}, err
		}
		reply = got
		return native.Observed{Kind: native.ObservedReply, Reply: texts(got)}, nil
	})
	if err != nil {
		return nil, err
	}
	return reply, nil
}

// texts is the script's reply as the machine reads it: each element of
// its array as text (a reply of another shape, one text the machine
// does not take).
func texts(reply any) []string {
	items, ok := reply.([]any)
	if !ok {
		return []string{fmt.Sprint(reply)}
	}
	out := make([]string, len(items))
	for i, item := range items {
		switch v := item.(type) {
		case string:
			out[i] = v
		case int64:
			out[i] = strconv.FormatInt(v, 10)
		default:
			out[i] = fmt.Sprint(v)
		}
	}
	return out
}
