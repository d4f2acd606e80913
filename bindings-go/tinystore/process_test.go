package tinystore_test

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestMain runs this test binary as a helper process when TS_HELPER names
// one, and as the test suite otherwise.
func TestMain(m *testing.M) {
	switch os.Getenv("TS_HELPER") {
	case "":
		os.Exit(m.Run())
	case "owner":
		os.Exit(helperOwner())
	case "worker":
		os.Exit(helperWorker())
	case "leader":
		os.Exit(helperLeader())
	default:
		fmt.Fprintln(os.Stderr, "unknown TS_HELPER", os.Getenv("TS_HELPER"))
		os.Exit(2)
	}
}

// A process is a helper run from this test binary, with its stdin and
// stdout lines at hand; it is killed at the end if still running.
type process struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string
}

func helper(t *testing.T, name string, env ...string) *process {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(append(os.Environ(), "TS_HELPER="+name), env...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start helper %s: %v", name, err)
	}
	p := &process{cmd: cmd, stdin: stdin, lines: make(chan string, 16)}
	go func() {
		scanner := bufio.NewScanner(stdout)
		for scanner.Scan() {
			p.lines <- scanner.Text()
		}
		close(p.lines)
	}()
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return p
}

// expect reads the helper's next line and checks that it starts with
// prefix; it returns the rest.
func (p *process) expect(t *testing.T, prefix string) string {
	t.Helper()
	select {
	case line, ok := <-p.lines:
		if !ok {
			t.Fatalf("the helper ended before saying %q", prefix)
		}
		if !strings.HasPrefix(line, prefix) {
			t.Fatalf("the helper said %q; want %q", line, prefix)
		}
		return strings.TrimPrefix(line, prefix)
	case <-time.After(20 * time.Second):
		t.Fatalf("the helper did not say %q", prefix)
		return ""
	}
}
