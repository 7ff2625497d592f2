package stamp

import (
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"
)

func TestBuildString(t *testing.T) {
	for _, c := range []struct {
		b    Build
		want string
	}{
		{Build{Version: "v1.2.3", Revision: "abc"}, "v1.2.3"},
		{Build{Revision: "0123456789abcdef0123", From: "build"}, "devel+0123456789ab"},
		{Build{Revision: "0123456789abcdef0123", Dirty: true, From: "checkout"}, "devel+0123456789ab-dirty"},
		{Build{}, "dev"},
	} {
		if got := c.b.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.b, got, c.want)
		}
	}
}

// The toolchain's stamp: a module version wins; a devel build reports the
// VCS revision and the modified flag.
func TestFromBuildInfo(t *testing.T) {
	bi := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "feedfacefeedfacefeedface"}, {Key: "vcs.modified", Value: "true"}}}
	if b := fromBuildInfo(bi); b.String() != "devel+feedfacefeed-dirty" || b.From != "build" {
		t.Errorf("stamped devel build: %+v", b)
	}
	bi.Main.Version = "v0.4.0"
	if b := fromBuildInfo(bi); b.String() != "v0.4.0" {
		t.Errorf("release build: %+v", b)
	}
	if b := fromBuildInfo(&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}); b.String() != "dev" {
		t.Errorf("no stamp: %+v", b)
	}
}

// Without a stamp (go test builds have none here) the revision comes from
// the source tree the code was compiled from, with its dirty flag.
func TestBuildFromCheckout(t *testing.T) {
	root := sourceRoot()
	if root == "" {
		t.Skip("compiled with -trimpath: no source tree to ask")
	}
	want, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("no git checkout at %s: %v", root, err)
	}
	b := Of()
	if b.From == "build" {
		t.Skip("this test binary carries a VCS stamp")
	}
	st, _ := exec.Command("git", "-C", root, "status", "--porcelain").Output()
	if b.From != "checkout" || b.Revision != strings.TrimSpace(string(want)) || b.Dirty != (len(strings.TrimSpace(string(st))) > 0) {
		t.Errorf("build %+v; want revision %s from the checkout, dirty=%v", b, want, len(st) > 0)
	}
}
