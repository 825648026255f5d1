// Package integration holds pgcache's ecosystem tests: GORM, sqlx,
// XSAM/otelsql, sqlc-shaped code, PgBouncer, pgxpool and pgx's own features
// used through database/sql. Each test runs one scenario through pgx stdlib
// ("pgx") and through pgcache ("pgcache") and compares what they return.
//
// It is a module of its own, with a replace directive to the repository root,
// so that GORM, sqlx and OpenTelemetry never enter the dependency graph of
// pgcache's users. Run it from this directory:
//
//	go test -race ./...
//
// The tests start a throwaway PostgreSQL (see internal/pgtest) and, for the
// PgBouncer tests, a PgBouncer in transaction pooling mode in front of it.
package integration
