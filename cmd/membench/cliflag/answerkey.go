package cliflag

import "github.com/spf13/cobra"

// AnswerKeyUsage is the help of --answer-key on every command that takes it.
const AnswerKeyUsage = "LoCoMo answer key: published (LoCoMo's own gold), audited (the audit's corrected key, registered with 'membench datasets add locomo-audit FILE') or a key FILE of that shape"

// AnswerKey registers --answer-key.
func AnswerKey(c *cobra.Command, dst *string, def string) {
	c.Flags().StringVar(dst, "answer-key", def, AnswerKeyUsage)
}

// ExcludeImageQuestions registers --exclude-image-questions.
func ExcludeImageQuestions(c *cobra.Command, dst *bool) {
	c.Flags().BoolVar(dst, "exclude-image-questions", false, "leave out LoCoMo's image-dependent questions (gold answer only in an image's caption or query; counted, part of the question set)")
}
