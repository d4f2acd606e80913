package native

/*
#include "tinystore.h"
*/
import "C"

import "runtime"

// The Redis guard's machine (the core's RedisCheck): one guarded write of
// the fence (epoch, count) to the data key. Its first step is StepEval
// (the script Text, its KEYS Keys and ARGV Params), or StepDone for bad
// input; the caller runs the script and observes ObservedReply (each
// element of the reply's array as text) or ObservedFailed. A key, value,
// field, key or argument that is not UTF-8 is an invalid error.

// NewRedisSet is a guarded SET key value.
func NewRedisSet(key, value string, epoch, count uint64) (*Machine, Step, error) {
	kp, kn := text(key)
	vp, vn := text(value)
	var p *C.TsGuardMachine
	var step C.TsGuardStep
	var e C.TsError
	if !C.ts_guard_redis_set_new(kp, kn, vp, vn, cFence(epoch, count), &p, &step, &e) {
		return nil, Step{}, failure(&e)
	}
	return &Machine{p: p}, stepOf(&step), nil
}

// NewRedisDel is a guarded DEL key; the fence stays recorded.
func NewRedisDel(key string, epoch, count uint64) (*Machine, Step, error) {
	kp, kn := text(key)
	var p *C.TsGuardMachine
	var step C.TsGuardStep
	var e C.TsError
	if !C.ts_guard_redis_del_new(kp, kn, cFence(epoch, count), &p, &step, &e) {
		return nil, Step{}, failure(&e)
	}
	return &Machine{p: p}, stepOf(&step), nil
}

// NewRedisHSet is a guarded HSET key field value ... of fields, in order
// (each a field and its value).
func NewRedisHSet(key string, fields [][2]string, epoch, count uint64) (*Machine, Step, error) {
	var pin runtime.Pinner
	defer pin.Unpin()
	pairs := make([]C.TsPair, len(fields))
	for i, f := range fields {
		pairs[i] = C.TsPair{key: pinned(&pin, f[0]), value: pinned(&pin, f[1])}
	}
	if len(pairs) > 0 {
		pin.Pin(&pairs[0])
	}
	kp, kn := text(key)
	var p *C.TsGuardMachine
	var step C.TsGuardStep
	var e C.TsError
	if !C.ts_guard_redis_hset_new(kp, kn, first(pairs), C.size_t(len(pairs)), cFence(epoch, count), &p, &step, &e) {
		return nil, Step{}, failure(&e)
	}
	return &Machine{p: p}, stepOf(&step), nil
}

// NewRedisScript is a guarded run of the caller's Lua body behind the
// check, its KEYS the data key then keys, its ARGV args; accepted, the
// script answers {"accepted", the body's reply}.
func NewRedisScript(key, body string, keys, args []string, epoch, count uint64) (*Machine, Step, error) {
	var pin runtime.Pinner
	defer pin.Unpin()
	ks, as := textsOf(&pin, keys), textsOf(&pin, args)
	kp, kn := text(key)
	bp, bn := text(body)
	var p *C.TsGuardMachine
	var step C.TsGuardStep
	var e C.TsError
	if !C.ts_guard_redis_script_new(kp, kn, bp, bn, first(ks), C.size_t(len(ks)), first(as), C.size_t(len(as)),
		cFence(epoch, count), &p, &step, &e) {
		return nil, Step{}, failure(&e)
	}
	return &Machine{p: p}, stepOf(&step), nil
}
