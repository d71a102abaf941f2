// Package pgtest gives tests a real PostgreSQL: the server named by
// TETHER_TEST_PG (a connection string) when it is set, else a private
// server this package starts (initdb in a temporary directory, listening
// only on a Unix socket there, stopped when the tests end). When neither
// is possible, tests skip with the command that installs PostgreSQL.
//
// One server serves a whole test binary (see Main); each test gets its own
// database (Database), dropped when it ends.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvDSN names the variable holding the connection string of an existing
// server. Main sets it for the processes a test starts, so that they
// share the server instead of starting their own.
const EnvDSN = "TETHER_TEST_PG"

// Install is the command that makes the private server possible.
const Install = "apt-get install -y postgresql"

var (
	serverDSN string // the admin connection string, "" when there is none
	whyNot    string // why there is no server
	installed bool   // initdb and pg_ctl were found
)

// Main runs the package's tests with a PostgreSQL server: call it from
// TestMain as os.Exit(pgtest.Main(m)).
func Main(m *testing.M) int {
	if dsn := os.Getenv(EnvDSN); dsn != "" {
		serverDSN = dsn
		return m.Run()
	}
	stop, err := start()
	if err != nil {
		whyNot = err.Error()
		return m.Run()
	}
	defer stop()
	return m.Run()
}

// Database creates an empty database for t on the shared server and
// returns its connection string; it is dropped when t ends. Without a
// server, t is skipped with the reason and the install command.
func Database(t testing.TB) string {
	t.Helper()
	if serverDSN == "" && installed && os.Getenv("CI") != "" {
		// CI installs PostgreSQL: a server that does not start there is a
		// failure to see, not a reason to skip.
		t.Fatalf("pgtest: PostgreSQL is installed but the private server did not start: %s", whyNot)
	}
	if serverDSN == "" {
		t.Skipf("no PostgreSQL: %s; install it (%s) or set %s to a server's connection string", whyNot, Install, EnvDSN)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "tether_test_" + hex.EncodeToString(b[:])
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, serverDSN)
	if err != nil {
		t.Fatalf("pgtest: connecting to %s: %v", serverDSN, err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		admin, err := pgx.Connect(ctx, serverDSN)
		if err != nil {
			t.Errorf("pgtest: dropping %s: %v", name, err)
			return
		}
		defer admin.Close(ctx)
		if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("pgtest: dropping %s: %v", name, err)
		}
	})
	return withDatabase(serverDSN, name)
}

// withDatabase returns dsn, a URL or keyword/value connection string,
// connecting to database db instead.
func withDatabase(dsn, db string) string {
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		u.Path = "/" + db
		return u.String()
	}
	return dsn + " dbname=" + db // in keyword/value form the last setting wins
}

// binDir finds the directory holding initdb and pg_ctl: PATH first, then
// Debian's versioned directories, newest first.
func binDir() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		if _, err := exec.LookPath("pg_ctl"); err == nil {
			return filepath.Dir(p), nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	return "", errors.New("initdb and pg_ctl not found")
}

func version(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

// start runs initdb and pg_ctl in a new temporary directory and returns
// the function that stops the server and removes the directory.
// PostgreSQL refuses to run as root; as root the server runs as nobody.
func start() (stop func(), err error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	installed = true
	dir, err := os.MkdirTemp("", "tether-pg-")
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(dir)
		}
	}()
	var asUser []string
	if os.Getuid() == 0 {
		u, err := user.Lookup("nobody")
		if err != nil {
			return nil, fmt.Errorf("running as root and no user nobody to run the server as: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			return nil, err
		}
		runuser, err := exec.LookPath("runuser")
		if err != nil {
			return nil, fmt.Errorf("running as root and no runuser to drop privileges: %w", err)
		}
		asUser = []string{runuser, "-u", "nobody", "--"}
	}
	run := func(name string, args ...string) error {
		argv := append(append(asUser[:len(asUser):len(asUser)], filepath.Join(bin, name)), args...)
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "LC_ALL=C")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %v\n%s", name, err, out)
		}
		return nil
	}
	data := filepath.Join(dir, "data")
	if err := run("initdb", "-D", data, "-U", "tether", "--auth=trust", "-E", "UTF8", "--no-sync"); err != nil {
		return nil, err
	}
	// Unix socket in dir only; fsync off: the tests kill workers, never
	// the server, and a test server need not survive a power cut.
	opts := "-k " + dir + " -c listen_addresses='' -c fsync=off -c max_connections=200"
	if err := run("pg_ctl", "-D", data, "-o", opts, "-l", filepath.Join(dir, "log"), "-w", "-t", "60", "start"); err != nil {
		return nil, err
	}
	serverDSN = fmt.Sprintf("host=%s user=tether dbname=postgres", dir)
	os.Setenv(EnvDSN, serverDSN)
	return func() {
		if err := run("pg_ctl", "-D", data, "-m", "immediate", "-w", "-t", "30", "stop"); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest:", err)
		}
		time.Sleep(50 * time.Millisecond)
		os.RemoveAll(dir)
	}, nil
}
