// Package browsertest starts the real browser the view's tests drive:
// Debian's chromium, headless, with a fresh profile.
package browsertest

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// Chromium finds Debian's chromium; the browser tests skip without it.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("chromium is not installed (apt-get install -y chromium; .ci/run does it): the browser test needs a real browser")
	return ""
}

// Start starts a headless chromium (exe) with a fresh profile and a
// window of width × height.
func Start(t testing.TB, exe string, width, height int) (context.Context, context.CancelFunc) {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(width, height),
	}
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	return ctx, func() { cancel(); acancel() }
}

// ScreenshotDir is where screenshots go: dir (the test reads
// $MEMBENCH_SCREENSHOTS; =docs refreshes the docs' pictures) made
// absolute, so a test that changes directory later writes there too;
// with dir "", the test's temporary directory.
func ScreenshotDir(t testing.TB, dir string) string {
	if dir == "" {
		return t.TempDir()
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}
