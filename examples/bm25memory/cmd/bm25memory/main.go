// Command bm25memory runs the example memory service: over HTTP
// (bm25memory -addr 127.0.0.1:8088, then membench run --system http --opt
// url=http://127.0.0.1:8088) or as JSON lines on stdin/stdout (membench run
// --system exec --opt cmd="bm25memory -stdio").
package main

import (
	"flag"
	"fmt"
	"net/http"
	"os"

	"github.com/membench/membench/examples/bm25memory"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8088", "listen address for HTTP")
	stdio := flag.Bool("stdio", false, "speak JSON lines on stdin/stdout instead of HTTP")
	flag.Parse()
	m := bm25memory.New()
	var err error
	if *stdio {
		err = m.ServeLines(os.Stdin, os.Stdout)
	} else {
		fmt.Fprintf(os.Stderr, "bm25memory: listening on http://%s\n", *addr)
		err = http.ListenAndServe(*addr, m.Handler())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bm25memory:", err)
		os.Exit(1)
	}
}
