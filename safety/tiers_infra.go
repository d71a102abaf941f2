package safety

import "strings"

// This file classifies what changes machines and infrastructure rather
// than files: filesystems, kernel modules, accounts, clocks, cloud
// resources and infrastructure-as-code.

// makesFilesystem reports the commands that create a filesystem, under
// every name they go by.
func makesFilesystem(b string) bool {
	for _, p := range []string{"mkfs", "mke2fs", "mkdosfs", "mkntfs", "mkexfatfs", "mkfs.", "newfs", "mformat", "mkswap", "mkudffs", "mkreiserfs", "mkxfs", "mkbtrfs"} {
		if strings.HasPrefix(b, p) {
			return true
		}
	}
	return false
}

// infra judges machine-level and infrastructure commands; it reports
// whether it classified c.
func infra(c *call) bool {
	b := c.base
	switch b {
	case "insmod", "rmmod", "modprobe", "kextload", "kextunload", "kmutil", "depmod":
		c.concern(EffectSystem, SeverityCritical, true, b+" loads or unloads kernel modules")
	case "useradd", "usermod", "adduser":
		for i, w := range c.args {
			uid := ""
			switch {
			case (w.s == "-u" || w.s == "--uid") && i+1 < len(c.args):
				uid = c.args[i+1].s
			case strings.HasPrefix(w.s, "--uid="):
				uid = strings.TrimPrefix(w.s, "--uid=")
			case w.s == "-o" || w.s == "--non-unique":
				uid = "duplicate"
			}
			if uid == "0" || uid == "duplicate" {
				c.concern(EffectLoosensPermissions, SeverityCritical, true, b+" creates an account with user id 0 (root) or a duplicate id")
				return true
			}
		}
		c.concern(EffectLoosensPermissions, SeverityHigh, false, b+" changes users or privileges")
	case "timedatectl":
		if len(c.args) > 0 && strings.HasPrefix(c.args[0].s, "set-") {
			c.concern(EffectSystem, SeverityHigh, false, "timedatectl "+c.args[0].s+" changes the system clock")
		} else {
			c.concern(EffectReads, SeverityNone, false, "timedatectl shows the clock")
		}
	case "hwclock":
		for _, w := range c.args {
			switch w.s {
			case "--set", "-w", "--systohc", "-s", "--hctosys", "--adjust", "-a":
				c.concern(EffectSystem, SeverityHigh, false, "hwclock "+w.s+" changes the clock")
				return true
			}
		}
		c.concern(EffectReads, SeverityNone, false, "hwclock reads the hardware clock")
	case "aws", "gcloud", "az", "doctl", "hcloud", "linode-cli", "oci", "ibmcloud", "aliyun", "gsutil", "s3cmd", "flyctl", "heroku", "vercel", "netlify":
		for _, w := range c.args {
			if w.dynamic {
				continue
			}
			s := strings.ToLower(w.s)
			if s == "delete" || s == "rm" || s == "rb" || s == "remove" || s == "destroy" || s == "purge" ||
				strings.HasPrefix(s, "delete-") || strings.HasPrefix(s, "terminate") || strings.HasPrefix(s, "deregister") {
				c.concern(EffectChangesRemote, SeverityHigh, false, b+" "+w.s+" deletes cloud resources")
				return true
			}
		}
		c.concern(EffectNetwork, SeverityMedium, false, b+" talks to a cloud account")
	case "pulumi", "tofu", "terragrunt", "cdk", "cdktf", "serverless", "sls":
		iac(c)
	default:
		return false
	}
	return true
}

// iac judges infrastructure-as-code tools (terraform goes through
// packages): destroying without a confirmation prompt is critical, applying
// and destroying high, plans and dry runs medium (they read state and
// credentials and may run providers' code).
func iac(c *call) {
	b := c.base
	sub, autoApprove, destroy := "", false, false
	for _, w := range c.args {
		switch s := w.s; {
		case s == "-auto-approve" || s == "--auto-approve" || s == "--yes" || s == "-y" || s == "--force" || s == "-f" || s == "--non-interactive":
			autoApprove = true
		case s == "-destroy" || s == "--destroy":
			destroy = true
		case sub == "" && !strings.HasPrefix(s, "-"):
			sub = s
		}
	}
	switch {
	case (sub == "destroy" || sub == "remove" || destroy) && autoApprove:
		c.concern(EffectChangesRemote, SeverityCritical, true, b+" "+sub+" destroys infrastructure without asking for confirmation")
	case sub == "destroy" || sub == "remove" || destroy:
		c.concern(EffectChangesRemote, SeverityHigh, false, b+" "+sub+" destroys infrastructure")
	case sub == "apply" || sub == "up" || sub == "deploy" || sub == "import" || sub == "taint" || sub == "state":
		c.concern(EffectChangesRemote, SeverityHigh, false, b+" "+sub+" changes infrastructure")
	default:
		c.concern(EffectReads, SeverityMedium, false, b+" "+sub+" reads infrastructure state and credentials")
	}
}

// pathDirs are directories on the usual PATH that a user can write:
// installing a program there shadows commands everywhere.
var pathDirs = []string{"~/.local/bin/", "~/bin/", "~/go/bin/", "~/.cargo/bin/", "~/.npm-global/bin/", "~/.deno/bin/", "~/.bun/bin/", "~/.volta/bin/"}

// inPathDir reports a cleaned path inside one of pathDirs.
func inPathDir(c string) bool {
	for _, d := range pathDirs {
		if strings.HasPrefix(c+"/", d) && c+"/" != d {
			return true
		}
	}
	return false
}
