package testenv

import (
	"errors"
	"testing"
)

func TestAddrInUseKnowsEachServersWording(t *testing.T) {
	for _, msg := range []string{
		"listen tcp 127.0.0.1:20001: bind: address already in use",                                              // Go (calendard)
		"# Warning: Could not create server TCP listening socket 127.0.0.1:20001: bind: Address already in use", // Redis
		"[ERROR] Can't start server: Bind on TCP/IP port. Got error: 98: Address already in use",                // MariaDB
		"Error: Address already in use (os error 98)",                                                           // Meilisearch
	} {
		if !AddrInUse(msg) {
			t.Errorf("AddrInUse(%q) = false", msg)
		}
	}
	if AddrInUse("Access denied for user 'root'@'localhost'") {
		t.Error("AddrInUse took another failure for a taken port")
	}
}

func TestOnFreePortDrawsAgainOnlyWhileThePortIsTaken(t *testing.T) {
	var ports []int
	err := OnFreePort(func(port int) error {
		ports = append(ports, port)
		if len(ports) < 3 {
			return errors.New("bind: Address already in use")
		}
		return nil
	})
	if err != nil || len(ports) != 3 || ports[0] == ports[1] || ports[1] == ports[2] {
		t.Fatalf("err %v, ports %v: want success on the third, each port new", err, ports)
	}
	calls := 0
	err = OnFreePort(func(int) error { calls++; return errors.New("permission denied") })
	if err == nil || calls != 1 {
		t.Fatalf("another failure: err %v after %d calls, want it returned after 1", err, calls)
	}
}

// A server whose port another server of its kind holds must fail its start as a taken port (and
// be started elsewhere), never take the other one's answers for its own.
func TestAServerNeverMistakesAnotherForItself(t *testing.T) {
	SkipIfShort(t, "redis-server, mariadbd and Meilisearch")
	t.Run("redis", func(t *testing.T) {
		a := NewRedis(t)
		b := &Redis{Dir: t.TempDir(), Port: a.Port, bin: a.bin}
		err := b.Restart()
		if err == nil {
			b.Kill()
			t.Fatal("started on the port another redis-server holds")
		}
		if !AddrInUse(err.Error()) {
			t.Fatalf("want a taken port, got %v", err)
		}
	})
	t.Run("mariadb", func(t *testing.T) {
		a, err := StartMariaDB(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		defer a.Stop()
		b, err := installMariaDB(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		err = b.startOn(a.Port)
		if err == nil {
			b.Stop()
			t.Fatal("started on the port another mariadbd holds")
		}
		if !AddrInUse(err.Error()) {
			t.Fatalf("want a taken port, got %v", err)
		}
	})
	t.Run("meilisearch", func(t *testing.T) {
		a, err := StartMeilisearch(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		defer a.Kill()
		b := &Meilisearch{Key: "another-key-0123456789", Dir: t.TempDir(), URL: a.URL}
		b.args = append([]string{}, a.args...)
		for i, arg := range b.args {
			switch {
			case i > 0 && b.args[i-1] == "--master-key":
				b.args[i] = b.Key
			case i > 0 && (b.args[i-1] == "--db-path" || b.args[i-1] == "--dump-dir" || b.args[i-1] == "--snapshot-dir"):
				b.args[i] = b.Dir + "/" + arg[len(a.Dir):]
			}
		}
		err = b.Start()
		if err == nil {
			b.Kill()
			t.Fatal("started on the port another Meilisearch holds")
		}
		if !AddrInUse(err.Error()) {
			t.Fatalf("want a taken port, got %v", err)
		}
	})
}
