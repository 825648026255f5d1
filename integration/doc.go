// Package integration holds pgcache's ecosystem tests: GORM, sqlx,
// XSAM/otelsql, sqlc-shaped code, PgBouncer, pgxpool, pgx's own features
// used through database/sql, and the Prometheus and OpenTelemetry metrics
// examples. Each test runs one scenario through pgx stdlib
// ("pgx") and through pgcache ("pgcache") and compares what they return.
//
// It is a module of its own, with a replace directive to the repository root,
// so that GORM, sqlx, OpenTelemetry and Prometheus never enter the dependency graph of
// pgcache's users. Run it from this directory:
//
//	go test -race ./...
//
// The tests start a throwaway PostgreSQL (see internal/pgtest) and, for the
// PgBouncer tests, a PgBouncer in transaction pooling mode in front of it.
// With $PGCACHE_TEST_DSN set they use that server, except the PgBouncer
// tests, which put PgBouncer in front of a throwaway cluster of their own.
package integration
