package run

import "testing"

func TestModelSpec(t *testing.T) {
	cases := []struct{ backend, model, base, want string }{
		{"", "", "", ""},
		{"openai", "gpt-4o-mini", "", "backend=openai,model=gpt-4o-mini"},
		// The README's role-spec form must not reach the server as a model name.
		{"", "openai:gpt-4o-mini", "", "backend=openai,model=gpt-4o-mini"},
		{"openai", "openai:gpt-4o-mini", "http://h/v1", "backend=openai,model=gpt-4o-mini,base-url=http://h/v1"},
		{"offline", "", "", "offline"},
	}
	for _, c := range cases {
		got, err := ModelSpec(c.backend, c.model, c.base)
		if err != nil || got != c.want {
			t.Errorf("ModelSpec(%q,%q,%q) = %q, %v; want %q", c.backend, c.model, c.base, got, err, c.want)
		}
	}
	if _, err := ModelSpec("offline", "gpt-4o-mini", ""); err == nil {
		t.Error("offline with a model name was accepted")
	}
}
