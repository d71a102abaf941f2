package safety

import (
	"strings"
	"sync"
)

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
	// Command-line logins of developer tools and clouds, package-registry
	// tokens, vault tokens and service-account keys, after the credential
	// files gitleaks, trufflehog and GitHub secret scanning look for.
	".config/gh/hosts.yml", ".config/hub", ".config/glab-cli", ".git-credentials*", ".config/git/credentials",
	".yarnrc.yml", ".gem/credentials", ".m2/settings.xml", ".m2/settings-security.xml",
	".gradle/gradle.properties", ".ivy2/.credentials", ".cargo/credentials", ".cargo/credentials.toml",
	".composer/auth.json", ".config/composer/auth.json", ".nuget/NuGet/NuGet.Config", ".pip/pip.conf",
	".config/pip/pip.conf", ".dockercfg", "kubeconfig", ".minikube", ".pulumi/credentials.json",
	".terraform.d/credentials.tfrc.json", ".terraformrc", "*.tfstate", "*.tfstate.backup",
	".vault-token", ".config/doctl", ".oci", ".config/hcloud", ".aliyun", ".bluemix", ".config/linode-cli",
	".s3cfg", ".boto", ".databrickscfg", ".snowsql", ".my.cnf", ".config/rclone/rclone.conf",
	"application_default_credentials.json", "service-account*.json", "*serviceaccount*.json",
	"firebase-adminsdk*.json", ".config/configstore/firebase-tools.json", ".config/netlify", ".netlify/state.json",
	".huggingface/token", ".cache/huggingface/token", ".config/stripe", ".ngrok2", ".config/ngrok",
	".sentryclirc", ".password-store", ".local/share/keyrings", ".claude/.credentials.json", ".codex/auth.json",
	"master.key", "secrets.yml", "secrets.yaml", "*.ppk", "*.p8", "*.keytab", "*.ovpn", "*.kdb",
	// Container registry logins of podman, buildah and skopeo
	// (containers-auth.json(5)), Bundler's and Poetry's stored
	// credentials, flyctl's token, Gemini CLI's and GitHub Copilot's
	// OAuth tokens, Streamlit's secrets file, Google OAuth client secrets,
	// and the suffix and JSON spellings of secret files.
	"containers/auth.json", ".bundle/config", "pypoetry/auth.toml", ".fly/config.yml", ".gemini/oauth_creds.json",
	"github-copilot/hosts.json", "github-copilot/apps.json", "secrets.toml", "secrets.json", "secrets.yml",
	"client_secret*.json", "credentials.yml", "credentials.yaml", "credentials.toml", ".secrets",
	// Shell and REPL histories hold the tokens people typed.
	".irb_history", ".pry_history", ".php_history", ".rhistory", ".scala_history", ".ghci_history",
	".bash_history", ".zsh_history", ".sh_history", ".history", "fish_history", ".python_history",
	".node_repl_history", ".psql_history", ".mysql_history", ".sqlite_history", ".rediscli_history", ".lesshst",
}

// builtinSensitive are files whose content runs code or steers tools later:
// hooks, editor and agent configuration, shell start-up files, CI pipelines.
// Changing them needs approval; reading them does not.
var builtinSensitive = []string{
	// Git: the directory (hooks, config with core.pager and friends), the
	// "gitdir:" pointer file of worktrees and submodules, and files git
	// obeys from the tree.
	".git", ".gitmodules", ".gitconfig",
	// Editors and IDEs: tasks and launch configs run commands; vim and
	// neovim run a directory's .exrc, .nvimrc or .nvim.lua under 'exrc',
	// Emacs evaluates .dir-locals.el.
	".vscode", ".idea", "*.code-workspace", ".devcontainer", ".zed", ".exrc", ".nvimrc", ".nvim.lua",
	".vimrc", ".gvimrc", ".dir-locals.el", ".tmux.conf",
	// Hook managers (lefthook reads lefthook.yml, .lefthook.yml and their
	// .yaml, .json and .toml spellings; lint-staged and simple-git-hooks
	// run the commands their configuration names on every commit).
	".husky", ".pre-commit-config.yaml", "lefthook.*", ".lefthook.*", "lefthook-local.*", ".lefthook-local.*",
	".lintstagedrc*", "lint-staged.config.*", ".simple-git-hooks*", "simple-git-hooks.*", ".overcommit.yml",
	".githooks",
	// Dev containers: .devcontainer.json at the root (containers.dev).
	".devcontainer.json",
	// REPL and debugger start-up files run code when the tool starts here.
	".pythonrc", ".pythonrc.py", ".irbrc", ".pryrc", ".psqlrc", ".sqliterc", ".gdbinit", ".lldbinit", ".rprofile",
	".ghci", ".erlang", ".iex.exs",
	// A virtualenv's .pth files: site runs their import lines at every
	// interpreter start (Python's site module).
	"site-packages/*.pth",
	// Other agents' MCP and rule configurations (Amazon Q, Kiro, opencode,
	// Windsurf, Cline, Kilo Code, Augment, Junie, Goose).
	".amazonq", ".kiro", "opencode.json", "opencode.jsonc", ".opencode", ".windsurf", ".clinerules",
	"cline_mcp_settings.json", ".kilocode", ".augment", ".junie", ".goose", "mcp.json", "mcp_config.json",
	// Agent configuration, this one's included: instructions and tool
	// permissions an agent must not grant itself.
	".claude", ".cursor", ".codex", ".gemini", ".agents", ".mcp.json",
	".cursorrules", ".windsurfrules", ".tether", ".continue", ".aider.conf.yml", ".clinerules", ".roo",
	"CLAUDE.md", "AGENTS.md", "GEMINI.md", ".github/copilot-instructions.md",
	// Shell start-up files.
	".profile", ".login", ".bashrc", ".bash_profile", ".bash_login", ".bash_logout",
	".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout",
	".cshrc", ".tcshrc", ".kshrc", ".inputrc", "fish/config.fish",
	// Build and package tools' own configuration, which names the programs
	// they run (cargo's target runners and rustc wrappers, yarn's and bun's
	// plugins, gradle init scripts, JVM agents), and the toolchain files
	// that pick the compiler binary.
	".cargo/config.toml", ".cargo/config", ".yarnrc", "bunfig.toml", ".bazelrc", "init.gradle", ".gradle/init.d",
	".mvn", "pip.conf", "uv.toml", "rust-toolchain", "rust-toolchain.toml",
	// pnpm's install hooks, mise's tasks and enter hooks, the Gradle
	// wrapper's distribution URL (a download that runs on the next build),
	// NuGet's package sources, curl's and wget's start-up options.
	".pnpmfile.cjs", ".pnpmfile.mjs", "mise.toml", ".mise.toml", ".config/mise", "gradle-wrapper.properties",
	"nuget.config", ".curlrc", ".wgetrc",
	// Pager key files: lesskey bindings run shell commands.
	".lesskey", "lesskey", ".less",
	// CI pipelines run with the repository's secrets.
	".github/workflows", ".github/actions", ".gitlab-ci.yml", ".circleci",
	".travis.yml", ".buildkite", "jenkinsfile", "azure-pipelines.yml",
	"bitbucket-pipelines.yml", ".woodpecker.yml", ".woodpecker.yaml", ".woodpecker", ".drone.yml", ".drone.yaml",
	".forgejo", ".gitea", ".cirrus.yml", ".cirrus.star", "appveyor.yml", ".appveyor.yml", "cloudbuild.yaml",
	"cloudbuild.yml", "cloudbuild.json", ".gitlab", "codemagic.yaml", "bitrise.yml", ".semaphore", "buildspec.yml",
	".azure-pipelines", "wercker.yml", ".teamcity", "dagger.json", "earthfile",
}

// builtinRules is the compiled floor, secrets first so that Match can stop
// at the first secret; compiled on first use, not at start-up.
var builtinRules = sync.OnceValue(compileBuiltins)

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
