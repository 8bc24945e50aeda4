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

// Replication is a primary writing a binary log with GTIDs and a replica replicating from it,
// each a throwaway server of its own: MariaDB (MASTER_USE_GTID=slave_pos) or MySQL
// (SOURCE_AUTO_POSITION).
type Replication struct {
	Primary, Replica *MariaDB
}

// StartReplication installs and starts a MariaDB primary and replica under dir and starts the
// replica's replication; what is then written on the primary (databases included) reaches the
// replica.
func StartReplication(dir string) (*Replication, error) {
	return startReplication(dir, installMariaDB,
		[]string{"--server-id=1", "--binlog-format=ROW"}, []string{"--server-id=2"},
		"CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=%d, MASTER_USER='root', MASTER_PASSWORD='', MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1")
}

// StartMySQLReplication is StartReplication with MySQL servers (mysql.go).
func StartMySQLReplication(dir string) (*Replication, error) {
	return startReplication(dir, installMySQL, mysqlReplicationOptions(1), mysqlReplicationOptions(2),
		"CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT=%d, SOURCE_USER='root', SOURCE_PASSWORD='', SOURCE_AUTO_POSITION=1, SOURCE_CONNECT_RETRY=1")
}

func startReplication(dir string, install func(string) (*MariaDB, error), primaryOpts, replicaOpts []string, changeSource string) (*Replication, error) {
	primary, err := install(filepath.Join(dir, "primary"))
	if err != nil {
		return nil, err
	}
	primary.extra = append(primaryOpts, "--log-bin="+filepath.Join(primary.Dir, "binlog"))
	if err := OnFreePort(primary.startOn); err != nil {
		return nil, err
	}
	replica, err := install(filepath.Join(dir, "replica"))
	if err != nil {
		primary.Stop()
		return nil, err
	}
	// The replica starts its replication again by itself after a restart (Restart, after Kill).
	replica.extra = append(replicaOpts, "--relay-log="+filepath.Join(replica.Dir, "relay"))
	if err := OnFreePort(replica.startOn); err != nil {
		primary.Stop()
		return nil, err
	}
	r := &Replication{Primary: primary, Replica: replica}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := replica.Exec(ctx, fmt.Sprintf(changeSource, primary.Port), "START REPLICA"); err != nil {
		r.Stop()
		return nil, err
	}
	return r, nil
}

// NewReplication starts a MariaDB primary and replica for the test, stopped when it ends.
func NewReplication(t testing.TB) *Replication {
	t.Helper()
	SkipIfShort(t, "mariadbd (a throwaway MariaDB primary and replica)")
	return newReplication(t, StartReplication)
}

// NewMySQLReplication starts a MySQL primary and replica for the test, stopped when it ends.
func NewMySQLReplication(t testing.TB) *Replication {
	t.Helper()
	SkipIfShort(t, "MySQL's mysqld (a throwaway MySQL primary and replica)")
	return newReplication(t, StartMySQLReplication)
}

func newReplication(t testing.TB, start func(string) (*Replication, error)) *Replication {
	t.Helper()
	r, err := start(t.TempDir())
	if err != nil {
		t.Fatalf("starting a replicated server pair: %v", err)
	}
	t.Cleanup(r.Stop)
	return r
}

// Stop stops both servers.
func (r *Replication) Stop() {
	r.Replica.Stop()
	r.Primary.Stop()
}

// StopApplying stops the replica's SQL thread: it goes on receiving the primary's changes but
// applies none (it lags). StartApplying starts it again.
func (r *Replication) StopApplying(ctx context.Context) error {
	return r.Replica.Exec(ctx, "STOP REPLICA SQL_THREAD")
}

// StartApplying starts the replica's SQL thread again.
func (r *Replication) StartApplying(ctx context.Context) error {
	return r.Replica.Exec(ctx, "START REPLICA SQL_THREAD")
}

// Position returns the primary's GTID position: @@gtid_binlog_pos on MariaDB, @@gtid_executed on
// MySQL.
func (r *Replication) Position(ctx context.Context) (string, error) {
	db, err := sql.Open("mysql", r.Primary.DSN(""))
	if err != nil {
		return "", err
	}
	defer db.Close()
	variable := "gtid_binlog_pos"
	if r.Primary.mysql {
		variable = "gtid_executed"
	}
	var pos string
	err = db.QueryRowContext(ctx, "SELECT @@GLOBAL."+variable).Scan(&pos)
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
	// Both return 0 once the position is applied (on a timeout, -1 and 1).
	wait := "SELECT MASTER_GTID_WAIT(?, ?)"
	if r.Replica.mysql {
		wait = "SELECT WAIT_FOR_EXECUTED_GTID_SET(?, ?)"
	}
	var res sql.NullInt64
	if err := db.QueryRowContext(ctx, wait, pos, timeout.Seconds()).Scan(&res); err != nil {
		return err
	}
	if !res.Valid || res.Int64 != 0 {
		return fmt.Errorf("the replica has not applied %s after %s (%s: %s)", pos, timeout, wait, strconv.FormatInt(res.Int64, 10))
	}
	return nil
}

// Kill ends the server at once (SIGKILL), as a crash would; Restart starts it again.
func (m *MariaDB) Kill() {
	m.p.kill()
}
