package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"tinystore.dev/go/guard"
	"tinystore.dev/go/locks"
)

// sqlDB is the I/O a SQL backend shares: a database whose notes table
// holds each write's own row, and whose register the guard keeps.
type sqlDB struct {
	db       *sql.DB
	dialect  guard.Dialect
	resource string
}

// setUp makes the notes table and the register (guard.Ensure).
func (s *sqlDB) setUp(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, "create table notes (fence text)"); err != nil {
		return err
	}
	return guard.Ensure(ctx, s.db, s.dialect)
}

// q is query in the dialect's placeholders (written with ?).
func (s *sqlDB) q(query string) string {
	if s.dialect != guard.Postgres {
		return query
	}
	var out strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			out.WriteString("$" + strconv.Itoa(n))
			continue
		}
		out.WriteRune(r)
	}
	return out.String()
}

// writeOn is a guarded write on tx: the caller's own row, then the check;
// commit when accepted, else roll back.
func (s *sqlDB) writeOn(ctx context.Context, tx *sql.Tx, f locks.Fence, resource string) error {
	if _, err := tx.ExecContext(ctx, s.q("insert into notes values (?)"), f.String()); err != nil {
		_ = tx.Rollback()
		return fmt.Errorf("the runner's own insert: %w", err)
	}
	if err := guard.Check(ctx, tx, s.dialect, resource, f); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

func (s *sqlDB) write(ctx context.Context, f locks.Fence, _ *string, resource string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	return s.writeOn(ctx, tx, f, resource)
}

func (s *sqlDB) recorded(ctx context.Context) (*locks.Fence, string, error) {
	var text string
	err := s.db.QueryRowContext(ctx, s.q("select fence from tinystore_fences where resource = ?"), s.resource).Scan(&text)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	f, err := locks.ParseFence(text)
	if err != nil {
		return nil, "", fmt.Errorf("the register holds %q: %w", text, err)
	}
	return &f, "", nil
}

func (s *sqlDB) corrupt(ctx context.Context) error {
	_, err := s.db.ExecContext(ctx, s.q("update tinystore_fences set fence = 'not-a-fence' where resource = ?"), s.resource)
	return err
}

// unchanged checks that the notes and the register rows are as they are
// now.
func (s *sqlDB) unchanged(ctx context.Context) (func() error, error) {
	count := func() (string, error) {
		var notes, rows int
		err := s.db.QueryRowContext(ctx, "select (select count(*) from notes), (select count(*) from tinystore_fences)").Scan(&notes, &rows)
		return fmt.Sprintf("%d notes, %d register rows", notes, rows), err
	}
	before, err := count()
	if err != nil {
		return nil, err
	}
	return func() error {
		after, err := count()
		if err != nil {
			return err
		}
		if after != before {
			return fmt.Errorf("a refused write changed the database: %s, then %s", before, after)
		}
		return nil
	}, nil
}

func (s *sqlDB) staleResource() string { return s.resource }

// sqlSteps are the SQL backends' shared actions.
func (s *sqlDB) sqlSteps(judge judgeFunc) map[string]stepFunc {
	return map[string]stepFunc{
		"drop_register": func(ctx context.Context, _ args, _ step) error {
			_, err := s.db.ExecContext(ctx, "drop table tinystore_fences")
			return err
		},
		"outside_transaction": func(ctx context.Context, a args, st step) error {
			f, err := parse(a.Fence)
			if err != nil {
				return err
			}
			var none *sql.Tx // Go's check takes a transaction: none is outside one
			return judge(st.expect("expect"), guard.Check(ctx, none, s.dialect, s.resource, f), f)
		},
	}
}
