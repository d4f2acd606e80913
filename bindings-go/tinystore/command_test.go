package tinystore_test

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"tinystore.dev/go/tinystore"
)

// goCommandBin builds tinystore.dev/go/cmd/tinystore (the command line
// linked into a Go program) and returns the executable's path.
func goCommandBin(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "tinystore")
	out, err := exec.Command("go", "build", "-o", bin, "tinystore.dev/go/cmd/tinystore").CombinedOutput()
	if err != nil {
		t.Fatalf("go build tinystore.dev/go/cmd/tinystore: %v\n%s", err, out)
	}
	return bin
}

// exitCode is the exit status behind err from exec (0 for nil, -1 when the
// process did not exit by itself).
func exitCode(err error) int {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

func TestTheGoCommandPrintsTheCommandLinesHelp(t *testing.T) {
	bin := goCommandBin(t)
	out, err := exec.Command(bin, "--help").CombinedOutput()
	if err != nil {
		t.Fatalf("tinystore --help: %v\n%s", err, out)
	}
	for _, command := range []string{"serve", "hold", "status", "backup", "restore", "demo"} {
		if !strings.Contains(string(out), command) {
			t.Errorf("--help does not name %q:\n%s", command, out)
		}
	}
	out, err = exec.Command(bin, "no-such-command").CombinedOutput()
	if code := exitCode(err); code != 2 {
		t.Errorf("an unknown command exited %d (%v); want the usage status 2:\n%s", code, err, out)
	}
}

// The Go command serves a store as the Rust binary does: other processes
// hold its locks, and SIGTERM stops it cleanly (leases released, holders
// told, exit status 0), which needs the signals the Go runtime set up
// handed back to the command line.
func TestTheGoCommandServesAndStopsCleanlyOnSIGTERM(t *testing.T) {
	srv := serveWith(t, goCommandBin(t))
	store := connect(t, srv)
	lease, err := store.Locks("jobs").Acquire(bg, "a")
	if err != nil {
		t.Fatalf("acquire through the Go command's server: %v", err)
	}
	waited, said := srv.stop()
	if waited != nil {
		t.Fatalf("tinystore serve exited with %v; want status 0. It said:\n%s", waited, said)
	}
	if !strings.Contains(said, "stopped cleanly") {
		t.Errorf("tinystore serve did not say it stopped cleanly:\n%s", said)
	}
	within(t, lease.Done(), "the holder learning its lease ended")
}

// Serve serves a store from inside this program: another process (the
// tinystore CLI's hold) opens the directory and is connected to it; its
// fence and this program's later one come from the one store; Close stops
// serving and frees the directory.
func TestServeServesTheStoreToOtherProcesses(t *testing.T) {
	dir := t.TempDir()
	srv, err := tinystore.Serve(dir)
	if err != nil {
		t.Fatalf("serve: %v", err)
	}
	defer srv.Close()
	if want := "unix:" + filepath.Join(dir, "tinystore.sock"); srv.Address() != want {
		t.Errorf("address %q; want %q", srv.Address(), want)
	}

	out, err := exec.Command(tinystoreBin(t), "hold", dir, "jobs", "a", "--", "sh", "-c", "echo $TINYSTORE_FENCE").CombinedOutput()
	if err != nil {
		t.Fatalf("tinystore hold on the served directory: %v\n%s", err, out)
	}
	theirs := strings.TrimSpace(string(out))

	store, err := tinystore.Connect(srv.Address())
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer store.Close()
	lease, err := store.Locks("jobs").Acquire(bg, "a")
	if err != nil {
		t.Fatalf("acquire: %v", err)
	}
	if !(lease.Fence.String() > theirs && len(lease.Fence.String()) == len(theirs)) {
		t.Errorf("this program's fence %s is not above the other process's %s", lease.Fence, theirs)
	}

	if err := srv.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	within(t, lease.Done(), "the holder learning the server stopped")
	if err := srv.Close(); err != nil {
		t.Errorf("a second close: %v", err)
	}
	again, err := tinystore.Open(dir)
	if err != nil {
		t.Fatalf("open after the server stopped: %v", err)
	}
	_ = again.Close()
}
