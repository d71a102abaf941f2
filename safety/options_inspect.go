package safety

// Option models of the remaining inspection commands that report on the
// system or search files: with a table their everyday options (top -b
// -n1, iostat -x, last -n 5, ag -l) keep the read-only approval, and an
// option the table lacks still needs a person.
var inspectModels = map[string]*optionModel{
	// top in batch mode prints and exits; its interactive keys (k kills,
	// r renices) need a terminal the agent does not type into.
	"top": model(flags("-b", "-c", "-H", "-i", "-S", "-1", "-O", "-h", "-v", "-s"),
		optionalValue("-w"),
		texts("-n", "-d", "-p", "-u", "-U", "-o", "-E", "-e")),
	"iostat": model(flags("-c", "-d", "-h", "-k", "-m", "-N", "-t", "-V", "-x", "-y", "-z", "-s", "--human",
		"--pretty", "--compact"), texts("-g", "-j", "-o", "-p", "--dec")),
	"last": model(flags("-a", "-d", "-F", "-i", "-R", "-w", "-x", "--hostlast", "--dns", "--fulltimes", "--ip",
		"--nohostname", "--fullnames", "--system"),
		texts("-n", "--limit", "-s", "--since", "-t", "--until", "-p", "--present", "--time-format"),
		reads("-f", "--file")),
	"sw_vers": func() *optionModel {
		m := model(flags("-productName", "-productVersion", "-productVersionExtra", "-buildVersion"))
		m.goStyle = true
		return m
	}(),
	// ag's --pager runs a program and is left out.
	"ag": model(flags("-i", "-s", "-S", "-w", "-v", "-l", "-L", "-c", "-Q", "-u", "-U", "-a", "-z", "-0", "-f", "-t",
		"--hidden", "--nocolor", "--color", "--literal", "--files-with-matches", "--files-without-matches", "--count",
		"--vimgrep", "--noheading", "--heading", "--nogroup", "--group", "--column", "--numbers", "--nonumbers",
		"--follow", "--stats", "--search-zip", "--ignore-case", "--case-sensitive", "--smart-case", "--word-regexp",
		"--invert-match", "--unrestricted", "--all-types", "--all-text", "--skip-vcs-ignores", "--one-device",
		"--only-matching", "--print-long-lines", "--silent", "--null", "--print0", "--filename", "--nofilename",
		"--break", "--nobreak", "--ackmate", "--multiline", "--nomultiline", "--list-file-types", "--go", "--js",
		"--ts", "--python", "--ruby", "--rust", "--java", "--cc", "--cpp"),
		texts("-A", "-B", "-C", "-m", "-G", "-g", "-W", "--after", "--before", "--context", "--max-count",
			"--file-search-regex", "--ignore", "--ignore-dir", "--depth", "--width", "--color-match",
			"--color-path", "--color-line-number"),
		reads("-p", "--path-to-ignore")),
}
