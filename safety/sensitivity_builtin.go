package safety

import "strings"

// builtinSecrets are files whose content should not reach a model without a
// human saying so: reading them needs approval, and so does changing them.
var builtinSecrets = []string{
	// Environment files: .env, .env.local, .env.production, .envrc (direnv,
	// which also executes it), prod.env.
	".env*", "*.env",
	// Key material and key stores.
	"*.pem", "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore", "*.kdbx",
	"id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*",
	".ssh", ".gnupg",
	// Credential stores of common tools and CI.
	".netrc", ".git-credentials", ".npmrc", ".pypirc", ".pgpass", ".htpasswd",
	".aws", ".azure", ".kube", ".docker/config.json", ".config/gcloud",
	"credentials", "credentials.json", "*.tfvars",
}

// builtinSensitive are files whose content runs code or steers tools later:
// hooks, editor and agent configuration, shell start-up files, CI pipelines.
// Changing them needs approval; reading them does not.
var builtinSensitive = []string{
	// Git: the directory (hooks, config with core.pager and friends), the
	// "gitdir:" pointer file of worktrees and submodules, and files git
	// obeys from the tree.
	".git", ".gitmodules", ".gitconfig",
	// Editors and IDEs: tasks and launch configs run commands.
	".vscode", ".idea", "*.code-workspace", ".devcontainer",
	// Hook managers.
	".husky", ".pre-commit-config.yaml", "lefthook.yml",
	// Agent configuration, this one's included: instructions and tool
	// permissions an agent must not grant itself.
	".claude", ".cursor", ".codex", ".gemini", ".agents", ".mcp.json",
	".cursorrules", ".windsurfrules", ".tether",
	// Shell start-up files.
	".profile", ".login", ".bashrc", ".bash_profile", ".bash_login", ".bash_logout",
	".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout",
	".cshrc", ".tcshrc", ".kshrc", ".inputrc", "fish/config.fish",
	// CI pipelines run with the repository's secrets.
	".github/workflows", ".github/actions", ".gitlab-ci.yml", ".circleci",
	".travis.yml", ".buildkite", "jenkinsfile", "azure-pipelines.yml",
	"bitbucket-pipelines.yml",
}

// builtinRules is the compiled floor, secrets first so that Match can stop
// at the first secret.
var builtinRules = compileBuiltins()

func compileBuiltins() []compiledRule {
	var out []compiledRule
	for _, r := range BuiltinSensitivityRules() {
		// A pattern with a slash would be anchored to the root; the
		// floor protects these names at any depth.
		pat := r.Pattern
		if strings.Contains(pat, "/") {
			pat = "**/" + pat
		}
		c, err := compileRule(SensitivityRule{Pattern: pat, Sensitive: true, Secret: r.Secret})
		if err != nil {
			panic("safety: bad built-in sensitivity pattern " + r.Pattern + ": " + err.Error())
		}
		c.src = r.Pattern
		out = append(out, c)
	}
	return out
}

// BuiltinSensitivityRules returns the floor every Sensitivity applies before
// project rules: secrets (Secret, reads need approval) then files that run
// code or configure tools (Sensitive). It is a copy; changing it has no
// effect.
func BuiltinSensitivityRules() []SensitivityRule {
	out := make([]SensitivityRule, 0, len(builtinSecrets)+len(builtinSensitive))
	for _, p := range builtinSecrets {
		out = append(out, SensitivityRule{Pattern: p, Sensitive: true, Secret: true})
	}
	for _, p := range builtinSensitive {
		out = append(out, SensitivityRule{Pattern: p, Sensitive: true})
	}
	return out
}
