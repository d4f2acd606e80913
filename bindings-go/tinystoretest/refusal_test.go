package tinystoretest_test

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"tinystore.dev/go/tinystore"
	"tinystore.dev/go/tinystoretest"
)

// refusesEverything checks that store refuses Advance, Expire and
// ExpireKey with ErrInvalid and the core's message, and that its lease
// stays held.
func refusesEverything(t *testing.T, store *tinystore.Store) {
	t.Helper()
	ctx := t.Context()
	lease, err := store.Locks("jobs").Acquire(ctx, "report")
	if err != nil {
		t.Fatal(err)
	}
	_, keyErr := tinystoretest.ExpireKey(ctx, store, "jobs", "report")
	for what, err := range map[string]error{
		"Advance":   tinystoretest.Advance(ctx, store, time.Minute),
		"Expire":    tinystoretest.Expire(ctx, lease),
		"ExpireKey": keyErr,
	} {
		var e *tinystore.Error
		if !errors.Is(err, tinystore.ErrInvalid) || !errors.As(err, &e) {
			t.Fatalf("%s on a store not made for tests: %v, want an ErrInvalid *tinystore.Error", what, err)
		}
		if e.Message != refusal {
			t.Fatalf("%s: the message is\n%q\nwant\n%q", what, e.Message, refusal)
		}
	}
	if !lease.Held() || closedNow(lease.Done()) {
		t.Fatalf("the lease was not kept: %v", lease.Err())
	}
	st, err := store.Status(ctx)
	if err != nil || st.Testing {
		t.Fatalf("a store not made for tests: Testing %v (%v)", st != nil && st.Testing, err)
	}
	if err := lease.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestAnEmbeddedStoreRefusesTheControls(t *testing.T) {
	store, err := tinystore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	refusesEverything(t, store)
}

func TestAStoreServedWithoutTestingRefusesThem(t *testing.T) {
	srv, err := tinystore.Serve(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	store, err := tinystore.Connect(srv.Address())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	refusesEverything(t, store)
}

// tinystoreServe starts `tinystore serve DIR args...` (the CLI at
// $TINYSTORE_BIN, else the workspace's debug build), stopped at the end,
// and connects to it once it says it serves.
func tinystoreServe(t *testing.T, args ...string) *tinystore.Store {
	t.Helper()
	bin := os.Getenv("TINYSTORE_BIN")
	if bin == "" {
		bin, _ = filepath.Abs("../../target/debug/tinystore")
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("the tinystore CLI is missing (%v): run `cargo build -p tinystore-cli` or set TINYSTORE_BIN", err)
	}
	dir := t.TempDir()
	cmd := exec.Command(bin, append([]string{"serve", dir}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	serving := make(chan string, 1)
	go func() {
		defer close(exited)
		lines := bufio.NewScanner(stderr)
		for lines.Scan() {
			if strings.Contains(lines.Text(), "serving") {
				select {
				case serving <- lines.Text():
				default:
				}
			}
		}
		_ = cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(within):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	select {
	case line := <-serving:
		if want := strings.Contains(strings.Join(args, " "), "--testing"); strings.Contains(line, "--testing") != want {
			t.Fatalf("tinystore serve %v said: %s", args, line)
		}
	case <-exited:
		t.Fatal("tinystore serve exited before it served")
	case <-time.After(within):
		t.Fatalf("tinystore serve did not serve within %v", within)
	}
	store, err := tinystore.Connect("unix:" + filepath.Join(dir, "tinystore.sock"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	return store
}

func TestTheCommandServesATestStoreOnlyWithTesting(t *testing.T) {
	refusesEverything(t, tinystoreServe(t))

	store := tinystoreServe(t, "--testing")
	ctx := t.Context()
	lease, err := store.Locks("jobs").Acquire(ctx, "report")
	if err != nil {
		t.Fatal(err)
	}
	if err := tinystoretest.Expire(ctx, lease); err != nil {
		t.Fatal(err)
	}
	if !closedNow(lease.Done()) || !errors.Is(lease.Err(), tinystore.ErrLeaseLost) {
		t.Fatalf("after Expire: %v", lease.Err())
	}
	if err := tinystoretest.Advance(ctx, store, time.Hour); err != nil {
		t.Fatal(err)
	}
	st, err := store.Status(ctx)
	if err != nil || !st.Testing {
		t.Fatalf("`tinystore serve --testing`: Testing %v (%v)", st != nil && st.Testing, err)
	}
}

// assertGone fails the test unless dir is gone.
func assertGone(t *testing.T, dir string) {
	t.Helper()
	if dir == "" {
		t.Fatal("no directory")
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("%s is still there (%v)", dir, err)
	}
}

// failingEnv makes TestFailingHelper run, in a child process.
const failingEnv = "TINYSTORE_KIT_FAILING_HELPER"

// TestFailingHelper fails on purpose while its kits hold leases, after
// printing their directories: run only as the child of
// TestCleanupClosesTheKitsOfAFailedTest.
func TestFailingHelper(t *testing.T) {
	if os.Getenv(failingEnv) == "" {
		t.Skip("the child of TestCleanupClosesTheKitsOfAFailedTest")
	}
	for _, kit := range []*tinystoretest.Kit{tinystoretest.New(t), tinystoretest.Served(t)} {
		if _, err := kit.Store().Locks("jobs").Acquire(t.Context(), "report"); err != nil {
			t.Error(err)
		}
		println("KIT-DIR", kit.Dir())
	}
	t.Fatal("failing on purpose")
}

func TestCleanupClosesTheKitsOfAFailedTest(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestFailingHelper$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), failingEnv+"=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || !strings.Contains(string(out), "failing on purpose") {
		t.Fatalf("the child did not fail as planned (%v):\n%s", err, out)
	}
	var dirs []string
	for line := range strings.Lines(string(out)) {
		if dir, ok := strings.CutPrefix(strings.TrimSpace(line), "KIT-DIR "); ok {
			dirs = append(dirs, dir)
		}
	}
	if len(dirs) != 2 {
		t.Fatalf("the child printed %d kit directories, want 2:\n%s", len(dirs), out)
	}
	for _, dir := range dirs {
		assertGone(t, dir)
	}
}
