// Package archtest holds no code: its test checks that dependencies point
// inward (only cmd/ and cmd/membench use the command-line packages, readers
// of finished runs never pull in the engine, the run log imports only the
// types it stores and leaf utilities) and that membench's own
// environment variables are read only at the edge (cmd/membench/clienv).
package archtest
