"""Split a shell script into the simple commands it runs, with `shlex` doing the tokenising.

What comes out is what the deny rules read: each simple command rendered
canonically (program basename, unquoted arguments with literal variables
expanded, redirections as `>FILE`, `>>FILE`, `<FILE`), plus the scripts hidden
inside it (a `bash -c` string, a heredoc fed to a shell, a base64 or hex
payload that is decoded, a `python -c` program, a command substitution), each
tagged with the normalisation that exposed it. The parser is deliberately
forgiving: a script it cannot tokenise is still split on whitespace, and
nothing here raises on odd input.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Iterator
from fnmatch import fnmatchcase

from .decode import decoded_payloads, unescape

_PUNCT = ";&|()<>\n"
_SEPARATORS = frozenset(";&|()\n")
_QUOTED_SEMI = "\ue000"  # stands for a `;` that was escaped or quoted (find -exec ... \;)
_KEYWORDS = frozenset(
    {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}", "time", "esac", "function"}
)
_DECLARE = frozenset({"local", "export", "declare", "typeset", "readonly"})
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "busybox"})
_INTERPRETERS = {"python": "-c", "perl": "-e", "ruby": "-e", "node": "-e", "php": "-r", "osascript": "-e"}
# Wrappers run the command after them; the value is the options that take an argument.
_WRAPPERS = {
    "sudo": frozenset("ugCDhpUrtT"), "doas": frozenset("uC"), "env": frozenset("uSC"), "nohup": frozenset(),
    "nice": frozenset("n"), "ionice": frozenset("cnp"), "timeout": frozenset("sk"), "time": frozenset(),
    "stdbuf": frozenset("ioe"), "command": frozenset(), "builtin": frozenset(), "exec": frozenset("a"),
    "xargs": frozenset("IinLPdEsa"), "setsid": frozenset(), "unbuffer": frozenset(), "caffeinate": frozenset(),
    "strace": frozenset("oeps"), "watch": frozenset("nd"), "chroot": frozenset(), "flock": frozenset("wE"),
    "runuser": frozenset("ugl"), "torsocks": frozenset(), "proxychains": frozenset("f"),
}
_POSITIONAL_WRAPPERS = {"timeout": 1, "chroot": 1, "flock": 1}  # leading non-option arguments to skip
_HEREDOC = re.compile(r"<<(-?)\s*(['\"]?)([A-Za-z_][\w.-]*)\2")
_PRINTED = re.compile(r"\b([A-Za-z_]\w*)=\$\(\s*(?:printf|echo(?:\s+-[neE]+)*)\s+(['\"]?)([^'\"$`()]*)\2\s*\)")
_IFS = re.compile(r"\$\{IFS\}|\$IFS(?![A-Za-z0-9_])")
_BRACES = re.compile(r"\{[^{}\s]*,[^{}\s]*\}")
_VAR = re.compile(r"\$\{([A-Za-z_]\w*)\}|\$([A-Za-z_]\w*)")
_ASSIGN = re.compile(r"^([A-Za-z_]\w*)\+?=(.*)$", re.S)
_ANSI_C = re.compile(r"(?:(?<=[\s=(;|&])|^)\$'((?:[^'\\]|\\.)*)'", re.S)
_PY_CALL_STRINGS = re.compile(
    r"(?:system|popen|run|call|check_call|check_output|Popen|getoutput|spawn|exec|shell_exec|passthru|`)"
    r"\(\s*\[?\s*((?:[rbuf]?(?:'[^'\n]*'|\"[^\"\n]*\")\s*,?\s*)+)"
)
_PY_STRING = re.compile(r"[rbuf]?(?:'([^'\n]*)'|\"([^\"\n]*)\")")

PIPE = "\n| "  # joins the commands of a pipeline view; an argument rarely holds it
MAX_DEPTH = 4
MAX_VIEWS = 64


class _State:
    __slots__ = ("count", "seen")

    def __init__(self) -> None:
        self.seen: set[str] = set()
        self.count = 0


def views(script: str, via: str = "") -> Iterator[tuple[str, str, str]]:
    """(scope, text, via) for `script`, lazily: the script itself ("text"), then each simple
    command ("command", canonical) and, recursively, each script hidden inside (bounded)."""
    yield from _parse(script, via, _State(), 0)


def _parse(script: str, via: str, st: _State, depth: int) -> Iterator[tuple[str, str, str]]:
    if depth > MAX_DEPTH or st.count >= MAX_VIEWS or not script.strip() or script in st.seen:
        return
    st.seen.add(script)
    st.count += 1
    if "$'" in script:
        decoded = _ANSI_C.sub(lambda m: shlex.quote(unescape(m.group(1))), script)
        if decoded != script:
            script, via = decoded, _join(via, "ansi-c")
    if "=$(" in script and _PRINTED.search(script):  # X=$(printf '\x72\x6d'): X holds the printed literal
        script = _PRINTED.sub(lambda m: f"{m.group(1)}={shlex.quote(unescape(m.group(3)))}", script)
        via = _join(via, "printf")
    if "IFS" in script:  # `rm${IFS}-rf${IFS}/` is `rm -rf /`
        spaced = _IFS.sub(" ", script)
        if spaced != script:
            script, via = spaced, _join(via, "ifs")
    script, bodies = _split_heredocs(script)  # a heredoc body is data unless a shell reads it (below)
    yield "text", script, via
    commands = _simple_commands(_tokens(script))
    variables = _variables(commands)
    runners = {c[2] for c in commands if c[0] and _runs_stdin(_unwrap(list(c[0])))} if bodies else set()
    next_body = 0
    pipes: dict[int, list[str]] = {}
    for argv, redirects, pipeline in commands:
        yield from _command(argv, redirects, variables, via, st, depth, pipes.setdefault(pipeline, []))
        for op, _ in redirects:
            if op in ("<<", "<<-") and next_body < len(bodies):
                body, next_body = bodies[next_body], next_body + 1
                if pipeline in runners:  # a shell or interpreter runs it; otherwise it is data
                    words = _unwrap(list(argv))
                    interp = bool(words) and _base(words[0]).rstrip("0123456789.") in _INTERPRETERS
                    yield from _parse(_program_view(body) if interp else body, _join(via, "heredoc"), st, depth + 1)
    for lines in pipes.values():
        if len(lines) > 1:  # a pipeline as one text, commands canonical, joined by "\n| "
            yield "pipeline", PIPE.join(lines), via
    for payload, step in decoded_payloads(script):
        yield from _parse(payload, _join(via, step), st, depth + 1)


def _join(via: str, step: str) -> str:
    return f"{via}+{step}" if via else step


# --- tokens and simple commands -------------------------------------------------------------------


def _tokens(script: str) -> list[tuple[str, bool]]:
    """(token, is_operator) pairs; an escaped or quoted `;` stays a word."""
    text = script.replace("\\;", _QUOTED_SEMI).replace("';'", _QUOTED_SEMI).replace('";"', _QUOTED_SEMI)
    for attempt in (text, text + '"', text + "'"):
        lexer = shlex.shlex(attempt, posix=True, punctuation_chars=_PUNCT)
        lexer.whitespace = " \t\r"
        lexer.whitespace_split = True
        try:
            words = list(lexer)
        except ValueError:  # unbalanced quotes: retry closed, then give up on quoting
            continue
        return [(w.replace(_QUOTED_SEMI, ";"), _is_operator(w)) for w in words]
    return [(w, False) for w in text.split()]


def _is_operator(word: str) -> bool:
    return bool(word) and all(c in _PUNCT for c in word)


def _simple_commands(tokens: list[tuple[str, bool]]):
    """[(argv, redirects, pipeline id)]; `(`/`)` and `<(` split commands too."""
    commands = []
    argv: list[str] = []
    redirects: list[tuple[str, str]] = []
    pipeline = 0
    pending: str | None = None
    for word, is_op in tokens:
        if is_op and ("<" in word or ">" in word) and "(" not in word:
            if argv and argv[-1].isdigit():  # `2>file`: the fd number is not an argument
                argv.pop()
            pending = word
            continue
        if is_op:
            if argv or redirects:
                commands.append((argv, redirects, pipeline))
            argv, redirects = [], []
            if word.strip("|") or word == "||":  # anything but a plain pipe ends the pipeline
                pipeline += 1
            continue
        if pending is not None:
            redirects.append((pending, word))
            pending = None
        else:
            argv.append(word)
    if argv or redirects:
        commands.append((argv, redirects, pipeline))
    return commands


def _variables(commands) -> dict[str, list[str]]:
    """Literal values assigned anywhere in the script (flow-insensitive; the last literal wins)."""
    values: dict[str, list[str]] = {}
    for argv, _, _ in commands:
        words = argv[1:] if argv and argv[0] in _DECLARE else argv
        if words[:1] == ["for"] and len(words) > 3 and words[2] == "in":
            values[words[1]] = [w for w in words[3:] if "$" not in w][:16] or values.get(words[1], [])
            continue
        for word in words:
            m = _ASSIGN.match(word)
            if m is None:
                if not word.startswith("-"):
                    break
                continue
            value = _expand_word(m.group(2), values)
            if "$" not in value and "`" not in value:
                values[m.group(1)] = [value]
    return values


def _expand_word(word: str, values: dict[str, list[str]]) -> str:
    if "$" not in word:
        return word

    def sub(m: re.Match) -> str:
        name = m.group(1) or m.group(2)
        if name in values:
            return values[name][-1]
        return "~" if name == "HOME" else m.group(0)

    return _VAR.sub(sub, word)


def _expand_argv(argv: list[str], values: dict[str, list[str]]) -> list[str]:
    out: list[str] = []
    for word in argv:
        m = _VAR.fullmatch(word)
        name = m and (m.group(1) or m.group(2))
        if name and len(values.get(name, ())) > 1:
            out.extend(values[name])
        else:
            out.append(_expand_word(word, values))
    return out


# --- one simple command -------------------------------------------------------------------------


def _command(argv, redirects, variables, via: str, st: _State, depth: int, own: list[str]) -> Iterator[tuple[str, str, str]]:
    substituted = [w for w in argv if "$(" in w or "`" in w]  # assignments' values too: x="$(cat key)"
    while argv and _ASSIGN.match(argv[0]):
        argv = argv[1:]
    while argv and argv[0] in _KEYWORDS:
        argv = argv[1:]
    declared = bool(argv) and argv[0] in _DECLARE
    alternatives = [[]] if declared else [_unwrap(w) for w in _word_split(_expand_argv(argv, variables))]
    words = alternatives[0]
    targets = [(op, _path(_expand_word(t, variables))) for op, t in redirects]
    if words or targets:
        own.append(_line(words, targets))
        yield "command", own[-1], via
    for other in alternatives[1:]:
        yield "command", _line(other, targets), _join(via, "glob")
    for word in substituted:
        for inner in _substitutions(_expand_word(word, variables)):
            yield from _parse(inner, _join(via, "substitution"), st, depth + 1)
    if not words:
        return
    program = _base(words[0])
    script, step = _inline_script(program, words)
    if script is not None:
        yield from _parse(script, _join(via, step), st, depth + 1)
    if program == "find":
        yield from _find_exec(words, via, st, depth)


# Command names a glob in the command word may stand for (`/???/?at` is cat): the programs the
# builtin rules name.
KNOWN_PROGRAMS = (
    "cat", "tac", "less", "more", "head", "tail", "nl", "od", "xxd", "strings", "base64", "cp", "mv", "scp", "rsync",
    "tar", "zip", "grep", "awk", "sed", "dd", "tee", "touch", "ln", "install", "rm", "unlink", "shred", "rmdir",
    "truncate", "curl", "wget", "nc", "ncat", "netcat", "socat", "telnet", "bash", "sh", "zsh", "dash", "python",
    "python3", "perl", "ruby", "php", "node", "chmod", "chown", "chattr", "usermod", "useradd", "passwd", "chpasswd",
    "crontab", "kill", "pkill", "killall", "systemctl", "mkfs", "fdisk", "wipefs", "iptables", "setcap", "visudo",
)


def _word_split(words: list[str]) -> list[list[str]]:
    """What the shell does to the command word, as the alternatives the rules should read:
    `{rm,-rf,/}` brace-expands, an unquoted `$cmd` holding "rm -rf /" splits into words, and
    `/???/?at` globs to a program (each known program it could name, up to four)."""
    if not words:
        return [words]
    first = words[0]
    base = first.rsplit("/", 1)[-1]
    if any(c in base for c in "?*["):
        named = [p for p in KNOWN_PROGRAMS if fnmatchcase(p, base)][:4]
        if named:
            return [[p, *words[1:]] for p in named]
    if _BRACES.fullmatch(first):
        return [first[1:-1].split(",") + words[1:]]
    if any(c.isspace() for c in first.strip()):
        try:
            return [shlex.split(first) + words[1:]]
        except ValueError:
            return [first.split() + words[1:]]
    return [words]


def _line(words: list[str], targets: list[tuple[str, str]]) -> str:
    """The canonical rendering rules read: program basename, arguments, then `>FILE` / `<FILE`."""
    parts = [_base(words[0])] + [_path(w) for w in words[1:]] if words else []
    parts += [f"{op.replace('&', '')}{target}" for op, target in targets if op not in ("<<", "<<-")]
    return " ".join(parts)


def _unwrap(words: list[str]) -> list[str]:
    """Drop sudo, env, nohup, timeout, xargs, ... and their options: the command they run (a wrapper
    that runs nothing, like a bare `env`, stays itself)."""
    for _ in range(6):
        if not words or _base(words[0]) not in _WRAPPERS:
            return words
        before = words
        name = _base(words[0])
        takes_arg = _WRAPPERS[name]
        i, skip = 1, _POSITIONAL_WRAPPERS.get(name, 0)
        while i < len(words):
            w = words[i]
            if w == "--":
                i += 1
                break
            if w.startswith("-") and len(w) > 1:
                i += 2 if (len(w) == 2 and w[1] in takes_arg) else 1
            elif name == "env" and _ASSIGN.match(w):
                i += 1
            elif skip:
                skip, i = skip - 1, i + 1
            else:
                break
        words = words[i:]
        if not words:
            return before
    return words


def _inline_script(program: str, words: list[str]) -> tuple[str | None, str]:
    """The script a shell or interpreter is given on its command line, if any."""
    if program in SHELLS:
        args = words[2:] if program == "busybox" else words[1:]
        for i, w in enumerate(args):
            if w.startswith("-") and not w.startswith("--") and "c" in w[1:]:
                return (args[i + 1], "shell -c") if i + 1 < len(args) else (None, "")
        return None, ""
    if program == "eval":
        return " ".join(words[1:]), "eval"
    if program in ("su", "runuser"):
        for i, w in enumerate(words[:-1]):
            if w in ("-c", "--command"):
                return words[i + 1], "su -c"
        return None, ""
    if program == "ssh":
        return _ssh_command(words), "ssh"
    flag = _INTERPRETERS.get(program.rstrip("0123456789."))
    if flag is not None:
        for i, w in enumerate(words[:-1]):
            if w == flag or (w.startswith("-") and not w.startswith("--") and w.endswith(flag[1])):
                return _program_view(words[i + 1]), f"{program.rstrip('0123456789.')} {flag}"
    return None, ""


def _ssh_command(words: list[str]) -> str | None:
    i, takes = 1, set("bcDEeFIiJLlmOopQRSWw")
    while i < len(words) and words[i].startswith("-"):
        i += 2 if len(words[i]) == 2 and words[i][1] in takes else 1
    rest = words[i + 1 :]
    return " ".join(rest) if rest else None


def _program_view(code: str) -> str:
    """A `python -c` style program, plus the shell commands it hands to os.system / subprocess."""
    calls = []
    for m in _PY_CALL_STRINGS.finditer(code):
        calls.append(" ".join(a or b for a, b in _PY_STRING.findall(m.group(1))))
    return "\n".join([code, *calls])


def _find_exec(words: list[str], via: str, st: _State, depth: int) -> Iterator[tuple[str, str, str]]:
    for i, w in enumerate(words):
        if w in ("-exec", "-execdir", "-ok", "-okdir"):
            inner = []
            for v in words[i + 1 :]:
                if v in (";", "+"):
                    break
                inner.append(v)
            inner = _unwrap(inner)
            if inner:
                yield "command", _line(inner, []), _join(via, "find -exec")
                script, step = _inline_script(_base(inner[0]), inner)
                if script is not None:
                    yield from _parse(script, _join(via, step), st, depth + 1)


def _substitutions(word: str) -> list[str]:
    found = re.findall(r"`([^`]*)`", word)
    start = word.find("$(")
    while start != -1:
        level, i = 0, start + 1
        for i in range(start + 1, len(word)):
            level += word[i] == "("
            level -= word[i] == ")"
            if level == 0:
                break
        found.append(word[start + 2 : i])
        start = word.find("$(", i)
    return [f for f in found if f.strip()]


def _base(word: str) -> str:
    return word.rsplit("/", 1)[-1] if "/" in word and not word.endswith("/") else word


def _path(word: str) -> str:
    """Collapse `//`, `/./` and `..` in an absolute path, so `/tmp/../etc/x` reads as `/etc/x`."""
    if word.startswith("/") and ("//" in word or "/." in word):
        return "/" + posixpath.normpath(word).lstrip("/")
    return word


# --- heredocs ---------------------------------------------------------------


def _split_heredocs(script: str) -> tuple[str, list[str]]:
    """The script without heredoc bodies, and the bodies in the order their `<<` appear."""
    if "<<" not in script:
        return script, []
    lines, kept, bodies = script.split("\n"), [], []
    i = 0
    while i < len(lines):
        line = lines[i]
        kept.append(line)
        i += 1
        for m in _HEREDOC.finditer(line.replace("<<<", "   ")):
            body = []
            while i < len(lines) and (lines[i].lstrip("\t") if m.group(1) else lines[i]).rstrip() != m.group(3):
                body.append(lines[i])
                i += 1
            i += 1
            bodies.append("\n".join(body))
    return "\n".join(kept), bodies


def _runs_stdin(words: list[str]) -> bool:
    if not words:
        return False
    program = _base(words[0])
    if program in SHELLS or program in ("eval", "source", "."):
        return not any(w.startswith("-") and "c" in w[1:] and not w.startswith("--") for w in words[1:])
    return program.rstrip("0123456789.") in _INTERPRETERS or program == "ssh"
