// Package redisguard is the fence's guard on Redis and Valkey, on the
// go-redis v9 client the caller already made (*redis.Client,
// *redis.ClusterClient, *redis.Ring: any redis.Scripter): a write that a
// late lock holder cannot land over a later holder's.
//
//	err := redisguard.Set(ctx, rdb, "chats/42", summary, lease.Fence)
//	err = redisguard.Set(ctx, rdb, "chats/42", summary, lease) // the same; a refusal is told to its store
//	var stale *tinystore.StaleError
//	if errors.As(err, &stale) { ... } // a later holder wrote the key
//
// Each call is one Lua script, tinystore's core's: it checks the fence
// recorded beside the data key ("{KEY}:tinystore-fence", in the key's
// hash slot; for a key with a hash tag, "KEY:tinystore-fence"), makes the
// write and records the fence. Redis runs a script alone, so nothing comes
// between the check and the write. A smaller fence than the one recorded
// is a *tinystore.StaleError and writes nothing; an equal or larger one
// is accepted. The script goes as EVALSHA and, on NOSCRIPT (a restarted
// server, SCRIPT FLUSH), as EVAL (go-redis's Script.Run).
//
// The protocol is tinystore's core's (its RedisCheck machine, the same in
// every language): this package runs the script it gives on the caller's
// client and reports what Redis answered. The package lives in its own
// module, tinystore.dev/go/redisguard, so that tinystore.dev/go itself
// needs nothing but the standard library.
//
// Errors, from every function: a *tinystore.StaleError (resource the
// key, both fences) when a larger fence is recorded; corrupt, naming the
// fence key, when the fence key holds what the guard never writes (a hand
// edit); invalid, before any call, for a nil client, a key that is empty,
// over 1,024 bytes, holds a NUL or is not UTF-8, a key with a '}' outside
// a hash tag (no fence key can share its hash slot), a value, field or
// argument that is not UTF-8, an HSet of no field, an empty script or a
// script key in another hash slot. An error of the client is returned as
// an error of the code the core classifies it as (unauthorized for
// NOPERM, NOAUTH, WRONGPASS; unavailable for a refused or lost
// connection, LOADING, READONLY, MASTERDOWN, CLUSTERDOWN, TRYAGAIN, BUSY;
// io otherwise, WRONGTYPE among them) that wraps go-redis's: errors.As
// still reaches redis.Error or the *net.OpError. A write Redis refuses
// leaves the fence unrecorded.
package redisguard

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/redis/go-redis/v9"

	"tinystore.dev/go/internal/guardio"
	"tinystore.dev/go/internal/native"
	"tinystore.dev/go/locks"
)

// Set is SET key value, guarded by fence.
func Set(ctx context.Context, client redis.Scripter, key, value string, under locks.Fenced) error {
	return checked(ctx, client, key, under, func(fence locks.Fence) (*native.Machine, native.Step, error) {
		return native.NewRedisSet(key, value, fence.Epoch, fence.Count)
	})
}

// Del is DEL key, guarded by fence. The fence stays recorded, so that a
// late holder's write is still refused; deleting again is fine.
func Del(ctx context.Context, client redis.Scripter, key string, under locks.Fenced) error {
	return checked(ctx, client, key, under, func(fence locks.Fence) (*native.Machine, native.Step, error) {
		return native.NewRedisDel(key, fence.Epoch, fence.Count)
	})
}

// HSet is HSET key field value ... of fields, guarded by fence; fields
// may not be empty.
func HSet(ctx context.Context, client redis.Scripter, key string, fields map[string]string, under locks.Fenced) error {
	pairs := make([][2]string, 0, len(fields))
	for f, v := range fields {
		pairs = append(pairs, [2]string{f, v})
	}
	slices.SortFunc(pairs, func(a, b [2]string) int { return cmp.Compare(a[0], b[0]) })
	return checked(ctx, client, key, under, func(fence locks.Fence) (*native.Machine, native.Step, error) {
		return native.NewRedisHSet(key, pairs, fence.Epoch, fence.Count)
	})
}

// Script runs the caller's own Lua body behind the check, in one script,
// and gives its reply as go-redis reads it (a string, an int64, a
// []interface{}, nil). Stale: nothing of body runs. Accepted: the fence
// is recorded, then body runs with KEYS the key then keys (all in key's
// hash slot, else invalid) and ARGV args (text: format numbers with
// strconv). A body that fails half-way leaves what it wrote (Redis does
// not roll a script back) under the recorded fence, and its error is the
// client's, wrapped as the other calls' are.
//
//	body := "redis.call('SET', KEYS[1], ARGV[1]) return redis.call('INCR', KEYS[2])"
//	saves, err := redisguard.Script(ctx, rdb, "user:{42}:profile", body, lease.Fence,
//		[]string{"user:{42}:saves"}, "pro")
func Script(ctx context.Context, client redis.Scripter, key, body string, under locks.Fenced, keys []string, args ...string) (any, error) {
	if err := present(client, key); err != nil {
		return nil, err
	}
	var reply any
	err := guardio.Checked(ctx, "redisguard", under, key, "redis", func(fence locks.Fence) error {
		m, first, err := native.NewRedisScript(key, body, keys, args, fence.Epoch, fence.Count)
		if err != nil {
			return err
		}
		reply, err = run(ctx, client, m, first, &theirs)
		return err
	})
	if err != nil {
		return nil, err
	}
	if items, ok := reply.([]any); ok && len(items) > 1 {
		return items[1], nil
	}
	return nil, nil
}

// present refuses a nil client (the guard has nothing to call) before
// the core checks the rest.
func present(client redis.Scripter, key string) error {
	if client == nil {
		return &locks.Error{Code: locks.CodeInvalid, Message: fmt.Sprintf("redisguard was given a nil Redis client for key %q", key)}
	}
	return nil
}

// checked runs the guarded write made makes under under's fence, with
// guardio.Checked: the observer's span, and a refusal told to the lease's
// store. A nil client, an empty key or a nil under is invalid.
func checked(ctx context.Context, client redis.Scripter, key string, under locks.Fenced, made func(locks.Fence) (*native.Machine, native.Step, error)) error {
	if err := present(client, key); err != nil {
		return err
	}
	return guardio.Checked(ctx, "redisguard", under, key, "redis", func(fence locks.Fence) error {
		m, first, err := made(fence)
		if err != nil {
			return err
		}
		_, err = run(ctx, client, m, first, &guarded)
		return err
	})
}
