package redisguard_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"tinystore.dev/go/locks"
	"tinystore.dev/go/redisguard"
)

// options are the redis-server's of tests/guards/with-redis.sh; the tests
// skip without it unless TINYSTORE_REQUIRE_REDIS is set, as `make
// test-go` does.
func options(t *testing.T) *redis.Options {
	t.Helper()
	url := os.Getenv("TINYSTORE_REDIS_URL")
	if url == "" {
		if os.Getenv("TINYSTORE_REQUIRE_REDIS") != "" {
			t.Fatal("TINYSTORE_REQUIRE_REDIS is set but TINYSTORE_REDIS_URL is not: run under tests/guards/with-redis.sh")
		}
		t.Skip("TINYSTORE_REDIS_URL is unset: run under tests/guards/with-redis.sh")
	}
	o, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// client is a client of the test's server, closed with the test.
func client(t *testing.T) *redis.Client {
	t.Helper()
	c := redis.NewClient(options(t))
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// key is a key of the test's own, without a hash tag.
func key(t *testing.T) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("go-test/%s-%s", t.Name(), hex.EncodeToString(b[:]))
}

func fenceKey(k string) string { return "{" + k + "}:tinystore-fence" }

func fence(t *testing.T, decimal string) locks.Fence {
	t.Helper()
	f, err := locks.ParseFence(decimal)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// get is GET k, "" for no key.
func get(t *testing.T, c *redis.Client, k string) string {
	t.Helper()
	v, err := c.Get(context.Background(), k).Result()
	if errors.Is(err, redis.Nil) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// wantStale checks that err is the stale refusal of f for k, largest
// recorded.
func wantStale(t *testing.T, err error, k string, f, largest locks.Fence) {
	t.Helper()
	var stale *locks.StaleError
	if !errors.As(err, &stale) || !errors.Is(err, locks.ErrStale) ||
		stale.Resource != k || stale.Fence != f || stale.Largest != largest {
		t.Fatalf("want stale (%q, %s, %s), got %T %v", k, f, largest, err, err)
	}
}

func TestSetIsAcceptedEqualToo_AndRecordsTheFence(t *testing.T) {
	ctx, c, k := context.Background(), client(t), key(t)
	for _, value := range []string{"first", "again under the same lease"} {
		if err := redisguard.Set(ctx, c, k, value, fence(t, "7")); err != nil {
			t.Fatal(err)
		}
		if got := get(t, c, k); got != value {
			t.Fatalf("GET %q = %q, want %q", k, got, value)
		}
	}
	if got := get(t, c, fenceKey(k)); got != fmt.Sprintf("%040d", 7) {
		t.Fatalf("the fence key holds %q", got)
	}
}

func TestAStaleSetCarriesTheThreeAndWritesNothing(t *testing.T) {
	ctx, c, k := context.Background(), client(t), key(t)
	// Above 2^64: the fence's high half counts too.
	larger, smaller := fence(t, "18446744073709551617"), fence(t, "18446744073709551616")
	if err := redisguard.Set(ctx, c, k, "by the later holder", larger); err != nil {
		t.Fatal(err)
	}
	wantStale(t, redisguard.Set(ctx, c, k, "by the late one", smaller), k, smaller, larger)
	if got := get(t, c, k); got != "by the later holder" {
		t.Fatalf("a refused write changed the key: %q", got)
	}
	if got := get(t, c, fenceKey(k)); got != fmt.Sprintf("%040s", larger) {
		t.Fatalf("the fence key holds %q", got)
	}
	if err := redisguard.Set(ctx, c, k, "later still", fence(t, "18446744073709551618")); err != nil {
		t.Fatal(err)
	}
}

func TestDelKeepsTheFence(t *testing.T) {
	ctx, c, k := context.Background(), client(t), key(t)
	if err := redisguard.Set(ctx, c, k, "v", fence(t, "7")); err != nil {
		t.Fatal(err)
	}
	for range 2 { // deleting again is fine
		if err := redisguard.Del(ctx, c, k, fence(t, "8")); err != nil {
			t.Fatal(err)
		}
	}
	if n := c.Exists(ctx, k).Val(); n != 0 {
		t.Fatalf("the key is still there")
	}
	wantStale(t, redisguard.Set(ctx, c, k, "late", fence(t, "7")), k, fence(t, "7"), fence(t, "8"))
	if n := c.Exists(ctx, k).Val(); n != 0 {
		t.Fatalf("a late write brought the key back")
	}
}

func TestHSetWritesEveryFieldAndAStaleOneNone(t *testing.T) {
	ctx, c, k := context.Background(), client(t), "user:{"+key(t)+"}:profile"
	if err := redisguard.HSet(ctx, c, k, map[string]string{"plan": "pro", "seats": "3"}, fence(t, "7")); err != nil {
		t.Fatal(err)
	}
	wantStale(t, redisguard.HSet(ctx, c, k, map[string]string{"plan": "free"}, fence(t, "6")), k, fence(t, "6"), fence(t, "7"))
	got := c.HGetAll(ctx, k).Val()
	if len(got) != 2 || got["plan"] != "pro" || got["seats"] != "3" {
		t.Fatalf("HGETALL %q = %v", k, got)
	}
	// A key with a hash tag keeps its fence beside it, with the same tag.
	if got := get(t, c, k+":tinystore-fence"); got != fmt.Sprintf("%040d", 7) {
		t.Fatalf("the fence key holds %q", got)
	}
}

const visits = "redis.call('SET', KEYS[1], ARGV[1]) return redis.call('INCR', KEYS[2])"

func TestScriptGivesItsReplyAndDoesNotRunWhenStale(t *testing.T) {
	ctx, c, k := context.Background(), client(t), key(t)
	counter := "{" + k + "}:visits"
	for i, f := range []string{"7", "9"} {
		reply, err := redisguard.Script(ctx, c, k, visits, fence(t, f), []string{counter}, "by "+f)
		if err != nil || reply != int64(i+1) {
			t.Fatalf("fence %s: reply %#v, %v", f, reply, err)
		}
	}
	_, err := redisguard.Script(ctx, c, k, visits, fence(t, "8"), []string{counter}, "by 8")
	wantStale(t, err, k, fence(t, "8"), fence(t, "9"))
	if get(t, c, k) != "by 9" || get(t, c, counter) != "2" {
		t.Fatalf("a refused script ran: %q, %q", get(t, c, k), get(t, c, counter))
	}
	// Every reply type comes back as go-redis reads it; nil too.
	reply, err := redisguard.Script(ctx, c, k, "return {KEYS[1], ARGV[1], 3}", fence(t, "9"), nil, "a")
	if items, ok := reply.([]any); err != nil || !ok || len(items) != 3 || items[0] != k || items[1] != "a" || items[2] != int64(3) {
		t.Fatalf("reply %#v, %v", reply, err)
	}
	if reply, err := redisguard.Script(ctx, c, k, "redis.call('GET', KEYS[1])", fence(t, "9"), nil); reply != nil || err != nil {
		t.Fatalf("a body that returns nothing: %#v, %v", reply, err)
	}
}

// After SCRIPT FLUSH, EVALSHA answers NOSCRIPT and go-redis sends EVAL.
func TestTheScriptsAreSentAgainAfterScriptFlush(t *testing.T) {
	ctx, c, k := context.Background(), client(t), key(t)
	counter := "{" + k + "}:visits"
	for i, f := range []string{"7", "8"} {
		if err := c.ScriptFlush(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		if err := redisguard.Set(ctx, c, k, "v"+f, fence(t, f)); err != nil {
			t.Fatalf("fence %s: %v", f, err)
		}
		if err := c.ScriptFlush(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		reply, err := redisguard.Script(ctx, c, k, visits, fence(t, f), []string{counter}, "s"+f)
		if err != nil || reply != int64(i+1) {
			t.Fatalf("fence %s: %#v, %v", f, reply, err)
		}
	}
}

// A Ring (and a ClusterClient) is a redis.Scripter as a Client is.
func TestARingIsAClientToo(t *testing.T) {
	ctx, o, k := context.Background(), options(t), key(t)
	ring := redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"one": o.Addr}})
	defer func() { _ = ring.Close() }()
	if err := redisguard.Set(ctx, ring, k, "v", fence(t, "7")); err != nil {
		t.Fatal(err)
	}
	wantStale(t, redisguard.Del(ctx, ring, k, fence(t, "6")), k, fence(t, "6"), fence(t, "7"))
}

// deadClient is a client of a loopback port nothing listens on, which
// fails at once instead of retrying.
func deadClient(t *testing.T) *redis.Client {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	address := l.Addr().String()
	_ = l.Close()
	c := redis.NewClient(&redis.Options{Addr: address, MaxRetries: -1, DialerRetries: 1, DialTimeout: time.Second})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// Bad input is invalid before any call: on a client of a dead port, a
// call would have been unavailable.
func TestBadInputIsInvalidBeforeAnyCall(t *testing.T) {
	ctx, dead := context.Background(), deadClient(t)
	f := fence(t, "7")
	for _, c := range []struct {
		about string
		call  func() error
	}{
		{"empty key", func() error { return redisguard.Set(ctx, dead, "", "v", f) }},
		{"a '}' but no hash tag", func() error { return redisguard.Del(ctx, dead, "a}b", f) }},
		{"a key not UTF-8", func() error { return redisguard.Set(ctx, dead, "chats/\xed\xa0\x80", "v", f) }},
		{"a value not UTF-8", func() error { return redisguard.Set(ctx, dead, "chats/1", "\xff", f) }},
		{"a NUL", func() error { return redisguard.Set(ctx, dead, "a\x00b", "v", f) }},
		{"1025 bytes", func() error { return redisguard.Set(ctx, dead, strings.Repeat("x", 1025), "v", f) }},
		{"an empty HSet", func() error { return redisguard.HSet(ctx, dead, "chats/1", nil, f) }},
		{"a script key in another slot", func() error {
			_, err := redisguard.Script(ctx, dead, "user:{42}:a", "return 1", f, []string{"user:{43}:b"})
			return err
		}},
		{"an empty script", func() error {
			_, err := redisguard.Script(ctx, dead, "chats/1", " \n", f, nil)
			return err
		}},
		{"a nil client", func() error { return redisguard.Set(ctx, nil, "chats/1", "v", f) }},
	} {
		err := c.call()
		var e *locks.Error
		if !errors.As(err, &e) || e.Code != locks.CodeInvalid || !errors.Is(err, locks.ErrInvalid) {
			t.Errorf("%s: want invalid, got %T %v", c.about, err, err)
		}
	}
}

func TestAServerThatIsNotThereIsUnavailableWrappingGoRedissError(t *testing.T) {
	err := redisguard.Set(context.Background(), deadClient(t), "chats/1", "v", fence(t, "7"))
	var op *net.OpError
	if !errors.Is(err, locks.ErrUnavailable) || !errors.As(err, &op) || !strings.Contains(err.Error(), "chats/1") {
		t.Fatalf("want unavailable wrapping the *net.OpError, got %T %v", err, err)
	}
}

// WRONGTYPE ends the script with Redis's error before the fence is
// recorded: the client's error, wrapped as io.
func TestAWriteRedisRefusesIsTheClientsErrorAndRecordsNothing(t *testing.T) {
	ctx, c, k := context.Background(), client(t), key(t)
	if err := c.Set(ctx, k, "a string", 0).Err(); err != nil {
		t.Fatal(err)
	}
	err := redisguard.HSet(ctx, c, k, map[string]string{"f": "v"}, fence(t, "7"))
	var reply redis.Error
	if !errors.Is(err, locks.ErrIO) || !errors.As(err, &reply) || !strings.HasPrefix(reply.Error(), "WRONGTYPE") ||
		!strings.Contains(err.Error(), "WRONGTYPE") {
		t.Fatalf("want io wrapping go-redis's WRONGTYPE, got %T %v", err, err)
	}
	if n := c.Exists(ctx, fenceKey(k)).Val(); n != 0 {
		t.Fatalf("a refused write recorded its fence")
	}
}

func TestAFenceKeyEditedByHandIsCorruptNamingIt(t *testing.T) {
	ctx, c, k := context.Background(), client(t), key(t)
	if err := c.Set(ctx, fenceKey(k), "junk", 0).Err(); err != nil {
		t.Fatal(err)
	}
	err := redisguard.Set(ctx, c, k, "v", fence(t, "7"))
	var e *locks.Error
	if !errors.As(err, &e) || e.Code != locks.CodeCorrupt || !strings.Contains(e.Message, fenceKey(k)) {
		t.Fatalf("want corrupt naming %q, got %T %v", fenceKey(k), err, err)
	}
	if get(t, c, k) != "" {
		t.Fatal("a refused write wrote the key")
	}
}
