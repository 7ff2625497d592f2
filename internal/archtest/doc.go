// Package archtest holds no code: its test checks that dependencies point
// inward (only cmd/ and cmd/membench use the command-line packages, readers
// of finished runs never pull in the engine, the root package membench is
// the bottom layer with leaf utilities only, and the run log sits on it)
// and that membench's own environment variables are read only at the edge
// (cmd/membench/clienv).
package archtest
