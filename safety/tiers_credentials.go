package safety

import (
	"strings"

	"github.com/tetherdev/tether/internal/lazyregexp"
)

// Sub-commands of cloud, cluster and developer CLIs that print a token,
// password or key. Which sub-command prints a secret is the vendor's
// choice, so this is a table: nothing in `gh auth token` tells it from
// `gh auth status`. Each prints the credential to the terminal, where the
// model reads it, so each has the prints-credentials effect: read-only
// approval never covers it and an allow rule covers it only when its
// words do ("gh auth token", or "effect:prints-credentials").

// credentialForm is one printing form: the sub-command words, in order
// among the operands, and, when set, one of the options that makes the
// sub-command print the secret (kubectl config view prints it redacted
// unless --raw).
type credentialForm struct {
	words []string
	flags []string
	// keyOperand: the operand after words names a setting; only a
	// secret-named one is a credential (aws configure get region is not).
	keyOperand bool
}

var kubeSecretForms = []credentialForm{
	{words: []string{"config", "view"}, flags: []string{"--raw"}},
	{words: []string{"get", "secret"}, flags: []string{"-o", "--output"}},
	{words: []string{"get", "secrets"}, flags: []string{"-o", "--output"}},
	{words: []string{"create", "token"}},
}

var credentialPrinters = map[string][]credentialForm{
	"gh": {
		{words: []string{"auth", "token"}},
		{words: []string{"auth", "status"}, flags: []string{"-t", "--show-token"}},
	},
	"glab":    {{words: []string{"auth", "status"}, flags: []string{"-t", "--show-token"}}},
	"kubectl": kubeSecretForms,
	"oc":      append([]credentialForm{{words: []string{"whoami"}, flags: []string{"-t", "--show-token"}}}, kubeSecretForms...),
	"aws": {
		{words: []string{"configure", "export-credentials"}},
		{words: []string{"configure", "get"}, keyOperand: true},
		{words: []string{"sts", "get-session-token"}},
		{words: []string{"sts", "assume-role"}},
		{words: []string{"sts", "get-federation-token"}},
		{words: []string{"ecr", "get-login-password"}},
		{words: []string{"ecr-public", "get-login-password"}},
		{words: []string{"codeartifact", "get-authorization-token"}},
		{words: []string{"secretsmanager", "get-secret-value"}},
	},
	"gcloud": {
		{words: []string{"auth", "print-access-token"}},
		{words: []string{"auth", "print-identity-token"}},
		{words: []string{"auth", "application-default", "print-access-token"}},
		{words: []string{"config", "config-helper"}},
		{words: []string{"secrets", "versions", "access"}},
	},
	"az": {
		{words: []string{"account", "get-access-token"}},
		{words: []string{"acr", "login"}, flags: []string{"--expose-token"}},
		{words: []string{"storage", "account", "keys", "list"}},
		{words: []string{"keyvault", "secret", "show"}},
	},
	"npm":         {{words: []string{"token", "create"}}, {words: []string{"config", "get"}, keyOperand: true}},
	"terraform":   {{words: []string{"output"}, flags: []string{"-raw", "-json"}}},
	"heroku":      {{words: []string{"auth:token"}}},
	"vault":       {{words: []string{"print", "token"}}, {words: []string{"kv", "get"}}, {words: []string{"read"}}},
	"op":          {{words: []string{"read"}}, {words: []string{"item", "get"}}},
	"docker":      {{words: []string{"compose", "config"}}},
	"firebase":    {{words: []string{"login:ci"}}},
	"doppler":     {{words: []string{"secrets"}}},
	"security":    {{words: []string{"find-generic-password"}, flags: []string{"-w", "-g"}}, {words: []string{"find-internet-password"}, flags: []string{"-w", "-g"}}},
	"secret-tool": {{words: []string{"lookup"}}},
}

// credentials records the prints-credentials effect of c when it is one
// of the printing forms.
func credentials(c *call) {
	forms := credentialPrinters[c.base]
	if c.base == "docker-compose" {
		forms = []credentialForm{{words: []string{"config"}}}
	}
	if forms == nil {
		return
	}
	var ops []string
	for _, w := range c.args {
		if !w.dynamic && !strings.HasPrefix(w.s, "-") {
			ops = append(ops, w.s)
		}
	}
	for _, f := range forms {
		k := subsequence(ops, f.words)
		if k < 0 || f.flags != nil && !hasAnyOption(c.args, f.flags) {
			continue
		}
		if f.keyOperand && (k >= len(ops) || !secretSetting(ops[k])) {
			continue
		}
		if f.words[0] == "get" && namesOnly(c.args) {
			continue // kubectl get secret -o name prints names only
		}
		c.effect(EffectPrintsCredentials, false, c.base+" "+strings.Join(f.words, " ")+" prints a credential")
		return
	}
}

// subsequence finds words in order among ops ("secret/db" and
// "secrets,configmaps" count as "secret" and "secrets") and returns the
// index after the last, or -1.
func subsequence(ops, words []string) int {
	k := 0
	for _, w := range words {
		for k < len(ops) && ops[k] != w && !strings.HasPrefix(ops[k], w+"/") && !strings.HasPrefix(ops[k], w+",") {
			k++
		}
		if k == len(ops) {
			return -1
		}
		k++
	}
	return k
}

// hasAnyOption reports an option among args spelt as one of names, with
// or without an attached value (-ojson, --output=yaml, -t).
func hasAnyOption(args []word, names []string) bool {
	for _, w := range args {
		if w.dynamic {
			continue
		}
		for _, n := range names {
			if w.s == n || strings.HasPrefix(w.s, n+"=") || len(n) == 2 && !strings.HasPrefix(w.s, "--") && strings.HasPrefix(w.s, n) {
				return true
			}
		}
	}
	return false
}

// secretSetting reports a configuration key that names a credential:
// aws_secret_access_key, //registry.npmjs.org/:_authToken, _password.
func secretSetting(key string) bool {
	return secretKey.MatchString(key)
}

var secretKey = lazyregexp.New(`(?i)(secret|token|passw|_auth|credential|private|access_key|session)`)

// yqReads judges what a yq expression reads besides its files: env(),
// strenv() and envsubst read the environment (mikefarah yq's "Env Variable
// Operators"), load(), load_str() and their kin read the file they name.
func yqReads(c *call) {
	for _, w := range c.args {
		if w.dynamic || strings.HasPrefix(w.s, "-") {
			continue
		}
		if containsIdent(w.s, "env") || containsIdent(w.s, "strenv") || containsIdent(w.s, "envsubst") {
			programReadsEnvironment(c, "env")
		}
		for _, m := range yqLoad.FindAllStringSubmatch(w.s, -1) {
			c.path(word{s: m[2]}, OpRead)
			c.unvetted(m[0], "reads a file inside the yq expression")
		}
		if yqLoadDynamic.MatchString(w.s) && !yqLoad.MatchString(w.s) {
			c.unvetted(w.s, "loads a file named at run time inside the yq expression")
		}
	}
}

var (
	yqLoad        = lazyregexp.New(`\bload(_str|_xml|_props|_base64|_yaml|_json)?\(\s*"([^"]*)"\s*\)`)
	yqLoadDynamic = lazyregexp.New(`\bload(_str|_xml|_props|_base64|_yaml|_json)?\(`)
)

// namesOnly reports a kubectl output format that prints resource names
// and nothing of their data: -o name.
func namesOnly(args []word) bool {
	outs := valuesOf(args, "-o", "--output")
	for _, v := range outs {
		if v.dynamic || v.s != "name" {
			return false
		}
	}
	return len(outs) > 0
}
