package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/calendard/calendard/wpdb"
)

// dbConfigError reports whether err is the database refusing calendard's configuration (the
// credentials, the database's name, the authentication method or TLS) rather than not being
// reachable yet: retrying cannot help, so the command stops at once and says so.
func dbConfigError(err error) bool {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		switch me.Number {
		case 1044, // access denied to the database
			1045, // access denied: user or password
			1049, // unknown database
			1130, // host not allowed to connect
			1251, // client does not support the authentication protocol
			1698, // access denied (the account authenticates by another plugin, e.g. unix_socket)
			1524, // authentication plugin not loaded
			3159: // the account requires a secure transport
			return true
		}
		return false
	}
	for _, e := range []error{mysql.ErrNoTLS, mysql.ErrCleartextPassword, mysql.ErrNativePassword, mysql.ErrOldPassword, mysql.ErrUnknownPlugin} {
		if errors.Is(err, e) {
			return true
		}
	}
	var (
		unknownCA x509.UnknownAuthorityError
		hostname  x509.HostnameError
		invalid   x509.CertificateInvalidError
		header    tls.RecordHeaderError
	)
	return errors.As(err, &unknownCA) || errors.As(err, &hostname) || errors.As(err, &invalid) || errors.As(err, &header)
}

// refused is the one line a configuration error is reported in.
func refused(err error) error {
	return &ConfigError{Var: "CALENDAR_DB", Err: fmt.Errorf("the database refuses this configuration, retrying will not help (check the user, password, database name and TLS settings): %w", err)}
}

// pingTimeout bounds one connection attempt at start: a refused or denied connection answers at
// once, an unreachable host would otherwise hold the start for the driver's 5 s dial timeout.
const pingTimeout = 3 * time.Second

// connect checks that a MySQL store accepts calendard. A configuration error (dbConfigError)
// returns at once as a ConfigError. Transient errors (refused connections, timeouts, a server
// starting) are retried until wait has passed, with notice called once; the last one is then
// returned. The embedded store needs no check.
func connect(ctx context.Context, db *wpdb.DB, wait time.Duration, notice func(err error)) error {
	if db.Dialect() != wpdb.MySQL {
		return nil
	}
	deadline := time.Now().Add(wait)
	delay := 100 * time.Millisecond
	for noticed := false; ; {
		pctx, cancel := context.WithTimeout(ctx, pingTimeout)
		err := db.Ping(pctx)
		cancel()
		switch {
		case err == nil:
			return nil
		case dbConfigError(err):
			return refused(err)
		case ctx.Err() != nil || !time.Now().Add(delay).Before(deadline):
			return err
		}
		if !noticed && notice != nil {
			notice(err)
			noticed = true
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
		}
		delay = min(delay*2, 2*time.Second)
	}
}

// watchConfig runs in serve when the database was not reachable at start: it keeps connecting
// until the database answers, and sends on fatal if it answers with a configuration error, which
// the first attempt could not see (a database still starting up).
func watchConfig(ctx context.Context, db *wpdb.DB, fatal chan<- error) {
	err := connect(ctx, db, time.Duration(1<<62), nil)
	if err != nil && ctx.Err() == nil {
		fatal <- err
	}
}
