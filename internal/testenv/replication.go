package testenv

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// Replication is a MariaDB primary writing a binary log with GTIDs and a replica replicating from
// it (MASTER_USE_GTID=slave_pos), each a throwaway server of its own.
type Replication struct {
	Primary, Replica *MariaDB
}

// StartReplication installs and starts a primary and a replica under dir and starts the replica's
// replication; what is then written on the primary (databases included) reaches the replica.
func StartReplication(dir string) (*Replication, error) {
	primary, err := installMariaDB(filepath.Join(dir, "primary"))
	if err != nil {
		return nil, err
	}
	primary.extra = []string{"--server-id=1", "--log-bin=" + filepath.Join(primary.Dir, "binlog"), "--binlog-format=ROW"}
	if err := OnFreePort(primary.startOn); err != nil {
		return nil, err
	}
	replica, err := installMariaDB(filepath.Join(dir, "replica"))
	if err != nil {
		primary.Stop()
		return nil, err
	}
	// The replica starts its replication again by itself after a restart (Restart, after Kill).
	replica.extra = []string{"--server-id=2", "--relay-log=" + filepath.Join(replica.Dir, "relay")}
	if err := OnFreePort(replica.startOn); err != nil {
		primary.Stop()
		return nil, err
	}
	r := &Replication{Primary: primary, Replica: replica}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := replica.Exec(ctx, fmt.Sprintf("CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=%d, MASTER_USER='root', MASTER_PASSWORD='', MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1",
		primary.Port), "START SLAVE"); err != nil {
		r.Stop()
		return nil, err
	}
	return r, nil
}

// NewReplication starts a primary and a replica for the test, stopped when it ends.
func NewReplication(t testing.TB) *Replication {
	t.Helper()
	SkipIfShort(t, "mariadbd (a throwaway MariaDB primary and replica)")
	dir := t.TempDir()
	r, err := StartReplication(dir)
	if err != nil {
		t.Fatalf("starting a replicated MariaDB: %v", err)
	}
	t.Cleanup(r.Stop)
	return r
}

// Stop stops both servers.
func (r *Replication) Stop() {
	r.Replica.Stop()
	r.Primary.Stop()
}

// Kill ends the server at once (SIGKILL), as a crash would; Restart starts it again.
func (m *MariaDB) Kill() {
	m.p.kill()
}

// Position returns the primary's @@gtid_binlog_pos.
func (r *Replication) Position(ctx context.Context) (string, error) {
	db, err := sql.Open("mysql", r.Primary.DSN(""))
	if err != nil {
		return "", err
	}
	defer db.Close()
	var pos string
	err = db.QueryRowContext(ctx, "SELECT @@GLOBAL.gtid_binlog_pos").Scan(&pos)
	return pos, err
}

// WaitReplicated waits until the replica has applied everything the primary had committed when it
// was called.
func (r *Replication) WaitReplicated(ctx context.Context, timeout time.Duration) error {
	pos, err := r.Position(ctx)
	if err != nil {
		return err
	}
	db, err := sql.Open("mysql", r.Replica.DSN(""))
	if err != nil {
		return err
	}
	defer db.Close()
	var res sql.NullInt64
	if err := db.QueryRowContext(ctx, "SELECT MASTER_GTID_WAIT(?, ?)", pos, timeout.Seconds()).Scan(&res); err != nil {
		return err
	}
	if !res.Valid || res.Int64 != 0 {
		return fmt.Errorf("the replica has not applied %s after %s (MASTER_GTID_WAIT: %s)", pos, timeout, strconv.FormatInt(res.Int64, 10))
	}
	return nil
}
