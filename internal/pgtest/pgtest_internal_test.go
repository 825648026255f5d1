package pgtest

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// fakeBin makes dir holding executable stand-ins for tools.
func fakeBin(t *testing.T, dir string, tools ...string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools {
		if err := os.WriteFile(filepath.Join(dir, tool), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestFindBin(t *testing.T) {
	tmp := t.TempDir()
	all := serverTools

	// A Debian-style root: 15 must beat 9.6 (not a string comparison), and
	// 16 lacks postgres (a client-only install).
	root := filepath.Join(tmp, "lib")
	fakeBin(t, filepath.Join(root, "9.6", "bin"), all...)
	v15 := fakeBin(t, filepath.Join(root, "15", "bin"), all...)
	fakeBin(t, filepath.Join(root, "16", "bin"), "initdb", "pg_ctl")
	fakeBin(t, filepath.Join(root, "common", "bin"), all...)
	emptyRoot := filepath.Join(tmp, "empty")

	onPath := fakeBin(t, filepath.Join(tmp, "path"), all...)
	pgCtlOnly := fakeBin(t, filepath.Join(tmp, "usrbin"), "pg_ctl")
	// Links to a full installation, and a pg_ctl-only link whose siblings
	// are real files beside it.
	linkDir := fakeBin(t, filepath.Join(tmp, "links"))
	mixedDir := fakeBin(t, filepath.Join(tmp, "mixed"), "initdb", "postgres")
	for _, tool := range all {
		if err := os.Symlink(filepath.Join(onPath, tool), filepath.Join(linkDir, tool)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(pgCtlOnly, "pg_ctl"), filepath.Join(mixedDir, "pg_ctl")); err != nil {
		t.Fatal(err)
	}
	override := fakeBin(t, filepath.Join(tmp, "override"), all...)

	for _, tt := range []struct {
		name     string
		override string
		pgCtl    string // what pg_ctl resolves to on $PATH; "" for none
		root     string
		want     string
		wantErr  string
		noServer bool // the error wraps ErrNoServer
	}{
		{name: "override wins", override: override, pgCtl: filepath.Join(onPath, "pg_ctl"), root: root, want: override},
		{name: "override incomplete", override: pgCtlOnly, root: root, wantErr: "no executable initdb, postgres in " + pgCtlOnly},
		{name: "override missing", override: filepath.Join(tmp, "nope"), root: root, wantErr: "PGCACHE_PG_BIN"},
		{name: "path", pgCtl: filepath.Join(onPath, "pg_ctl"), root: root, want: onPath},
		{name: "path symlinks resolved", pgCtl: filepath.Join(linkDir, "pg_ctl"), root: root, want: onPath},
		{name: "path symlink to incomplete dir", pgCtl: filepath.Join(mixedDir, "pg_ctl"), root: root, want: mixedDir},
		{name: "path incomplete falls back to root", pgCtl: filepath.Join(pgCtlOnly, "pg_ctl"), root: root, want: v15},
		{name: "highest version in root", root: root, want: v15},
		{name: "nothing", root: emptyRoot, wantErr: "no pg_ctl on $PATH", noServer: true},
		{name: "nothing complete", pgCtl: filepath.Join(pgCtlOnly, "pg_ctl"), root: emptyRoot, noServer: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			lookPath := func(name string) (string, error) {
				if name != "pg_ctl" || tt.pgCtl == "" {
					return "", exec.ErrNotFound
				}
				return tt.pgCtl, nil
			}
			got, err := findBin(tt.override, lookPath, tt.root)
			if tt.want != "" {
				if err != nil || got != tt.want {
					t.Fatalf("findBin = %q, %v; want %q", got, err, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("findBin = %q, want an error", got)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q does not contain %q", err, tt.wantErr)
			}
			if errors.Is(err, ErrNoServer) != tt.noServer {
				t.Errorf("errors.Is(%q, ErrNoServer) = %v, want %v", err, !tt.noServer, tt.noServer)
			}
		})
	}
}

func TestParseServerVersion(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)\n", "15.18"},
		{"postgres (PostgreSQL) 16.4\n", "16.4"},
		{"postgres (PostgreSQL) 18devel", "18devel"},
		{"postgres (PostgreSQL) 9.6.24", "9.6.24"},
		{"postgres: command not found", ""},
		{"postgres (PostgreSQL) ", ""},
	} {
		got, err := parseServerVersion(tt.in)
		if got != tt.want || (err != nil) != (tt.want == "") {
			t.Errorf("parseServerVersion(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

var testDSNs = []struct {
	dir, dsn, url string
}{
	{
		dir: "/tmp/pgtest-123",
		dsn: "host=/tmp/pgtest-123 port=5432 user=postgres dbname=postgres sslmode=disable",
		url: "postgres://postgres@/postgres?host=%2Ftmp%2Fpgtest-123&port=5432&sslmode=disable",
	},
	{
		dir: "/var/tmp/with space",
		dsn: "host='/var/tmp/with space' port=5432 user=postgres dbname=postgres sslmode=disable",
		url: "postgres://postgres@/postgres?host=%2Fvar%2Ftmp%2Fwith%20space&port=5432&sslmode=disable",
	},
	{
		dir: `/tmp/it's\odd`,
		dsn: `host='/tmp/it\'s\\odd' port=5432 user=postgres dbname=postgres sslmode=disable`,
		url: "postgres://postgres@/postgres?host=%2Ftmp%2Fit%27s%5Codd&port=5432&sslmode=disable",
	},
}

func TestDSNFormat(t *testing.T) {
	for _, tt := range testDSNs {
		t.Run(tt.dir, func(t *testing.T) {
			if got := keywordDSN(tt.dir); got != tt.dsn {
				t.Errorf("keywordDSN = %s\n                       want %s", got, tt.dsn)
			}
			if got := urlDSN(tt.dir); got != tt.url {
				t.Errorf("urlDSN = %s\n                   want %s", got, tt.url)
			}
			checkParsedDSNs(t, tt.dir)
		})
	}
}

// FuzzDSNFormat checks that pgx reads back whatever socket directory the
// DSNs carry, however odd its name.
func FuzzDSNFormat(f *testing.F) {
	for _, tt := range testDSNs {
		f.Add(tt.dir)
	}
	f.Add("/tmp/tab\there")
	f.Add("/tmp/'quoted'/ \\")
	f.Fuzz(func(t *testing.T, dir string) {
		// A comma separates hosts in both forms; NUL ends C strings.
		if !strings.HasPrefix(dir, "/") || strings.ContainsAny(dir, ",\x00") {
			t.Skip()
		}
		checkParsedDSNs(t, dir)
	})
}

// checkParsedDSNs checks that both DSN forms mean the same thing to pgx.
func checkParsedDSNs(t *testing.T, dir string) {
	t.Helper()
	for _, s := range []string{keywordDSN(dir), urlDSN(dir)} {
		cfg, err := pgconn.ParseConfig(s)
		if err != nil {
			t.Fatalf("pgconn.ParseConfig(%q): %v", s, err)
		}
		if cfg.Host != dir || cfg.Port != Port || cfg.User != "postgres" || cfg.Database != "postgres" || cfg.TLSConfig != nil {
			t.Errorf("pgconn.ParseConfig(%q) = host %q port %d user %q database %q tls %v",
				s, cfg.Host, cfg.Port, cfg.User, cfg.Database, cfg.TLSConfig != nil)
		}
	}
}

func TestWithDBName(t *testing.T) {
	for _, tt := range []struct{ dsn, name, want string }{
		{
			dsn:  "host=/tmp/x port=5432 user=postgres dbname=postgres sslmode=disable",
			name: "pgtest_1_2",
			want: "host=/tmp/x port=5432 user=postgres dbname=postgres sslmode=disable dbname=pgtest_1_2",
		},
		{dsn: "host=/tmp/x ", name: "odd name", want: "host=/tmp/x dbname='odd name'"},
		{
			dsn:  "postgres://postgres@/postgres?host=%2Ftmp%2Fx&port=5432",
			name: "pgtest_1_2",
			want: "postgres://postgres@/pgtest_1_2?host=%2Ftmp%2Fx&port=5432",
		},
		{
			dsn:  "postgresql://u:p@db.example:6432?dbname=a&sslmode=require",
			name: "b",
			want: "postgresql://u:p@db.example:6432?dbname=b&sslmode=require",
		},
		// pgx reads '+' in a URL query as itself: a space must be %20.
		{
			dsn:  "postgres://u@db.example/?dbname=a&sslmode=disable",
			name: "odd name",
			want: "postgres://u@db.example/?dbname=odd%20name&sslmode=disable",
		},
	} {
		got, err := withDBName(tt.dsn, tt.name)
		if err != nil || got != tt.want {
			t.Errorf("withDBName(%q, %q) = %q, %v; want %q", tt.dsn, tt.name, got, err, tt.want)
			continue
		}
		cfg, err := pgconn.ParseConfig(got)
		if err != nil || cfg.Database != tt.name {
			t.Errorf("pgconn.ParseConfig(%q) database = %v, want %q", got, err, tt.name)
		}
	}
}

func TestReapStale(t *testing.T) {
	base := t.TempDir()
	// A PID that existed and is gone: a child we started and waited for.
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("cannot run true:", err)
	}
	dead := strconv.Itoa(cmd.ProcessState.Pid())

	mkdir := func(name, owner string) string {
		dir := filepath.Join(base, name)
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if owner != "" {
			if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(owner), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	stale := mkdir(dirPrefix+"stale", dead)
	live := mkdir(dirPrefix+"live", strconv.Itoa(os.Getpid()))
	starting := mkdir(dirPrefix+"starting", "")
	other := mkdir("other", dead)

	reapStale(base, t.TempDir(), nil)

	for dir, wantGone := range map[string]bool{stale: true, live: false, starting: false, other: false} {
		_, err := os.Stat(dir)
		if gone := errors.Is(err, os.ErrNotExist); gone != wantGone {
			t.Errorf("%s: removed = %v, want %v", filepath.Base(dir), gone, wantGone)
		}
	}
}
