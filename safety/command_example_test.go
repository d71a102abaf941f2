package safety_test

import (
	"fmt"

	"github.com/tetherdev/tether/safety"
)

// AnalyzeCommand parses the line as bash and judges every command in it,
// however it is spelled.
func ExampleAnalyzeCommand() {
	a := safety.AnalyzeCommand(`ls && r''m -rf "$HOME"`)
	fmt.Println(a.Severity)
	for _, c := range a.Commands {
		fmt.Println(c.Name, c.Args)
	}
	for _, r := range a.Reasons() {
		fmt.Println(r)
	}
	// Output:
	// critical
	// ls []
	// rm [-rf ~]
	// rm: recursive or forced delete of a home directory (~) (critical)
}

// Paths lets a policy apply file sensitivity to shell commands: reading
// .env with cat is as sensitive as reading it with a file tool.
func ExampleCommandAnalysis_paths() {
	a := safety.AnalyzeCommand("cat .env | tee backup.txt")
	for _, p := range a.Paths {
		fmt.Println(p.Op, p.Path, a.Commands[p.Command].Name)
	}
	// Output:
	// read .env cat
	// write backup.txt tee
}

// Auto-approval is all-or-nothing: every sub-command must be allowed.
func ExampleCommandRules_Evaluate() {
	rules := safety.CommandRules{
		Allow: []string{"ls", "git status", "npm run test"},
		Deny:  []string{"git push --force"},
	}
	for _, cmd := range []string{
		"git status && ls -la",
		"ls && rm -rf build",
		"npm run test:unit",
		"timeout 60 npm run test",
		"git push --force",
	} {
		v := rules.Evaluate(cmd)
		fmt.Printf("%-26s %-7s %s\n", cmd, v.Decision, v.Reasons[0])
	}
	// Output:
	// git status && ls -la       allow   git status: allowed by rule "git status"
	// ls && rm -rf build         confirm rm -rf build: no allow rule matches
	// npm run test:unit          confirm npm run test:unit: no allow rule matches
	// timeout 60 npm run test    allow   npm run test: allowed by rule "npm run test"
	// git push --force           deny    git push --force: denied by rule "git push --force"
}
