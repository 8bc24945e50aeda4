package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// MySQL (Oracle's server) for the tests that must hold on both families, read replicas first of
// all. Debian's stable release ships only MariaDB, whose package also installs a "mysqld", so the
// binary is never taken from PATH: .ci/install-mysql unpacks Debian unstable's MySQL server, with
// the libraries it was built against, into the tools cache, and writes a mysqld there that runs it
// with them.

// MySQLBinary finds that mysqld: $MYSQLD_BIN, then the cache directory .ci/install-mysql writes
// ($CALENDARD_TOOLS or ~/.cache/calendard).
func MySQLBinary() (string, error) {
	if p := os.Getenv("MYSQLD_BIN"); p != "" {
		return p, nil
	}
	p := filepath.Join(toolsDir(), "mysql", "mysqld")
	if st, err := os.Stat(p); err == nil && !st.IsDir() {
		return p, nil
	}
	return "", fmt.Errorf("MySQL's mysqld not found (looked at $MYSQLD_BIN, %s): run .ci/install-mysql", p)
}

// installMySQL initialises a MySQL data directory under dir, with a root account that connects
// over TCP without a password as the MariaDB servers' does.
func installMySQL(dir string) (*MariaDB, error) {
	server, err := MySQLBinary()
	if err != nil {
		return nil, err
	}
	// The MariaDB client loads dumps (LoadSQL): it speaks MySQL's protocol and authentication.
	client, err := lookPath("mariadb", "mysql")
	if err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "data")
	tmp := filepath.Join(dir, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return nil, err
	}
	install := exec.Command(server, "--no-defaults", "--initialize-insecure", "--user=root", "--datadir="+data, "--tmpdir="+tmp,
		"--log-error="+filepath.Join(dir, "err.log"))
	if out, err := install.CombinedOutput(); err != nil {
		b, _ := os.ReadFile(filepath.Join(dir, "err.log"))
		return nil, fmt.Errorf("mysqld --initialize-insecure: %v\n%s%s", err, out, b)
	}
	// --initialize-insecure makes root@localhost only; with --skip-name-resolve a TCP client is
	// 127.0.0.1. Kept out of the binary log, so a replica does not replay it.
	init := filepath.Join(dir, "init.sql")
	if err := os.WriteFile(init, []byte(strings.Join([]string{
		"SET SQL_LOG_BIN=0;",
		"CREATE USER IF NOT EXISTS 'root'@'127.0.0.1' IDENTIFIED BY '';",
		"GRANT ALL ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;",
	}, "\n")+"\n"), 0o644); err != nil {
		return nil, err
	}
	return &MariaDB{Dir: dir, Socket: filepath.Join(dir, "mysqld.sock"), client: client, data: data, bin: server, tmp: tmp,
		mysql: true}, nil
}

// mysqlOptions are MySQL's own server options: no X protocol listener (it would take a second
// port), file import and export only under the test's directory, and the account above.
func (m *MariaDB) mysqlOptions() []string {
	return []string{"--mysqlx=OFF", "--secure-file-priv=" + m.tmp, "--init-file=" + filepath.Join(m.Dir, "init.sql")}
}

// mysqlReplicationOptions are a MySQL primary's or replica's: every transaction has a GTID.
func mysqlReplicationOptions(serverID int) []string {
	return []string{"--server-id=" + strconv.Itoa(serverID), "--gtid-mode=ON", "--enforce-gtid-consistency=ON"}
}

// NewMySQL starts a MySQL server for the test, with more server options, stopped when it ends.
func NewMySQL(t testing.TB, extra ...string) *MariaDB {
	t.Helper()
	SkipIfShort(t, "MySQL's mysqld (a throwaway MySQL server)")
	return newServer(t, installMySQL, extra)
}

var (
	sharedMySQLOnce sync.Once
	sharedMySQL     *MariaDB
	sharedMySQLErr  error
)

// SharedMySQL is SharedMariaDB with a MySQL server (StopShared stops it too).
func SharedMySQL(t testing.TB) *MariaDB {
	t.Helper()
	SkipIfShort(t, "MySQL's mysqld (a throwaway MySQL server)")
	sharedMySQLOnce.Do(func() { sharedMySQL, sharedMySQLErr = startShared("calendard-mysql-", installMySQL) })
	if sharedMySQLErr != nil {
		t.Fatalf("starting MySQL: %v", sharedMySQLErr)
	}
	return sharedMySQL
}
