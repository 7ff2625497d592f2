package flat

import "time"

// DateLayout is how memories show their dates to the answer model.
const DateLayout = "2 January 2006"

// FormatDate renders t for prompts and contexts ("" for an unknown date).
func FormatDate(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(DateLayout)
}
