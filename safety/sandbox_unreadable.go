package safety

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// homeLogins are the files under a home directory that hold logins:
// private keys, cloud and cluster credentials, tokens of developer tools,
// password stores and shell histories. No build, test or formatter needs
// to read them, so a sandboxed command cannot (Sandbox.Unreadable).
//
// Configuration that builds do read on every run stays readable even when
// it may hold a registry token (.npmrc, .yarnrc.yml, pip.conf, Maven's
// settings.xml, gradle.properties, Bundler's config): hiding it would
// break the build, and the Policy still asks before a command names it.
var homeLogins = []string{
	".ssh", ".gnupg", ".password-store", ".local/share/keyrings",
	".aws", ".azure", ".config/gcloud", ".kube", ".minikube", ".oci", ".aliyun", ".bluemix",
	".config/doctl", ".config/hcloud", ".config/linode-cli", ".config/rclone/rclone.conf",
	".netrc", ".git-credentials", ".config/git/credentials", ".pgpass", ".my.cnf", ".s3cfg", ".boto",
	".databrickscfg", ".vault-token", ".docker/config.json", ".dockercfg",
	".config/gh/hosts.yml", ".config/hub", ".config/glab-cli", ".config/github-copilot",
	".pypirc", ".gem/credentials", ".cargo/credentials", ".cargo/credentials.toml", ".ivy2/.credentials",
	".m2/settings-security.xml", ".terraform.d/credentials.tfrc.json", ".pulumi/credentials.json",
	".fly", ".config/configstore/firebase-tools.json", ".config/netlify", ".config/stripe",
	".ngrok2", ".config/ngrok", ".sentryclirc", ".huggingface/token", ".cache/huggingface/token",
	".claude/.credentials.json", ".codex/auth.json", ".gemini/oauth_creds.json",
	".bash_history", ".zsh_history", ".sh_history", ".history", ".local/share/fish/fish_history",
	".python_history", ".node_repl_history", ".psql_history", ".mysql_history", ".sqlite_history",
	".rediscli_history", ".irb_history", ".pry_history", ".lesshst",
}

// HomeLogins returns the login files and directories (keys, cloud and
// tool credentials, password stores, shell histories) that exist under
// home, the default Sandbox.Unreadable of Workspace.NewSandbox. An empty
// home gives none.
func HomeLogins(home string) []string {
	if home == "" || !filepath.IsAbs(home) {
		return nil
	}
	var out []string
	for _, rel := range homeLogins {
		p := filepath.Join(home, rel)
		if _, err := os.Lstat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// unreadableFor checks Sandbox.Unreadable and returns what the helper
// hides: each path resolved through its links (the file itself is what
// must stay closed, whatever name reaches it), leaving out paths that do
// not exist and those inside a writable directory. Those stay readable
// because hiding a file takes granting every other entry of its
// directory one by one, and a file the command creates there later would
// then be unreadable to the command itself; the Policy guards them.
func unreadableFor(paths, writable []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			return nil, fmt.Errorf("safety: Sandbox.Wrap: unreadable path %q is not absolute", p)
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			continue // gone: nothing to hide
		}
		inside := false
		for _, w := range writable {
			if wr, err := filepath.EvalSymlinks(w); err == nil && within(wr, real) {
				inside = true
			}
		}
		if !inside {
			out = append(out, real)
		}
	}
	return out, nil
}

// readGrants returns the read rules that leave hidden (clean absolute
// paths, links resolved) unreadable: Landlock only grants, so they cover
// the complement. Every directory on the way from / to a hidden path may
// only be listed (a grant there reaches below it, so it cannot include
// reading files), and every other entry of those directories is granted
// whole, as a directory or a file. A hidden path's own names can
// therefore still be listed; its content cannot be read. A link among
// those entries is granted as its target, unless the target is hidden,
// holds something hidden, or lies inside it. Entries made in those
// directories after the command starts are unreadable to it. No hidden
// paths means no rules: everything is readable.
func readGrants(hidden []string) (listOnly, dirs, files []string) {
	if len(hidden) == 0 {
		return nil, nil, nil
	}
	// touches reports whether p is a hidden path, lies inside one, or
	// holds one: granting p would then open something hidden.
	touches := func(p string) bool {
		return slices.ContainsFunc(hidden, func(h string) bool { return within(h, p) || within(p, h) })
	}
	seen := map[string]bool{}
	for _, h := range hidden {
		for dir := filepath.Dir(h); !seen[dir]; dir = filepath.Dir(dir) {
			seen[dir] = true
			listOnly = append(listOnly, dir)
			if dir == "/" {
				break
			}
		}
	}
	for _, dir := range listOnly {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue // unreadable to the user too: nothing to grant
		}
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			if touches(p) {
				continue // on the way to a hidden path, or hidden: below
			}
			isDir := e.IsDir()
			if e.Type()&os.ModeSymlink != 0 {
				t, err := filepath.EvalSymlinks(p)
				if err != nil || touches(t) {
					continue
				}
				fi, err := os.Stat(t)
				if err != nil {
					continue
				}
				p, isDir = t, fi.IsDir()
			}
			if isDir {
				dirs = append(dirs, p)
			} else {
				files = append(files, p)
			}
		}
	}
	return listOnly, dirs, files
}
