package view

import (
	"bytes"
	"compress/gzip"
	"context"
	"embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

//go:embed assets/index.html assets/app.js assets/app.css
var assets embed.FS

var page = template.Must(template.ParseFS(assets, "assets/index.html"))

type pageData struct {
	Title string
	CSS   template.CSS
	JS    template.JS
	// Data is the gzipped bundle in URL-safe base64 (characters the
	// template leaves alone), only in an exported file.
	Data string
}

// Encoded is a bundle ready to serve or export: its gzipped JSON.
type Encoded struct {
	Title string
	gz    []byte
	raw   int
}

// Encode marshals and compresses the bundle once.
func Encode(b *Bundle) (*Encoded, error) {
	js, err := json.Marshal(b)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(js)
	if err := zw.Close(); err != nil {
		return nil, err
	}
	var ids []string
	for _, r := range b.Runs {
		ids = append(ids, r.ID)
	}
	return &Encoded{Title: strings.Join(ids, " vs "), gz: buf.Bytes(), raw: len(js)}, nil
}

// Sizes reports the bundle's JSON size and its gzipped size in bytes.
func (e *Encoded) Sizes() (raw, gz int) { return e.raw, len(e.gz) }

func (e *Encoded) render(w io.Writer, inline bool) error {
	js, _ := assets.ReadFile("assets/app.js")
	css, _ := assets.ReadFile("assets/app.css")
	d := pageData{Title: e.Title, CSS: template.CSS(css), JS: template.JS(js)}
	if inline {
		d.Data = base64.RawURLEncoding.EncodeToString(e.gz)
	}
	return page.Execute(w, d)
}

// Export writes one self-contained HTML file with every view.
func (e *Encoded) Export(w io.Writer) error { return e.render(w, true) }

// Handler serves the app: the page and its data.
func (e *Encoded) Handler() http.Handler {
	var pg bytes.Buffer
	if err := e.render(&pg, false); err != nil {
		panic(err) // the embedded template is fixed; tests render it
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.Write(pg.Bytes())
	})
	mux.HandleFunc("GET /data.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(e.gz)
			return
		}
		zr, err := gzip.NewReader(bytes.NewReader(e.gz))
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		io.Copy(w, zr)
	})
	return mux
}

// Listen opens a loopback listener on port (0 = a free one).
func Listen(port int) (net.Listener, error) {
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return nil, fmt.Errorf("--port %d: %w (choose another port, or 0 for a free one)", port, err)
	}
	return ln, nil
}

// Serve serves the app on ln until ctx ends.
func (e *Encoded) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{Handler: e.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
