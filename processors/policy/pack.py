"""The builtin policy pack, as data: tool names, risk tiers, essential tools and deny rules.

Everything here is plain Python data, read once when an engine is built. A deny
rule is a mapping with:

- `id`: stable name, reported as `rule` in every decision it causes;
- `tools`: tool classes (`@shell`, `@file_write`, `@file_read`) or tool-name globs;
- `scope`: what the regex runs on: `command` (each simple command of a shell
  script, rendered canonically: program basename, unquoted arguments with
  variables expanded, then redirections as `>FILE`, `>>FILE`, `<FILE`), `text`
  (each whole script: the raw one and every decoded or unwrapped one) or
  `path` (a file tool's path parameter, normalised);
- `pattern`: a regex (Python `re`, vetted here; user rules are validated at load);
- `anchors`: small regexes (lower case) one of which every match must contain
  once quotes and backslashes are dropped, and optionally `requires`, a second
  such set; the engine skips parsing a plain command that cannot satisfy any
  rule's anchors (tests check the shortcut never changes a decision on the dev
  set) and, on each parsed view, runs only the rules whose anchors occur;
- `reason`, `severity`, `category`.

Deny rules look only at the parameters that say what a tool does (a shell's
`command`, a file tool's `path`), never at content being written (seed
deadlock class 3).
"""

from __future__ import annotations

# --- tool names ---------------------------------------------------------------------------------
# Names are compared normalised: lower case, runs of non-alphanumerics as "_", an MCP prefix
# (`mcp__server__tool`) or a dotted namespace dropped, and a dated version suffix dropped
# (`bash_20250124`). See `claimwatch.policy.tools.tool_key`.
SHELL_TOOLS = (
    "exec", "bash", "shell", "sh", "zsh", "run_command", "run_shell_command", "run_shell", "terminal",
    "run_terminal_cmd", "run_terminal_command", "terminal_command", "execute_command", "execute_bash",
    "exec_command", "execute_shell", "execute_shell_command", "shell_exec", "shell_command", "bash_tool",
    "local_shell", "container_exec", "run_bash", "bash_command", "command", "cmd", "process", "run_in_terminal",
    "terminal_run", "run_cmd", "subprocess", "start_process", "interactive_shell",
)
FILE_WRITE_TOOLS = (
    "write", "edit", "multiedit", "multi_edit", "write_file", "edit_file", "create_file", "file_write",
    "fs_write", "write_to_file", "replace_in_file", "str_replace_editor", "str_replace_based_edit_tool",
    "notebookedit", "notebook_edit", "append_file", "append_to_file", "save_file", "insert_edit_into_file",
    "apply_patch", "move_file", "copy_file", "delete_file", "remove_file", "create_directory", "edit_block",
)
FILE_READ_TOOLS = (
    "read", "read_file", "view", "view_file", "open_file", "cat", "file_read", "fs_read", "get_file_contents",
    "read_text_file", "read_multiple_files", "notebookread", "notebook_read",
)
# Which argument carries what the tool does; deny rules of a class look only there.
CLASS_PARAMS = {
    "shell": ("command", "cmd", "commands", "script", "args", "argv", "bash_command", "shell_command", "input"),
    "file_write": ("path", "file_path", "filepath", "filename", "file", "target_file", "notebook_path",
                   "destination", "dest", "target", "new_path", "paths"),
    "file_read": ("path", "file_path", "filepath", "filename", "file", "target_file", "notebook_path", "paths"),
}
CLASS_TOOLS = {"shell": SHELL_TOOLS, "file_write": FILE_WRITE_TOOLS, "file_read": FILE_READ_TOOLS}

# --- risk tiers (seed §4.3, plus the names agent frameworks use) -----------------------------
RISK_TIERS = {
    "T0": (
        "read", "memory_search", "memory_get", "session_status", "sessions_list", "glob", "grep", "ls",
        "list_directory", "list_dir", "list_files", "search_files", "file_search", "grep_search",
        "codebase_search", "web_search", "websearch", "search", "view", "view_file", "read_file",
        "get_file_contents", "read_text_file", "read_multiple_files", "notebookread", "todoread",
        "think", "retrieve", "lookup", "get_current_time", "read_resource", "list_resources",
    ),
    "T1": (
        "write", "edit", "message", "browser", "cron", "web_fetch", "webfetch", "fetch", "multiedit",
        "multi_edit", "write_file", "edit_file", "create_file", "file_write", "fs_write", "write_to_file",
        "replace_in_file", "str_replace_editor", "str_replace_based_edit_tool", "notebookedit",
        "apply_patch", "todowrite", "task", "http_request", "sessions_send", "tts", "create_directory",
        "move_file", "copy_file",
    ),
    "T2": (
        "exec", "process", "gateway", "nodes", "canvas", "voice_call", "computer", "code_interpreter",
        "python", "run_python", "execute_python", "python_repl", "run_code", "execute_code", "delete_file",
        "remove_file", "send_email", "deploy", "sql", "run_sql", "execute_sql", *SHELL_TOOLS,
    ),
}
DEFAULT_TIER = "T1"  # a tool nobody classified

# Seed §4.2: tools that keep an agent able to talk and introspect; never blocked by dry-run,
# allowlists or escalation (deny patterns still apply to their arguments).
ESSENTIAL_TOOLS = (
    "message", "gateway", "session_status", "sessions_list", "sessions_send", "tts",
    "ask_user", "ask_followup_question", "askuserquestion", "attempt_completion", "final_answer",
    "send_message", "todowrite", "exitplanmode",
)

# Allowlists per profile: tool globs, or `@T0`/`@T1`/`@T2` for a whole tier.
ALLOWLISTS = {
    "strict": ("@T0", "@T1"),
    "standard": ("*",),
    "lenient": ("*",),
}
# Output validation's trust tiers (claimwatch.core.policy.tier_for) to policy profiles.
TIER_PROFILES = {
    "untrusted": "strict",
    "restricted": "strict",
    "standard": "standard",
    "trusted": "lenient",
    "privileged": "lenient",
}

# --- regex fragments ----------------------------------------------------------------------------
_END = r"(?=[/\s'\"]|$)"
_HOME = r"(?:~[\w.-]*|/home/[^/\s]+|/Users/[^/\s]+|/root)"
# System locations: writing or deleting there changes the machine, not the project.
SYS = (
    r"(?:/(?:etc|bin|sbin|boot|root|lib|lib32|lib64|libx32|sys|proc|System|Library)" + _END
    + r"|/usr(?!/local" + _END + r")" + _END
    + r"|/var/(?:log|lib|spool|mail|backups|adm|db|cache/apt)" + _END
    + r"|/dev/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|mapper|md|loop|mem|kmem|port))"
)
# Shell start-up files and other places that make something run again later.
PERSIST = (
    r"(?:" + _HOME + r"/\.(?:bashrc|bash_profile|bash_login|bash_logout|bash_aliases|aliases|profile|zshrc|zprofile|zshenv|zlogin"
    r"|cshrc|tcshrc|kshrc|inputrc|config/fish/config\.fish|config/autostart|config/systemd|ssh/authorized_keys2?"
    r"|ssh/config|ssh/rc)" + _END
    + r"|/etc/(?:profile|bash\.bashrc|zsh|environment|cron[\w.]*|anacrontab|rc\.local|init\.d|systemd"
    r"|ld\.so\.preload|sudoers|update-motd\.d)" + _END
    + r"|/var/spool/cron|/(?:usr/)?lib/systemd|Library/Launch(?:Agents|Daemons))"
)
# Files whose content is a secret.
SECRET = (
    r"(?:/etc/(?:shadow|gshadow|sudoers|master\.passwd|security/opasswd)" + _END
    + r"|/etc/ssh/ssh_host_\S*key" + _END
    + r"|/root/\S"
    + r"|(?<![\w.-])\.?ssh/id_(?:rsa|dsa|ecdsa|ed25519)(?!\.pub)" + _END
    + r"|(?<![\w.-])\.(?:ssh|aws|gnupg|kube|docker)/?(?=[\s'\"]|$)"
    + r"|\.(?:aws/credentials|aws/config|config/gcloud|azure/|kube/config|docker/config\.json|netrc|pgpass"
    r"|git-credentials|npmrc|pypirc|vault-token|bash_history|zsh_history|gnupg/)"
    + r"|(?<![\w.-])\.env(?:\.(?!example|sample|template|dist)[\w-]+)?" + _END
    + r"|/proc/(?:\d+|self)/environ|/proc/kcore|/dev/k?mem" + _END + r")"
)
# Account data, login records and kernel internals: not secret one by one, but what a
# reconnaissance step reads (logs an admin greps, like auth.log, are left alone).
ACCOUNTS = (
    r"(?:/etc/(?:passwd|group|security/\S+|ssl/private\S*)" + _END
    + r"|/usr/share/base-passwd/\S+"
    + r"|/proc/(?:key-users|keys|cmdline|kallsyms|(?:\d+|self)/(?:mem|maps|cmdline))" + _END
    + r"|/sys/kernel/(?:kexec\w*|vmcoreinfo|security|debug|notes)" + _END  # kernel addresses, crash internals
    + r"|/var/log/(?:btmp|wtmp|lastlog|faillog)" + _END + r")"
)
_READERS = (
    r"(?:cat|tac|less|more|head|tail|nl|od|xxd|hexdump|strings|base64|base32|uuencode|cp|mv|scp|rsync|tar"
    r"|zip|gzip|bzip2|xz|7z|grep|egrep|fgrep|zgrep|rg|awk|gawk|sed|cut|sort|uniq|diff|cmp|vi|vim|nano|emacs"
    r"|openssl|gpg|jq|yq|dd|install|ln|paste|column|fold|iconv|xargs)"
)
_WRITERS_DEST_LAST = r"(?:cp|mv|install|ln|rsync|link)"
_DAEMONS = (
    r"(?:systemd[\w-]*|init|sshd?|cron|crond|cupsd|rsyslogd?|syslogd?|syslog-ng|journald|udevd|dbus-daemon"
    r"|dbus|NetworkManager|wpa_supplicant|dhclient|polkitd|auditd|containerd|dockerd|kubelet|snapd"
    r"|avahi-daemon|bluetoothd|ntpd|chronyd|gdm3?|lightdm|sddm|Xorg|acpid|atd|irqbalance|agetty|getty"
    r"|lvmetad|multipathd|firewalld|apparmor|sssd|rpcbind|kthreadd|upowerd|accounts-daemon|thermald|launchd"
    r"|ModemManager|packagekitd|udisksd|colord|kerneloops|whoopsie|rtkit-daemon|cups-browsed|dnsmasq"
    r"|networkd-dispatcher|unattended-upgrades|gnome-shell|pulseaudio|pipewire|wireplumber|xinetd|inetd"
    r"|nginx|apache2|httpd|mysqld?|mariadbd?|postgres|postmaster|redis-server|mongod|memcached|php-fpm\S*|named"
    r"|smbd|nmbd|vsftpd|dovecot|postfix|exim4|sendmail|squid|haproxy|etcd|kube-\w+|cupsd)"
)
_SHELLS = r"(?:/(?:usr/)?bin/)?(?:ba|z|da|k|mk|c|tc|fi)?sh"
_INTERP = r"(?:" + _SHELLS + r"|python[\d.]*|perl|ruby|node|php)"
_SUDO = r"(?:sudo\s+(?:-\S+\s+)*)?"

# Anchors (see the module docstring) shared by several rules.
_SYS_ANCHORS = ("/etc", "/bin", "/sbin", "/boot", "/root", "/lib", "/sys", "/proc", "/usr", "/var/", "/dev/",
                "/system", "/library")
_PERSIST_ANCHORS = (r"rc\b", "profile", "cron", "systemd", "autostart", "ssh/", "environment", "init.d", "preload",
                    "sudoers", "launch", "zsh", "zlogin", "bash_log", "aliases", "motd", "fish")
_SECRET_ANCHORS = ("shadow", "sudoers", "passwd", r"/etc/group\b", "/etc/security", "ssh_host", "/root/", r"\bid_",
                   r"\.aws", "gcloud", r"\.azure", r"\.kube", r"\.docker", "netrc", "pgpass", "credentials", "npmrc",
                   "pypirc", "vault-token", "_history", "gnupg", r"\.env", r"\.ssh", "environ", "kcore", r"/dev/k?mem\b",
                   "/var/log/", "/usr/share/base-passwd", r"/proc/", "/sys/kernel", "ssl/private")
_WRITE_OPS = (">", r"\btee\b", r"\bcp\b", r"\bmv\b", r"\binstall\b", r"\bln\b", r"\brsync\b", r"\blink\b",
              r"\bsed\b", r"\bperl\b", r"\btouch\b", r"\bdd\b", r"\bcurl\b", r"\bwget\b")
_READ_OPS = ("<", r"\b(?:cat|tac|less|more|head|tail|nl|od|xxd|hexdump|strings|base64|base32|uuencode|cp|mv|scp|rsync"
             r"|tar|zip|gzip|bzip2|xz|7z|grep|egrep|fgrep|zgrep|rg|awk|gawk|sed|cut|sort|uniq|diff|cmp|vi|vim|nano"
             r"|emacs|openssl|gpg|jq|yq|dd|install|ln|paste|column|fold|iconv|xargs)\b")

_SHELL = ("@shell",)
_FILE_W = ("@file_write",)
_FILE_R = ("@file_read",)

RULES: tuple[dict, ...] = (
    # --- machine destruction ---
    {"id": "shell.fork_bomb", "tools": _SHELL, "scope": "text", "severity": "critical", "category": "destruction",
     "pattern": r"([\w:.]+)\s*\(\s*\)\s*\{\s*\1\s*\|\s*\1\s*&\s*\}\s*;?\s*\1|os\.fork\(\)[^\n]*\n?[^\n]*while|while\s+(?:True|1)\s*:\s*os\.fork",
     "anchors": (r"\(\s*\)", "fork"), "reason": "fork bomb"},
    {"id": "shell.disk_write", "tools": _SHELL, "scope": "command", "severity": "critical", "category": "destruction",
     "pattern": r"^(?:dd\b.*\sof=/dev/(?!null|zero|stdout|stderr|fd/|tty)|(?:mkfs(?:\.\w+)?|mke2fs|mkswap|wipefs|sfdisk|sgdisk|blkdiscard)\b|(?:fdisk|parted|gdisk)\b(?!.*\s-l\b)|.*\s>>?/dev/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|mapper|md)|shred\b.*\s/dev/)",
     "anchors": ("of=/dev/", r"/dev/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|mapper|md)", "mkfs", "mke2fs", "mkswap", "wipefs",
                 "fdisk", "parted", "gdisk", "blkdiscard", "shred"),
     "reason": "writes to a raw disk or makes a file system"},
    {"id": "shell.delete_root_or_home", "tools": _SHELL, "scope": "command", "severity": "critical", "category": "destruction",
     "pattern": r"^(?:rm|shred|srm|wipe)\b.*\s(?:/|/\*|~|~/|~/\*|\$HOME/?\*?|/home/?\*?|\.\./?\.\./?\S*|/(?:etc|usr|bin|boot|var|lib|home)/?\*?)(?:\s|$)|^find\s+(?:/|~)\s.*-delete\b",
     "anchors": (r"\brm\b", "shred", r"\bsrm\b", r"\bwipe\b", r"-delete\b"),
     "requires": (r"(?:^|\s)(?:/|~|\$home|\.\./)",), "reason": "deletes the file system root, a home directory or a whole system tree"},
    {"id": "shell.delete_system_file", "tools": _SHELL, "scope": "command", "severity": "high", "category": "destruction",
     "pattern": r"^(?:rm|unlink|shred|srm|wipe|rmdir|truncate)\b.*\s(?:" + SYS + "|" + PERSIST + r"|(?:\S*/)?" + SECRET + r")",
     "anchors": (r"\brm(?:dir)?\b", "unlink", "shred", r"\bsrm\b", r"\bwipe\b", "truncate"),
     "requires": _SYS_ANCHORS + _PERSIST_ANCHORS + _SECRET_ANCHORS, "reason": "deletes a system file, a secret or a shell start-up file"},
    # --- persistence and privilege ---
    {"id": "shell.persistence_write", "tools": _SHELL, "scope": "command", "severity": "high", "category": "persistence",
     "pattern": r"(?:(?:^|\s)>>?|^tee\b.*\s|^" + _WRITERS_DEST_LAST + r"\b.*\s|^sed\b.*\s-i\S*\s.*\s|^(?:curl|wget)\b.*\s(?:-o|-O|--output(?:-document)?=?)\s*)" + PERSIST,
     "anchors": _PERSIST_ANCHORS, "requires": _WRITE_OPS,
     "reason": "writes a shell start-up file, cron, systemd unit or ssh configuration (persistence)"},
    {"id": "shell.crontab_install", "tools": _SHELL, "scope": "command", "severity": "high", "category": "persistence",
     "pattern": r"^crontab\b(?!.*\s-[lre]\b)", "anchors": ("crontab",), "reason": "installs a crontab (persistence)"},
    {"id": "shell.alias_shadow", "tools": _SHELL, "scope": "text", "severity": "high", "category": "persistence",
     "pattern": r"\balias\s+['\"]?(?:sudo|ls|cd|cat|grep|find|chmod|chown|rm|cp|mv|ssh|git|python\d?|pip\d?|apt(?:-get)?|yum|curl|wget|echo|vi|vim|nano|top|ps|kill|su|passwd|exit|clear|make|docker|kubectl)=[^\n]*(?:\brm\s+-\w*[rf]|\bmkfs|\bdd\s|\bshred\b|\bcurl\b|\bwget\b|\bnc\s|chmod\s+(?:-R\s+)?[0-7]?777)",
     "anchors": ("alias",), "reason": "an alias that turns a common command into a destructive one"},
    {"id": "shell.privilege_change", "tools": _SHELL, "scope": "command", "severity": "high", "category": "privilege",
     "pattern": r"^(?:chmod\b.*\s(?:[ugoa]*\+[rwxXt]*s|[46][0-7]{3})\s|(?:chmod|chown|chgrp|chattr|setfacl)\b.*\s/etc/(?:shadow|gshadow|sudoers|passwd|group)\b|chmod\b.*\s[0-7]?777\s+(?:/|/etc|/usr|/bin|/sbin|/boot|/root|/var)/?(?:\s|$)|(?:usermod|gpasswd|adduser|addgroup)\b.*\s(?:sudo|wheel|root|admin|adm|docker)(?:\s|$)|useradd\b.*\s-o\b|chpasswd\b|passwd\s+root\b|setcap\b|visudo\b|setenforce\s+0|ufw\s+disable|(?:ip6?tables)\s+(?:-F|--flush|-P\s+\w+\s+ACCEPT))",
     "anchors": ("chmod", "chown", "chgrp", "chattr", "setfacl", "usermod", "gpasswd", "adduser", "addgroup", "useradd",
                 "passwd", "setcap", "visudo", "setenforce", r"\bufw\b", "iptables", "ip6tables"),
     "requires": (r"\+[rwxt]*s", r"\b[46][0-7]{3}\b", "777", "/etc/(?:shadow|gshadow|sudoers|passwd|group)",
                  r"\b(?:sudo|wheel|root|admin|adm|docker)\b", r"-o\b", "chpasswd", r"passwd\s+root", "setcap",
                  "visudo", "setenforce", "ufw", "tables"),
     "reason": "changes privileges (setuid, sudoers, admin groups, root password, security controls)"},
    {"id": "shell.sudoers_nopasswd", "tools": _SHELL, "scope": "text", "severity": "critical", "category": "privilege",
     "pattern": r"NOPASSWD", "anchors": ("nopasswd",), "reason": "grants password-less sudo"},
    # --- remote code ---
    {"id": "shell.download_exec", "tools": _SHELL, "scope": "pipeline", "severity": "critical", "category": "remote_code",
     "pattern": r"(?:^|\n\| )(?:curl|wget|fetch|aria2c)\b[^\n]*(?:\n\| [^\n]*)*?\n\| " + _INTERP + r"(?:\s|$)",
     "anchors": ("curl", "wget", "fetch", "aria2c"), "reason": "downloads code and runs it"},
    {"id": "shell.download_exec_script", "tools": _SHELL, "scope": "text", "severity": "critical", "category": "remote_code",
     "pattern": r"(?:source|\.|" + _INTERP + r")\s+(?:<\s*)?<\(\s*(?:curl|wget)\b"
                r"|(?:eval|" + _SHELLS + r"\s+-\w*c|python[\d.]*\s+-c)\s+[\"']?\$\(\s*(?:curl|wget)\b"
                r"|\b(?:curl|wget)\b[^\n]*?\s(?:-o|-O|--output(?:-document)?=?)\s*(\S+)[^\n]*?(?:&&|;|\n)\s*" + _SUDO
                + r"(?:chmod\s+\S*x\S*\s+\S*?\1|" + _INTERP + r"\s+\S*?\1|\./\S*?\1)",
     "anchors": ("curl", "wget"), "reason": "downloads code and runs it"},
    {"id": "shell.reverse_shell", "tools": _SHELL, "scope": "text", "severity": "critical", "category": "remote_code",
     "pattern": r"(?:[>&]\s*|<>\s*)/dev/(?:tcp|udp)/[^/\s]+/\d+"  # output into a socket; `</dev/tcp/h/22` probes a port
                r"|\b(?:nc|ncat|netcat|nc\.traditional|nc\.openbsd)\b[^\n|;]*\s-\w*[ec]\s*\S*(?:sh|bash|cmd|python|perl)\b"
                r"|\bsocat\b[^\n]*\b(?:exec|system):"
                r"|\bmkfifo\b[^\n]*\b(?:nc|ncat|netcat|telnet|openssl)\b"
                r"|socket\.socket\([\s\S]{0,400}?(?:subprocess|pty\.spawn|os\.dup2)"
                r"|pty\.spawn\(\s*[\"'](?:/bin/)?(?:ba)?sh"
                r"|use\s+Socket[\s\S]{0,400}?exec|fsockopen[\s\S]{0,400}?(?:exec|shell_exec|system|proc_open|passthru)"
                r"|TCPSocket[\s\S]{0,400}?(?:exec|spawn|popen)",
     "anchors": ("/dev/tcp", "/dev/udp", r"\bnc\b", r"\bnc\.", "ncat", "netcat", "socat", "mkfifo", "telnet",
                 "s_client", "socket", "fsockopen", r"pty\.spawn"),
     "reason": "opens a reverse shell"},
    # --- secrets and exfiltration ---
    {"id": "shell.read_secret", "tools": _SHELL, "scope": "command", "severity": "high", "category": "secrets",
     "pattern": r"^" + _READERS + r"\b.*\s(?:if=|@|-\S*=)?(?:\S*/)?(?:" + SECRET + "|" + ACCOUNTS + r")|(?:^|\s)<(?:\S*/)?(?:" + SECRET + "|" + ACCOUNTS + ")",
     "anchors": _SECRET_ANCHORS, "requires": _READ_OPS,
     "reason": "reads a secret or account data (password hashes, private keys, cloud credentials, .env, root's files, /etc/passwd)"},
    {"id": "shell.exfiltrate_file", "tools": _SHELL, "scope": "command", "severity": "high", "category": "exfiltration",
     "pattern": r"^(?:curl\b.*(?:-d|--data(?:-binary|-raw|-urlencode|-ascii)?|-F|--form)[\s=]*\S*(?:@|\$\(\s*(?:cat|base64|head|tail|xxd|tar)\s+(?:-\S+\s+)*)|curl\b.*(?:-T|--upload-file)[\s=]*|wget\b.*--(?:post|body)-(?:file|data)[\s=]*\S*?(?:\$\(\s*cat\s+)?|(?:nc|ncat|netcat|socat|telnet)\b.*\s<|(?:scp|rsync|sftp)\b.*\s)(?:" + SYS + r"|(?:\S*/)?" + SECRET + r"|" + _HOME + r"/\.)",
     "anchors": ("curl", "wget", r"\bnc\b", "ncat", "netcat", "socat", "telnet", r"\bscp\b", "rsync", "sftp"),
     "reason": "sends a system file or a secret to another host"},
    {"id": "shell.network_shell_pipe", "tools": _SHELL, "scope": "pipeline", "severity": "critical", "category": "remote_code",
     "pattern": r"(?:^|\n\| )(?:nc|ncat|netcat|telnet|openssl\s+s_client)\b[^\n]*(?:\n\| [^\n]*)*?\n\| " + _SHELLS + r"(?:\s|$)",
     "anchors": (r"\bnc\b", "ncat", "netcat", "telnet", "s_client"), "reason": "pipes a network connection into a shell"},
    {"id": "shell.exfiltrate_pipe", "tools": _SHELL, "scope": "pipeline", "severity": "high", "category": "exfiltration",
     "pattern": r"(?:^|\n\| )(?:cat|tac|head|tail|base64|xxd|od|tar|zip|gzip|strings|dd|env|printenv|set)(?:\s[^\n]*)?"
                r"(?<=\s)(?:if=)?(?:\S*/)?(?:" + SYS + "|" + SECRET + r")[^\n]*(?:\n\| [^\n]*)*?\n\| (?:curl|wget|nc|ncat|netcat|socat|telnet|openssl)\b"
                r"|(?:^|\n\| )(?:env|printenv|set)(?:\s[^\n]*)?(?:\n\| [^\n]*)*?\n\| (?:curl|wget|nc|ncat|netcat|socat|telnet)\b",
     "anchors": ("curl", "wget", r"\bnc\b", "ncat", "netcat", "socat", "telnet", "openssl"),
     "reason": "pipes a system file, a secret or the environment to another host"},
    {"id": "shell.exfiltrate_env", "tools": _SHELL, "scope": "command", "severity": "high", "category": "exfiltration",
     "pattern": r"^(?:curl|wget)\b.*\$\(\s*(?:env|printenv)\b", "anchors": ("printenv", r"\benv\b"),
     "reason": "sends the environment (tokens, keys) to another host"},
    {"id": "shell.script_system_file", "tools": _SHELL, "scope": "text", "severity": "high", "category": "system_write",
     "pattern": r"\bopen\(\s*[rbuf]?['\"](?:" + SYS + "|" + PERSIST + r")[^'\"]*['\"]\s*,\s*[rbuf]?['\"][wax]"
                r"|\b(?:os\.(?:remove|unlink|rmdir)|shutil\.(?:rmtree|move|copy\w*))\(\s*[rbuf]?['\"](?:/['\"]|" + SYS + "|" + PERSIST + r")"
                r"|\bopen\(\s*[rbuf]?['\"](?:" + SECRET + r")",
     "anchors": (r"open\(", "remove", "unlink", "rmdir", "rmtree", "shutil"),
     "reason": "a script (python -c, heredoc) writes, deletes or reads a system file or a secret"},
    # --- the machine's own processes ---
    {"id": "shell.kill_system_process", "tools": _SHELL, "scope": "command", "severity": "high", "category": "processes",
     "pattern": r"^(?:(?:kill|pkill|killall|skill)\b(?!.*\s-(?:HUP|SIGHUP|1|USR1|USR2|0|s\s+HUP)\b).*\b" + _DAEMONS + r"\b|kill\b(?:\s+-\S+)*\s+-?1$|killall5\b|pkill\b.*\s-u\s*root\b|systemctl\s+(?:stop|kill|disable|mask)\s+(?:\S+\s+)*?" + _DAEMONS + r"(?:\.service)?(?:\s|$)|service\s+" + _DAEMONS + r"\s+stop\b)",
     "anchors": ("kill", "systemctl", r"\bservice\b"), "reason": "kills or stops a system process"},
    {"id": "shell.kill_system_process_script", "tools": _SHELL, "scope": "text", "severity": "high", "category": "processes",
     "pattern": r"\b(?:ps|pgrep|pidof|pstree)\b[^\n]*\b" + _DAEMONS + r"\b[\s\S]*?\bkill\b(?!\s+-(?:HUP|SIGHUP|1|USR1|USR2|0)\b)"
                r"|\bkill\b(?!\s+-(?:HUP|SIGHUP|1|USR1|USR2|0)\b)[^\n]*\b(?:ps|pgrep|pidof)\b[^\n]*\b" + _DAEMONS + r"\b",
     "anchors": ("kill",), "reason": "finds a system process and kills it"},
    # --- writing where the system lives ---
    {"id": "shell.write_system_path", "tools": _SHELL, "scope": "command", "severity": "high", "category": "system_write",
     "pattern": r"(?:(?:^|\s)>>?|^tee\b.*\s|^" + _WRITERS_DEST_LAST + r"\b.*\s(?:-t\s*)?|^(?:sed|perl)\b.*\s-i\S*\s.*\s|^touch\b.*\s|^dd\b.*\sof="
                r"|^(?:curl|wget)\b.*\s(?:-o|-O|-P|--output(?:-document)?=?|--directory-prefix=?)\s*)" + SYS + r"(?:[^\s]*)$"
                r"|^(?:curl|wget)\b.*\s(?:-o|-O|-P|--output(?:-document)?=?|--directory-prefix=?)\s*" + SYS,
     "anchors": _SYS_ANCHORS, "requires": _WRITE_OPS,
     "reason": "writes into a system location (/etc, /usr, /bin, /boot, /root, /var/log, ...)"},
    # --- file tools, on their path parameter only ---
    {"id": "file.write_system_path", "tools": _FILE_W, "scope": "path", "severity": "high", "category": "system_write",
     "pattern": r"^" + SYS, "anchors": (), "reason": "a file tool writes into a system location"},
    {"id": "file.write_persistence", "tools": _FILE_W, "scope": "path", "severity": "high", "category": "persistence",
     "pattern": PERSIST, "anchors": (), "reason": "a file tool writes a shell start-up file, cron, systemd unit or ssh configuration"},
    {"id": "file.read_secret", "tools": _FILE_R, "scope": "path", "severity": "high", "category": "secrets",
     "pattern": r"(?:/etc/(?:shadow|gshadow|sudoers|master\.passwd)$|/etc/ssh/ssh_host_\S*key$|\.ssh/id_(?:rsa|dsa|ecdsa|ed25519)$"
                r"|\.(?:aws/credentials|config/gcloud/\S*credentials\S*|kube/config|docker/config\.json|netrc|pgpass|git-credentials|vault-token)$"
                r"|/proc/(?:\d+|self)/environ$)",
     "anchors": (), "reason": "a file tool reads a secret (password hashes, private keys, cloud credentials)"},
)
