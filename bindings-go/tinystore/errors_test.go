package tinystore_test

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"tinystore.dev/go/internal/native"
	"tinystore.dev/go/locks"
	"tinystore.dev/go/tinystore"
)

var sentinels = map[locks.Code]error{
	locks.CodeTimeout:      tinystore.ErrTimeout,
	locks.CodeLeaseLost:    tinystore.ErrLeaseLost,
	locks.CodeInUse:        tinystore.ErrInUse,
	locks.CodeClosed:       tinystore.ErrClosed,
	locks.CodeInvalid:      tinystore.ErrInvalid,
	locks.CodeLimit:        tinystore.ErrLimit,
	locks.CodeUnauthorized: tinystore.ErrUnauthorized,
	locks.CodeCorrupt:      tinystore.ErrCorrupt,
	locks.CodeIO:           tinystore.ErrIO,
	locks.CodeUnavailable:  tinystore.ErrUnavailable,
	locks.CodeInternal:     tinystore.ErrInternal,
	locks.CodeStale:        tinystore.ErrStale,
}

// expect checks that err is an *Error of code, matched by errors.Is by its
// sentinel only, with a message that says what it is about.
func expect(t *testing.T, err error, code locks.Code, about string) {
	t.Helper()
	var e *locks.Error
	if !errors.As(err, &e) {
		t.Fatalf("want a %s error about %q; got %v", code, about, err)
	}
	for c, sentinel := range sentinels {
		if errors.Is(err, sentinel) != (c == code) {
			t.Errorf("errors.Is(%v, %v) = %v", err, sentinel, c != code)
		}
	}
	if e.Code != code || !strings.Contains(e.Message, about) || !strings.Contains(err.Error(), string(code)) {
		t.Errorf("got %q (code %s); want code %s and a message naming %q", err, e.Code, code, about)
	}
}

// Every code of the core's table has its sentinel, and its CodeX and ErrX
// declared under the core's Go name X in package locks (ErrX in package
// tinystore too): a code added to the core fails here until Go names it.
func TestEveryCoreCodeHasItsConstantAndSentinel(t *testing.T) {
	inLocks := declared(t, "../locks/errors.go")
	inTinystore := declared(t, "errors.go")
	all := native.CoreCodes()
	for _, c := range all {
		if _, ok := sentinels[locks.Code(c.Code)]; !ok {
			t.Errorf("code %s has no sentinel", c.Code)
		}
		for _, name := range []string{"Code" + c.GoName, "Err" + c.GoName} {
			if !inLocks[name] {
				t.Errorf("package locks declares no %s for code %s", name, c.Code)
			}
		}
		if !inTinystore["Err"+c.GoName] {
			t.Errorf("package tinystore declares no Err%s for code %s", c.GoName, c.Code)
		}
	}
	if len(sentinels) != len(all) {
		t.Errorf("%d sentinels for the core's %d codes", len(sentinels), len(all))
	}
	for code := range sentinels {
		expect(t, &locks.Error{Code: code, Message: "about x"}, code, "about x")
	}
}

// declared gives the names the top-level var and const declarations of
// the Go file at path declare.
func declared(t *testing.T, path string) map[string]bool {
	t.Helper()
	file, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, decl := range file.Decls {
		if gen, ok := decl.(*ast.GenDecl); ok {
			for _, spec := range gen.Specs {
				if value, ok := spec.(*ast.ValueSpec); ok {
					for _, name := range value.Names {
						names[name.Name] = true
					}
				}
			}
		}
	}
	return names
}

func TestErrorsFromTheCoreMatchTheirSentinels(t *testing.T) {
	store := openStore(t)
	summaries := store.Locks("summaries")
	lease, err := summaries.Acquire(bg, 1)
	if err != nil {
		t.Fatal(err)
	}
	_, err = summaries.Acquire(bg, 1, locks.Wait(10*time.Millisecond))
	expect(t, err, locks.CodeTimeout, "summaries")
	_ = lease.Release(bg)

	_, err = store.Locks("bad name").Acquire(bg, 1)
	expect(t, err, locks.CodeInvalid, "bad name")
	_, err = summaries.Acquire(bg, 1, locks.TTL(time.Millisecond))
	expect(t, err, locks.CodeInvalid, "ttl")
	_, err = locks.ParseFence("0x10")
	expect(t, err, locks.CodeInvalid, "0x10")

	short, err := store.Locks("short", locks.TTL(20*time.Millisecond), locks.NoRenew()).Acquire(bg, 1)
	if err != nil {
		t.Fatal(err)
	}
	within(t, short.Done(), "the short lease running out")
	expect(t, short.Renew(bg), locks.CodeLeaseLost, "short")
	expect(t, short.Release(bg), locks.CodeLeaseLost, "short")

	closed, err := tinystore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	_ = closed.Close()
	_, err = closed.Locks("summaries").Acquire(bg, 1)
	expect(t, err, locks.CodeClosed, "closed")
}

// Calls on a released lease and on a closed store fail with the core's
// codes and words, naming the lease and the store.
func TestReleasedAndClosedHandlesFailInTheCoresWords(t *testing.T) {
	dir := t.TempDir()
	store, err := tinystore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	lease, err := store.Locks("jobs").Acquire(bg, 7)
	if err != nil {
		t.Fatal(err)
	}
	if err := lease.Release(bg); err != nil {
		t.Fatal(err)
	}
	expect(t, lease.Renew(bg), locks.CodeLeaseLost, "the lease on jobs/7 was released")
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = store.Locks("jobs").Acquire(bg, 7)
	expect(t, err, locks.CodeClosed, "store "+dir+" was closed")
}

func TestOpenErrorsMatchTheirSentinels(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := tinystore.Open(filepath.Join(file, "store"))
	expect(t, err, locks.CodeIO, "a-file")

	corrupt := t.TempDir()
	if err := os.WriteFile(filepath.Join(corrupt, "kv.db"), []byte(strings.Repeat("not sqlite ", 100)), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = tinystore.Open(corrupt)
	expect(t, err, locks.CodeCorrupt, "kv.db")

	_, err = tinystore.Connect("unix:"+filepath.Join(t.TempDir(), "nobody.sock"), tinystore.Timeout(time.Second))
	expect(t, err, locks.CodeUnavailable, "nobody.sock")
}

// A store owned by another process that does not serve it is in use.
func TestOpenOfAStoreOwnedElsewhereIsInUse(t *testing.T) {
	dir := t.TempDir()
	owner := helper(t, "owner", "TS_DIR="+dir)
	owner.expect(t, "owning")
	_, err := tinystore.Open(dir)
	expect(t, err, locks.CodeInUse, fmt.Sprint(owner.cmd.Process.Pid))
}

// helperOwner owns the store TS_DIR until its stdin closes.
func helperOwner() int {
	store, err := tinystore.Open(os.Getenv("TS_DIR"))
	if err != nil {
		fmt.Println("open:", err)
		return 1
	}
	defer store.Close()
	fmt.Println("owning")
	_, _ = os.Stdin.Read(make([]byte, 1))
	return 0
}

// A TCP server asks for its token: without it a client is unauthorized;
// with it, it holds locks as on the Unix socket.
func TestTCPNeedsTheToken(t *testing.T) {
	token := "a-test-token-of-32-bytes-or-so!!"
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte(token), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := serve(t, "--tcp", "127.0.0.1:0", "--token-file", file)
	if srv.tcp == "" {
		t.Fatal("the server did not say its TCP address")
	}
	if store, err := tinystore.Connect(srv.tcp); err == nil {
		_, err = store.Locks("summaries").Acquire(bg, 1)
		_ = store.Close()
		expect(t, err, locks.CodeUnauthorized, "token")
	} else {
		expect(t, err, locks.CodeUnauthorized, "token")
	}
	store, err := tinystore.Connect(srv.tcp, tinystore.Token(token))
	if err != nil {
		t.Fatalf("connect with the token: %v", err)
	}
	defer store.Close()
	if err := store.Locks("summaries").Hold(bg, 1, func(context.Context, *locks.Lease) error { return nil }); err != nil {
		t.Fatalf("hold over TCP: %v", err)
	}
}

// A connection may hold at most 4096 leases at once (docs/wire.md); one
// more is a limit error that names the limit.
func TestAConnectionPastItsLeaseLimitGetsErrLimit(t *testing.T) {
	store := connect(t, serve(t))
	keys := store.Locks("keys", locks.NoRenew(), locks.TTL(time.Minute))
	const limit = 4096
	held := make([]*locks.Lease, 0, limit) // kept: a forgotten lease is released by its cleanup
	for i := 0; i < limit; i++ {
		lease, ok, err := keys.TryAcquire(bg, i)
		if !ok || err != nil {
			t.Fatalf("lease %d of %d: ok=%v err=%v", i+1, limit, ok, err)
		}
		held = append(held, lease)
	}
	_, ok, err := keys.TryAcquire(bg, limit)
	if ok {
		t.Fatalf("lease %d was granted past the limit", limit+1)
	}
	expect(t, err, locks.CodeLimit, "4096")
	runtime.KeepAlive(held)
}
