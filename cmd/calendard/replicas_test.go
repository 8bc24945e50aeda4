package main

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// CALENDAR_DB_REPLICAS is a list of mysql:// values (a comma inside a password does not split it),
// is refused with the embedded store, and its passwords are scrubbed like CALENDAR_DB's.
func TestReplicaConfiguration(t *testing.T) {
	list := "mysql://ro:se,cret1@tcp(10.0.0.2:3306)/wp, mysql://ro:secret2@tcp(10.0.0.3:3306)/wp"
	c, err := loadConfig(nil, env(map[string]string{"CALENDAR_DB": goodDB, "CALENDAR_DB_REPLICAS": list, "CALENDAR_REPLICA_MAX_LAG": "2s"}))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.DBReplicas) != 2 || c.DBReplicas[0] != "ro:se,cret1@tcp(10.0.0.2:3306)/wp" || c.ReplicaMaxLag != 2*time.Second {
		t.Fatalf("replicas %q, max lag %v", c.DBReplicas, c.ReplicaMaxLag)
	}
	if got := redactReplicas(list); strings.Contains(got, "secret") || strings.Contains(got, "cret1") {
		t.Errorf("redacted list shows a password: %s", got)
	}
	s := &scrubber{}
	s.add(list, false)
	if got := s.scrub("dial ro:se,cret1 and secret2"); strings.Contains(got, "cret1") || strings.Contains(got, "secret2") {
		t.Errorf("scrubbed text shows a password: %s", got)
	}
	for _, bad := range []map[string]string{
		{"CALENDAR_DB": "sqlite://x.db", "CALENDAR_DB_REPLICAS": "mysql://ro@tcp(h:1)/wp"},
		{"CALENDAR_DB": goodDB, "CALENDAR_DB_REPLICAS": "sqlite://y.db"},
		{"CALENDAR_DB": goodDB, "CALENDAR_DB_REPLICAS": "mysql://ro@tcp(h:1)/wp,mysql://ro@tcp(h:1)/wp"},
		{"CALENDAR_DB": goodDB, "CALENDAR_REPLICA_MAX_LAG": "0"},
	} {
		_, err := loadConfig(nil, env(bad))
		var ce *ConfigError
		if !errors.As(err, &ce) || !strings.Contains(ce.Var, "REPLICA") {
			t.Errorf("%v: got %v, want a ConfigError naming the replica setting", bad, err)
		}
	}
}
