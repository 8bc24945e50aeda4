package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/calendard/calendard"
	"github.com/calendard/calendard/internal/wpauth"
	"github.com/calendard/calendard/internal/wptext"
	"github.com/calendard/calendard/wpdb"
)

const userUsage = `usage:
  calendard user list
  calendard user app-password create USER [--name NAME] [--porcelain]
  calendard user app-password list USER
  calendard user app-password revoke USER UUID
  calendard user app-password revoke USER --all

USER is a login, an e-mail address or an ID. Application passwords are kept as WordPress keeps
them (the _application_passwords user meta, hashed as WordPress 6.8 does): WordPress and calendard
both accept them. A created password is printed once.`

// userCommand is "calendard user …", after wp-cli's `wp user list` and `wp user
// application-password`.
func userCommand(args []string) error {
	var name string
	var all, porcelain bool
	cfg, err := loadConfigFor("user", args, osGetenv, func(fs *flag.FlagSet) {
		fs.StringVar(&name, "name", "calendard", "app-password create: the application's name (unique per user)")
		fs.BoolVar(&porcelain, "porcelain", false, "app-password create: print only the password")
		fs.BoolVar(&all, "all", false, "app-password revoke: revoke every application password of the user")
		fs.Usage = func() {
			fmt.Fprintln(fs.Output(), userUsage+"\n\nflags:")
			fs.PrintDefaults()
		}
	})
	if err != nil {
		return err
	}
	pos := cfg.Args
	usageErr := func() error {
		fmt.Fprintln(os.Stderr, userUsage)
		return errors.New("user: wrong arguments")
	}
	if len(pos) == 0 {
		return usageErr()
	}
	db, err := openStore(cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	ctx := context.Background()
	if err := connect(ctx, db, 0, nil); err != nil {
		return err
	}
	switch {
	case pos[0] == "list" && len(pos) == 1:
		return listUsers(ctx, db)
	case pos[0] != "app-password" || len(pos) < 3:
		return usageErr()
	}
	user, err := findUser(ctx, db, pos[2])
	if err != nil {
		return err
	}
	switch {
	case pos[1] == "create" && len(pos) == 3:
		return createAppPassword(ctx, db, user, name, porcelain)
	case pos[1] == "list" && len(pos) == 3:
		return listAppPasswords(user)
	case pos[1] == "revoke" && ((len(pos) == 4 && !all) || (len(pos) == 3 && all)):
		uuid := ""
		if !all {
			uuid = pos[3]
		}
		return revokeAppPasswords(ctx, db, user, uuid)
	}
	return usageErr()
}

// findUser finds a user by ID, login or e-mail, as wp-cli's user fetcher does.
func findUser(ctx context.Context, db *wpdb.DB, ref string) (*calendard.UserRecord, error) {
	var u *calendard.UserRecord
	var err error
	if id, perr := strconv.ParseInt(ref, 10, 64); perr == nil {
		u, err = db.UserByID(ctx, id)
	}
	if u == nil && err == nil {
		u, err = db.UserByLogin(ctx, calendard.SanitizeUser(ref))
	}
	if u == nil && err == nil && calendard.IsEmail(ref) {
		u, err = db.UserByEmail(ctx, strings.TrimSpace(ref))
	}
	if err != nil {
		return nil, err
	}
	if u == nil {
		return nil, fmt.Errorf("no user %q (give a login, an e-mail address or an ID)", ref)
	}
	return u, nil
}

func listUsers(ctx context.Context, db *wpdb.DB) error {
	users, err := db.ListUsers(ctx)
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tLOGIN\tEMAIL\tDISPLAY NAME\tROLES\tAPP PASSWORDS\tREGISTERED")
	for _, u := range users {
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\t%d\t%s\n", u.ID, u.Login, u.Email, u.DisplayName, strings.Join(u.Roles, ","), u.AppPasswords, u.Registered)
	}
	return w.Flush()
}

// createAppPassword is WP_Application_Passwords::create_new_application_password for one user: the
// name is sanitised (sanitize_text_field) and must be unique for the user, the new entry is stored
// with its hash only, and the password is printed once, in WordPress' groups of four.
func createAppPassword(ctx context.Context, db *wpdb.DB, user *calendard.UserRecord, name string, porcelain bool) error {
	name = wptext.SanitizeTextField(name)
	if name == "" {
		return &ConfigError{Var: "--name", Err: errors.New("an application name is required")}
	}
	var plaintext, uuid string
	err := db.UpdateAppPasswords(ctx, user.ID, true, func(old string) (string, error) {
		entries, err := wpauth.ParseAppPasswords(old)
		if err != nil {
			return "", err
		}
		if wpauth.AppPasswordNameExists(entries, name) {
			return "", fmt.Errorf("user %q already has an application password named %q: each application name should be unique", user.Login, name)
		}
		value, pw, id, err := wpauth.NewAppPasswordEntry(old, name, time.Now().Unix())
		plaintext, uuid = pw, id
		return value, err
	})
	if err != nil {
		return err
	}
	chunked := wpauth.ChunkAppPassword(plaintext)
	if porcelain {
		fmt.Println(chunked)
		return nil
	}
	fmt.Printf("created application password %q (uuid %s) for user %q:\n\n    %s\n\n"+
		"Use it with HTTP Basic authentication (user %q). It is shown only once.\n%s", name, uuid, user.Login, chunked, user.Login, tlsRule)
	return nil
}

// listAppPasswords prints a user's application passwords; the hashes stay in the database.
func listAppPasswords(user *calendard.UserRecord) error {
	entries, err := wpauth.ParseAppPasswords(user.AppPasswords)
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "UUID\tNAME\tAPP ID\tCREATED\tLAST USED\tLAST IP")
	for _, e := range entries {
		used, ip := "never", ""
		if e.LastUsed != nil {
			used = time.Unix(*e.LastUsed, 0).UTC().Format(time.DateTime)
		}
		if e.LastIP != nil {
			ip = *e.LastIP
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", e.UUID, e.Name, e.AppID, time.Unix(e.Created, 0).UTC().Format(time.DateTime), used, ip)
	}
	return w.Flush()
}

// revokeAppPasswords deletes one application password (uuid) or all of them (uuid ""), as
// delete_application_password and delete_all_application_passwords do.
func revokeAppPasswords(ctx context.Context, db *wpdb.DB, user *calendard.UserRecord, uuid string) error {
	n := 0
	err := db.UpdateAppPasswords(ctx, user.ID, false, func(old string) (string, error) {
		if uuid == "" {
			entries, err := wpauth.ParseAppPasswords(old)
			n = len(entries)
			return wpauth.NoAppPasswords, err
		}
		n = 1
		v, err := wpauth.RevokeAppPassword(old, uuid)
		if errors.Is(err, wpauth.ErrAppPasswordNotFound) {
			return "", fmt.Errorf("user %q has no application password %s", user.Login, uuid)
		}
		return v, err
	})
	if err != nil {
		return err
	}
	fmt.Printf("revoked %d application password(s) of user %q\n", n, user.Login)
	return nil
}
