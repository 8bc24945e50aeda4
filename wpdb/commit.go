package wpdb

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"

	"github.com/go-sql-driver/mysql"
)

// database/sql's Tx.Commit takes no context, and go-sql-driver's COMMIT then waits for the server
// with no deadline: a write whose database stalls (SIGSTOP, a frozen VM, a lost network path that
// does not reset) at its commit would wait for the server as long as the stall lasts. The connector
// below gives MySQL transactions a Commit that sends COMMIT under the context the transaction
// began with, which the request's database deadline bounds: past it the driver closes the
// connection and the commit is reported unconfirmed (commitUnconfirmedError).

// mysqlDriverConn is what go-sql-driver's connections implement and database/sql looks for.
type mysqlDriverConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
	driver.NamedValueChecker
}

// deadlineConnector wraps go-sql-driver's connector so that every connection commits under its
// transaction's context.
type deadlineConnector struct{ driver.Connector }

func (c deadlineConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	mc, ok := conn.(mysqlDriverConn)
	if !ok {
		return conn, nil // a driver that changed its interfaces keeps its own Commit
	}
	return deadlineConn{mc}, nil
}

type deadlineConn struct{ mysqlDriverConn }

func (c deadlineConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	tx, err := c.mysqlDriverConn.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return &deadlineTx{Tx: tx, conn: c.mysqlDriverConn, ctx: ctx}, nil
}

// deadlineTx commits with COMMIT sent through the connection under ctx; Rollback is the driver's.
// database/sql holds the connection's lock around Commit, so nothing else uses it meanwhile.
type deadlineTx struct {
	driver.Tx
	conn driver.ExecerContext
	ctx  context.Context
}

func (t *deadlineTx) Commit() error {
	if err := t.ctx.Err(); err != nil {
		// Nothing sent: the pool drops the connection, and the server rolls back as it goes.
		return fmt.Errorf("%w: commit not sent: %w", driver.ErrBadConn, err)
	}
	_, err := t.conn.ExecContext(t.ctx, "COMMIT", nil)
	if err == nil {
		return nil
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return err // the server answered: not committed
	}
	return &commitUnconfirmedError{err: err}
}

// commitUnconfirmedError is a COMMIT that went out without an answer: the deadline passed (the
// driver closed the connection) or the connection broke. The server may have committed. It is a
// bad connection to the pool, which then drops it.
type commitUnconfirmedError struct{ err error }

func (e *commitUnconfirmedError) Error() string { return e.err.Error() }
func (e *commitUnconfirmedError) Unwrap() []error {
	return []error{driver.ErrBadConn, e.err}
}
