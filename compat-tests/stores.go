package compattests

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"unicode/utf8"

	_ "modernc.org/sqlite" // snapshots read the SQLite store directly
)

// Store is one database the suite serves the set from: the service is started with CALENDAR_DB =
// Spec, Reset restores the fixture before each write sequence and Snapshot reads the tracked tables.
type Store interface {
	Name() string
	Spec() string
	// ResetNeedsStop says whether the service must be stopped while Reset runs.
	ResetNeedsStop() bool
	Reset(ctx context.Context) error
	Snapshot(ctx context.Context, prefix string) (Snapshot, error)
	Close()
}

// MySQLStore serves database run on the suite's MySQL or MariaDB server, reset in place from
// database fixture.
type MySQLStore struct {
	db           SQLServer
	fixture, run string
	snap         *sql.DB
}

// NewMySQLStore clones fixture into run and opens the snapshot reader.
func NewMySQLStore(ctx context.Context, db SQLServer, fixture, run string) (*MySQLStore, error) {
	if err := db.CloneDatabase(ctx, fixture, run); err != nil {
		return nil, err
	}
	// The recordings read rows over a 3-byte utf8 connection, so characters outside the BMP (emoji)
	// appear there as "?"; the snapshots read the same way.
	dsn := db.DSN(run)
	if strings.Contains(dsn, "?") {
		dsn += "&charset=utf8"
	} else {
		dsn += "?charset=utf8"
	}
	snap, err := sql.Open("mysql", dsn)
	if err != nil {
		return nil, err
	}
	return &MySQLStore{db: db, fixture: fixture, run: run, snap: snap}, nil
}

func (s *MySQLStore) Name() string { return "mysql" }

func (s *MySQLStore) Spec() string { return "mysql://" + s.db.DSN(s.run) }

// ResetNeedsStop is true: the database is rewritten in place, which a running service sees only
// after its next watermark poll (as it would a WordPress write), not at once.
func (s *MySQLStore) ResetNeedsStop() bool { return true }

func (s *MySQLStore) Reset(ctx context.Context) error {
	return s.db.ResetDatabase(ctx, s.fixture, s.run)
}

func (s *MySQLStore) Snapshot(ctx context.Context, prefix string) (Snapshot, error) {
	return TakeSnapshot(ctx, s.snap, prefix, nil)
}

func (s *MySQLStore) Close() { s.snap.Close() }

// SQLiteStore serves a copy of a SQLite template file that `calendard copy` made from the MariaDB
// fixture.
type SQLiteStore struct {
	template, path string
	snap           *sql.DB
}

// NewSQLiteStore runs the binary's copy command from the MariaDB fixture database into a template
// file in dir, and serves a copy of it.
func NewSQLiteStore(ctx context.Context, bin string, db SQLServer, fixture, dir string) (*SQLiteStore, error) {
	s := &SQLiteStore{template: filepath.Join(dir, "fixture.db"), path: filepath.Join(dir, "run.db")}
	cmd := exec.CommandContext(ctx, bin, "copy", "--quiet", "--from", "mysql://"+db.DSN(fixture), "--to", "sqlite://"+s.template)
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("calendard copy: %v\n%s", err, out)
	}
	// A checkpointed template is one self-contained file.
	for _, ext := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(s.template + ext); err == nil {
			return nil, fmt.Errorf("calendard copy left %s behind", s.template+ext)
		}
	}
	if err := s.Reset(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *SQLiteStore) Name() string { return "sqlite" }

func (s *SQLiteStore) Spec() string { return "sqlite://" + s.path }

// ResetNeedsStop is true: the file is replaced, which no open connection may see.
func (s *SQLiteStore) ResetNeedsStop() bool { return true }

// Reset replaces the served file with the template (and drops its write-ahead log).
func (s *SQLiteStore) Reset(ctx context.Context) error {
	if s.snap != nil {
		s.snap.Close()
		s.snap = nil
	}
	for _, ext := range []string{"-wal", "-shm"} {
		if err := os.Remove(s.path + ext); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	if err := copyFile(s.template, s.path); err != nil {
		return err
	}
	snap, err := sql.Open("sqlite", "file:"+s.path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return err
	}
	s.snap = snap
	return nil
}

// Snapshot reads the file while the service runs (WAL lets a reader in beside the writer). SQLite
// hands back the characters outside the BMP that the recorder's utf8 connection turned into "?".
func (s *SQLiteStore) Snapshot(ctx context.Context, prefix string) (Snapshot, error) {
	return TakeSnapshot(ctx, s.snap, prefix, bmpOnly)
}

func (s *SQLiteStore) Close() {
	if s.snap != nil {
		s.snap.Close()
	}
}

// bmpOnly replaces every character outside the Basic Multilingual Plane with "?", as MySQL does when
// it sends utf8mb4 text over a 3-byte utf8 connection. Text without one (a byte of 0xF0 or more
// starts one) is returned as it is.
func bmpOnly(b []byte) []byte {
	for i := 0; i < len(b); i++ {
		if b[i] < 0xF0 {
			continue
		}
		if r, _ := utf8.DecodeRune(b[i:]); r > 0xFFFF {
			return []byte(strings.Map(func(r rune) rune {
				if r > 0xFFFF {
					return '?'
				}
				return r
			}, string(b)))
		}
	}
	return b
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
