package tinystore_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"tinystore.dev/go/locks"
	"tinystore.dev/go/tinystore"
)

// checkScene checks the seed's scene in the database: B's write went in,
// A's later write with the smaller fence changed nothing.
func checkScene(t *testing.T, db *chatDB, fenceA string, changedA int64) {
	t.Helper()
	summary, stored := db.summary(t)
	if !strings.Contains(summary, "worker B") {
		t.Errorf("the stored summary is %q; want worker B's", summary)
	}
	if changedA != 0 {
		t.Errorf("A's late write changed %d rows; want 0", changedA)
	}
	if len(stored) != 40 || fenceA >= stored {
		t.Errorf("A's fence %q is not below the stored %q", fenceA, stored)
	}
}

// The seed's scene in one process: worker A holds the chat's key and
// pauses (its lease, renewing off, runs out); worker B holds the key with a
// larger fence and saves; A wakes and saves too, and the database refuses
// A's write. A's Hold ends with ErrLeaseLost.
func TestTheSeedsSnippetRefusesALateHoldersWrite(t *testing.T) {
	store := openStore(t)
	db := openChatDB(t, filepath.Join(t.TempDir(), "chat.db"))
	db.migrate(t)
	paused, woken := make(chan struct{}), make(chan struct{})
	modelA := summarizer{worker: "worker A", pause: func() { close(paused); <-woken }}
	summariesA := store.Locks("summaries", locks.TTL(50*time.Millisecond), locks.NoRenew())
	doneA := make(chan error, 1)
	go func() { doneA <- summarize(bg, summariesA, 1, modelA, db.history, db) }()
	within(t, paused, "worker A pausing")

	summariesB := store.Locks("summaries")
	if err := summarize(bg, summariesB, 1, summarizer{worker: "worker B"}, db.history, db); err != nil {
		t.Fatalf("worker B: %v", err)
	}
	close(woken)
	errA := <-doneA
	if !errors.Is(errA, locks.ErrLeaseLost) {
		t.Errorf("worker A's Hold returned %v; want ErrLeaseLost", errA)
	}
	if len(db.writes) != 2 || db.writes[0].changed != 1 {
		t.Fatalf("writes %+v; want B's (1 row) then A's", db.writes)
	}
	checkScene(t, db, db.writes[1].fence, db.writes[1].changed)
}

// The seed's scene across processes through a server: worker A is a Go
// process holding the key over a connection; SIGSTOP pauses it past its
// TTL, so its renewals stop and the server ends its lease; worker B (this
// process) holds the key and saves; SIGCONT wakes A, which saves too, and
// the database refuses A's write.
func TestTheSeedsSceneWithAWorkerStoppedBySIGSTOP(t *testing.T) {
	srv := serve(t)
	dbPath := filepath.Join(t.TempDir(), "chat.db")
	db := openChatDB(t, dbPath)
	db.migrate(t)

	a := helper(t, "worker", "TS_DIR="+srv.dir, "TS_DB="+dbPath)
	a.expect(t, "summarizing")
	if err := a.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	store := connect(t, srv)
	if err := summarize(bg, store.Locks("summaries"), 1, summarizer{worker: "worker B"}, db.history, db); err != nil {
		t.Fatalf("worker B: %v", err)
	}
	if err := a.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if _, err := a.stdin.Write([]byte("wake\n")); err != nil {
		t.Fatal(err)
	}
	var fenceA string
	var changedA int64
	if _, err := fmt.Sscanf(a.expect(t, "wrote "), "%s %d", &fenceA, &changedA); err != nil {
		t.Fatal(err)
	}
	if held := a.expect(t, "hold: "); !strings.Contains(held, "lease_lost") {
		t.Errorf("worker A's Hold returned %q; want lease_lost", held)
	}
	checkScene(t, db, fenceA, changedA)
}

// helperWorker is worker A of the scene: it opens the served store TS_DIR
// (which connects to its server), holds chat 1 with a 300ms TTL (renewed
// while it runs), says "summarizing", and waits for a line on stdin before
// it saves through the seed's snippet.
func helperWorker() int {
	store, err := tinystore.Open(os.Getenv("TS_DIR"))
	if err != nil {
		fmt.Println("open:", err)
		return 1
	}
	defer store.Close()
	db := &chatDB{}
	db.sql, err = openSQL(os.Getenv("TS_DB"))
	if err != nil {
		fmt.Println("db:", err)
		return 1
	}
	defer db.sql.Close()
	model := summarizer{worker: "worker A", pause: func() {
		fmt.Println("summarizing")
		_, _ = os.Stdin.Read(make([]byte, 64))
	}}
	err = summarize(bg, store.Locks("summaries", locks.TTL(300*time.Millisecond)), 1, model, db.history, db)
	for _, w := range db.writes {
		fmt.Println("wrote", w.fence, w.changed)
	}
	fmt.Println("hold:", err)
	return 0
}
