// The CI's cross-system type check, a module of its own so that the
// edge's go.mod carries no CI tooling.
module github.com/lastmile-edge/lastmile/ci/crosscheck

go 1.26.8

require golang.org/x/tools v0.52.0

require (
	golang.org/x/mod v0.42.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
)
