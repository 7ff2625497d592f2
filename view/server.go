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
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/membench/membench"
	"github.com/membench/membench/runlog"
)

//go:embed assets/index.html assets/app.js assets/app.css
var assets embed.FS

var page = template.Must(template.ParseFS(assets, "assets/index.html"))

type pageData struct {
	Title string
	CSS   template.CSS
	JS    template.JS
	// Data and Chunks are the gzipped index and transcript chunks in
	// URL-safe base64 (characters the template leaves alone), only in an
	// exported file.
	Data   string
	Chunks []chunkData
	// Head is the landing page's data as plain JSON (the runs without
	// their questions, the pairs without their lists), so the first
	// screen is drawn as the page is read, before anything is unpacked
	// or fetched.
	Head template.JS
}

type chunkData struct{ ID, Data string }

// Encoded is a bundle ready to serve or export: the gzipped JSON of its
// index (everything but the transcripts) and of each transcript chunk,
// the chunks made when first asked for (a question page, or the export).
type Encoded struct {
	Title  string
	index  []byte
	head   []byte
	chunks [][]*lazyChunk // run -> chunk
	mu     sync.Mutex
	raw    int
	gz     int
}

// lazyChunk is one conversation's transcripts of one run, read from the
// run's transcripts file at their offsets and packed on first use.
type lazyChunk struct {
	qs   []*Q
	once sync.Once
	gz   []byte
	err  error
}

// Encode marshals and compresses the bundle's index; transcript chunks
// are read and packed when first needed.
func Encode(b *Bundle) (*Encoded, error) {
	e := &Encoded{}
	var ids []string
	// The index is the bundle with the transcripts left out.
	idx := *b
	idx.Runs = nil
	for _, r := range b.Runs {
		ids = append(ids, r.ID)
		rc := *r
		rc.Qs = make([]*Q, len(r.Qs))
		for i, q := range r.Qs {
			qc := *q
			qc.Tx = nil
			rc.Qs[i] = &qc
		}
		idx.Runs = append(idx.Runs, &rc)
		var lcs []*lazyChunk
		for _, qs := range r.chunkQs() {
			lcs = append(lcs, &lazyChunk{qs: qs})
		}
		e.chunks = append(e.chunks, lcs)
	}
	z, err := e.pack(&idx)
	if err != nil {
		return nil, err
	}
	e.index = z
	if e.head, err = json.Marshal(headOf(&idx)); err != nil {
		return nil, err
	}
	e.Title = strings.Join(ids, " vs ")
	if len(ids) > 3 {
		e.Title = fmt.Sprintf("membench view: %d runs", len(ids))
	}
	return e, nil
}

// headOf is the index without what only the later pages need: the
// questions, the conversations and the A/B cells' lists.
func headOf(idx *Bundle) *Bundle {
	h := *idx
	h.Convs = nil
	h.Runs = nil
	for _, r := range idx.Runs {
		rc := *r
		rc.Qs = nil
		h.Runs = append(h.Runs, &rc)
	}
	h.Pairs = nil
	for _, p := range idx.Pairs {
		pc := *p
		pc.Cells = nil
		h.Pairs = append(h.Pairs, &pc)
	}
	return &h
}

// chunk returns run i's chunk k, gzipped, reading it on first use.
func (e *Encoded) chunk(i, k int) ([]byte, error) {
	c := e.chunks[i][k]
	c.once.Do(func() {
		var read []*Q // questions whose transcripts this chunk reads
		for _, q := range c.qs {
			if q.Tx == nil {
				read = append(read, q)
			}
		}
		if c.err = loadChunk(c.qs); c.err != nil {
			return
		}
		p := &chunk{Ctx: []string{}, Items: [][]membench.Item{}, seen: map[string]int{}}
		for _, q := range c.qs {
			p.add(q.Tx)
		}
		c.gz, c.err = e.pack(p)
		// The packed chunk is all a page needs again: the transcripts can go.
		for _, q := range read {
			q.Tx = nil
		}
	})
	return c.gz, c.err
}

func (e *Encoded) pack(v any) ([]byte, error) {
	js, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(js)
	if err := zw.Close(); err != nil {
		return nil, err
	}
	e.mu.Lock()
	e.raw += len(js)
	e.gz += buf.Len()
	e.mu.Unlock()
	return buf.Bytes(), nil
}

// chunk is one conversation's transcripts in question order. Contexts and
// item lists are stored once per chunk: a system that reads the whole
// conversation gives every question the same ones.
type chunk struct {
	Ctx   []string          `json:"ctx"`
	Items [][]membench.Item `json:"items"`
	Tx    []*chunkTx        `json:"tx"`
	seen  map[string]int
}

// chunkTx is a transcript whose context and items are indices into the chunk.
type chunkTx struct {
	*runlog.Transcript
	C int `json:"c"`
	I int `json:"i"`
}

func (c *chunk) add(t *runlog.Transcript) {
	if t == nil {
		c.Tx = append(c.Tx, nil)
		return
	}
	tc := *t
	ct := &chunkTx{Transcript: &tc, C: c.intern("c\x00"+t.Context, func() { c.Ctx = append(c.Ctx, t.Context) }, len(c.Ctx))}
	items, _ := json.Marshal(t.Items)
	ct.I = c.intern("i\x00"+string(items), func() { c.Items = append(c.Items, t.Items) }, len(c.Items))
	tc.Context, tc.Items = "", nil
	c.Tx = append(c.Tx, ct)
}

func (c *chunk) intern(key string, store func(), next int) int {
	if i, ok := c.seen[key]; ok {
		return i
	}
	store()
	c.seen[key] = next
	return next
}

// pageOf is the page's template data around the landing page's data
// (none while the runs are read).
func pageOf(title string, head []byte) pageData {
	js, _ := assets.ReadFile("assets/app.js")
	css, _ := assets.ReadFile("assets/app.css")
	// json.Marshal escapes <, > and &, so the JSON cannot end its script element.
	return pageData{Title: title, CSS: template.CSS(css), JS: template.JS(js), Head: template.JS(head)}
}

func (e *Encoded) render(w io.Writer, inline bool) error {
	d := pageOf(e.Title, e.head)
	if inline {
		d.Data = base64.RawURLEncoding.EncodeToString(e.index)
		for i, run := range e.chunks {
			for k := range run {
				c, err := e.chunk(i, k)
				if err != nil {
					return err
				}
				d.Chunks = append(d.Chunks, chunkData{ID: fmt.Sprintf("tx-%d-%d", i, k), Data: base64.RawURLEncoding.EncodeToString(c)})
			}
		}
	}
	return page.Execute(w, d)
}

// Export writes one self-contained HTML file with every view.
func (e *Encoded) Export(w io.Writer) error { return e.render(w, true) }

// Handler serves the app: the page, its index and the transcript chunks.
func (e *Encoded) Handler() http.Handler {
	var pg bytes.Buffer
	if err := e.render(&pg, false); err != nil {
		panic(err) // the embedded template is fixed; tests render it
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) { send(w, htmlType, pg.Bytes()) })
	mux.HandleFunc("GET /data.json", func(w http.ResponseWriter, r *http.Request) { sendGzip(w, r, e.index) })
	mux.HandleFunc("GET /tx/{run}/{chunk}", func(w http.ResponseWriter, r *http.Request) {
		i, err1 := strconv.Atoi(r.PathValue("run"))
		k, err2 := strconv.Atoi(strings.TrimSuffix(r.PathValue("chunk"), ".json"))
		if err1 != nil || err2 != nil || i < 0 || i >= len(e.chunks) || k < 0 || k >= len(e.chunks[i]) {
			http.NotFound(w, r)
			return
		}
		gz, err := e.chunk(i, k)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		sendGzip(w, r, gz)
	})
	return mux
}

const htmlType, jsonType = "text/html; charset=utf-8", "application/json"

// send answers with body, never cached: a page reflects the runs as read now.
func send(w http.ResponseWriter, contentType string, body []byte) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Cache-Control", "no-store")
	w.Write(body)
}

// sendGzip sends gzipped JSON, decompressed for a client that refuses gzip.
func sendGzip(w http.ResponseWriter, r *http.Request, gz []byte) {
	if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		w.Header().Set("Content-Encoding", "gzip")
		send(w, jsonType, gz)
		return
	}
	w.Header().Set("Content-Type", jsonType)
	w.Header().Set("Cache-Control", "no-store")
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	io.Copy(w, zr)
}

// Listen opens a loopback listener on port (0 = a free one).
func Listen(port int) (net.Listener, error) {
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return nil, fmt.Errorf("--port %d: %w (choose another port, or 0 for a free one)", port, err)
	}
	return ln, nil
}

// serve answers h on ln until ctx ends, then shuts the server down.
func serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{Handler: OwnHostOnly(ln.Addr(), h), ReadHeaderTimeout: 10 * time.Second}
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

// Live is a view served while its runs are read: the server answers at
// once, with a page that says how many runs are read so far; the landing
// page's data (head.json) comes as soon as every run is read, the
// questions (data.json) once they are packed too.
type Live struct {
	runs    int
	read    atomic.Int64
	headSet chan struct{} // closed once head (or headErr) is set
	done    chan struct{} // closed once enc (or err) is set
	head    []byte
	headErr error
	enc     *Encoded
	err     error
	loading []byte // the page served until then
	full    http.Handler
}

// Start reads the runs of dirs in the background; Serve answers meanwhile.
func Start(dirs []string, opt Options) *Live {
	l := &Live{runs: len(dirs), headSet: make(chan struct{}), done: make(chan struct{})}
	var pg bytes.Buffer
	if err := page.Execute(&pg, pageOf(fmt.Sprintf("membench view: %d runs", len(dirs)), nil)); err != nil {
		panic(err) // the embedded template is fixed; tests render it
	}
	l.loading = pg.Bytes()
	then := opt.progress // a test's hook
	opt.progress = func() {
		l.read.Add(1)
		if then != nil {
			then()
		}
	}
	go l.build(dirs, opt)
	return l
}

func (l *Live) build(dirs []string, opt Options) {
	defer close(l.done)
	b, err := Build(dirs, opt)
	if err == nil {
		l.head, err = json.Marshal(headOf(b))
	}
	l.headErr, l.err = err, err
	close(l.headSet)
	if err != nil {
		return
	}
	if opt.packing != nil {
		opt.packing()
	}
	if l.enc, l.err = Encode(b); l.err == nil {
		l.full = l.enc.Handler()
	}
}

// Done is closed when the runs are read and packed, or failed (Err).
func (l *Live) Done() <-chan struct{} { return l.done }

// Err is why the runs could not be shown, once Done is closed.
func (l *Live) Err() error { return l.err }

// Handler serves the loading page, the progress and the landing data
// while the runs are read, then the app as Encoded.Handler does.
func (l *Live) Handler() http.Handler {
	mux := http.NewServeMux()
	// wait blocks a request until ch is closed, then answers *err when
	// it is set; false when the request is answered or the client left.
	wait := func(w http.ResponseWriter, r *http.Request, ch chan struct{}, err *error) bool {
		select {
		case <-ch:
		case <-r.Context().Done():
			return false
		}
		if *err != nil {
			http.Error(w, "membench view cannot show the runs: "+(*err).Error(), http.StatusInternalServerError)
			return false
		}
		return true
	}
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-l.done:
			if l.err == nil {
				l.full.ServeHTTP(w, r)
				return
			}
		default:
		}
		send(w, htmlType, l.loading)
	})
	mux.HandleFunc("GET /status.json", func(w http.ResponseWriter, r *http.Request) {
		send(w, jsonType, fmt.Appendf(nil, `{"runs":%d,"read":%d}`, l.runs, l.read.Load()))
	})
	mux.HandleFunc("GET /head.json", func(w http.ResponseWriter, r *http.Request) {
		if wait(w, r, l.headSet, &l.headErr) {
			send(w, jsonType, l.head)
		}
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if wait(w, r, l.done, &l.err) {
			l.full.ServeHTTP(w, r)
		}
	})
	return mux
}

// Serve serves the view on ln until ctx ends.
func (l *Live) Serve(ctx context.Context, ln net.Listener) error {
	return serve(ctx, ln, l.Handler())
}

// OwnHostOnly answers only requests whose Host is the server's own
// address: 127.0.0.1, localhost or [::1] with its port, or the address it
// is bound to. Any other name gets 403: a web page whose domain has been
// pointed at 127.0.0.1 (DNS rebinding) would otherwise read the runs
// through the visitor's browser.
func OwnHostOnly(addr net.Addr, h http.Handler) http.Handler {
	bound, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		bound, port = addr.String(), ""
	}
	own := map[string]bool{}
	for _, name := range []string{"127.0.0.1", "localhost", "::1", bound} {
		own[net.JoinHostPort(name, port)] = true
		if port == "80" { // a browser leaves the default port out
			if strings.Contains(name, ":") {
				name = "[" + name + "]"
			}
			own[name] = true
		}
	}
	shown := "http://" + net.JoinHostPort(bound, port) + "/"
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !own[strings.ToLower(r.Host)] {
			http.Error(w, fmt.Sprintf("membench view answers only to its own address; open %s", shown), http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
}
