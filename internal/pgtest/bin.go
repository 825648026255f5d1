package pgtest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Environment variables read by this package.
const (
	// EnvBin names a directory holding initdb, pg_ctl and postgres. It
	// overrides the search described at [FindBin].
	EnvBin = "PGCACHE_PG_BIN"
	// EnvDSN points tests at an existing server instead of a throwaway one.
	EnvDSN = "PGCACHE_TEST_DSN"
	// EnvRequireDB set to 1 makes a missing server a failure, as in CI.
	EnvRequireDB = "PGCACHE_REQUIRE_DB"
)

// debianRoot is where Debian and Ubuntu install each server major version,
// as <debianRoot>/<version>/bin. Those directories are not on $PATH.
const debianRoot = "/usr/lib/postgresql"

// serverTools must all be in a directory for it to count as a server
// installation. Client-only packages ship pg_ctl-less bin directories, and
// some distributions link pg_ctl alone into /usr/bin.
var serverTools = []string{"initdb", "pg_ctl", "postgres"}

// FindBin returns the directory holding the PostgreSQL server binaries:
// $PGCACHE_PG_BIN if set, else the directory of pg_ctl on $PATH (after
// links), else the highest version under /usr/lib/postgresql/*/bin. The
// error wraps [ErrNoServer] when none of these exists; a $PGCACHE_PG_BIN
// that does not hold the binaries is a different error, because someone
// asked for it.
func FindBin() (string, error) {
	return findBin(os.Getenv(EnvBin), exec.LookPath, debianRoot)
}

func findBin(override string, lookPath func(string) (string, error), root string) (string, error) {
	if override != "" {
		if err := hasServerTools(override); err != nil {
			return "", fmt.Errorf("pgtest: $%s=%q: %w", EnvBin, override, err)
		}
		return override, nil
	}

	if p, err := lookPath("pg_ctl"); err == nil {
		// Prefer where a linked pg_ctl points (/usr/local/bin/pg_ctl ->
		// /usr/lib/postgresql/15/bin/pg_ctl): it names the installation.
		if real, err := filepath.EvalSymlinks(p); err == nil {
			if dir := filepath.Dir(real); hasServerTools(dir) == nil {
				return dir, nil
			}
		}
		if dir := filepath.Dir(p); hasServerTools(dir) == nil {
			return dir, nil
		}
	}

	dirs, _ := filepath.Glob(filepath.Join(root, "*", "bin"))
	var best string
	var bestVersion []int
	for _, dir := range dirs {
		v, ok := parseDirVersion(filepath.Base(filepath.Dir(dir)))
		if !ok || hasServerTools(dir) != nil {
			continue
		}
		if best == "" || compareVersions(v, bestVersion) > 0 {
			best, bestVersion = dir, v
		}
	}
	if best == "" {
		return "", fmt.Errorf("%w: no pg_ctl on $PATH and no server in %s/*/bin; install PostgreSQL or set $%s",
			ErrNoServer, root, EnvBin)
	}
	return best, nil
}

// hasServerTools reports which of [serverTools] dir lacks.
func hasServerTools(dir string) error {
	var missing []string
	for _, tool := range serverTools {
		fi, err := os.Stat(filepath.Join(dir, tool))
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
			missing = append(missing, tool)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("no executable %s in %s", strings.Join(missing, ", "), dir)
	}
	return nil
}

// parseDirVersion parses a Debian version directory name such as "15" or
// "9.6". Versions compare numerically, so 15 beats 9.6.
func parseDirVersion(name string) ([]int, bool) {
	var v []int
	for part := range strings.SplitSeq(name, ".") {
		n, err := strconv.Atoi(part)
		if err != nil || n < 0 {
			return nil, false
		}
		v = append(v, n)
	}
	return v, true
}

func compareVersions(a, b []int) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return a[i] - b[i]
		}
	}
	return len(a) - len(b)
}

// parseServerVersion extracts the version from `postgres --version`, whose
// output looks like "postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)".
func parseServerVersion(out string) (string, error) {
	_, rest, ok := strings.Cut(out, "(PostgreSQL) ")
	if fields := strings.Fields(rest); ok && len(fields) > 0 {
		return fields[0], nil
	}
	return "", errors.New("pgtest: cannot find a version in postgres --version output " + strconv.Quote(out))
}
