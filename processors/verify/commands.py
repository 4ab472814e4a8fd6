"""What a shell command does to the world, read with `shlex` (never by hand).

A command line becomes `Effect`s: files written, edited, created or deleted
(redirections, `tee`, `sed -i`, `cp`/`mv`, `rm`, here-documents, Python
scripts that open a file for writing), test runs, package installs,
migrations, and git commits and pushes. The tables below are the data; the
functions only walk tokens. Anything not recognised yields no effect, which
is the safe side: a claim it would have backed is graded `unverified`, never
`verified` by mistake.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from functools import lru_cache

# Effect kinds.
WRITE, EDIT, CREATE, DELETE = "write", "edit", "create", "delete"
TEST, INSTALL, MIGRATE, COMMIT, PUSH, RUN = "test", "install", "migrate", "commit", "push", "run"
FILE_KINDS = frozenset({WRITE, EDIT, CREATE, DELETE})


@dataclass(frozen=True, slots=True)
class Effect:
    """One thing an action did: `target` is a path, a package, a test target or a script."""

    kind: str
    target: str | None = None
    content: str | None = None  # the whole written content (write) or the new text (edit), when known
    indirect: bool = False  # inferred from a script that names the file, not from the command itself


# --- the tables -------------------------------------------------------------------------------
_SEPARATORS = frozenset({"&&", "||", ";", "|", "&", "|&", ";;", "(", ")", "{", "}"})
_REDIRECTS = frozenset({">", ">>", ">|", "&>", "&>>"})
_WRAPPERS = frozenset({"sudo", "time", "env", "nohup", "nice", "command", "exec", "xargs", "stdbuf"})
_DELETERS = frozenset({"rm", "unlink", "rmdir", "shred"})
_CREATORS = frozenset({"touch", "mkdir"})
_TEST_RUNNERS = frozenset(
    {"pytest", "py.test", "tox", "nox", "jest", "vitest", "mocha", "rspec", "ctest", "phpunit", "ava", "tap"}
)
_TEST_SUBCOMMANDS = {  # program -> subcommands that run tests
    "npm": {"test", "t", "run-script test"},
    "yarn": {"test"},
    "pnpm": {"test"},
    "bun": {"test"},
    "go": {"test"},
    "cargo": {"test", "nextest"},
    "make": {"test", "check", "tests", "test-all"},
    "mvn": {"test", "verify"},
    "gradle": {"test", "check"},
    "gradlew": {"test", "check"},
    "dotnet": {"test"},
    "deno": {"test"},
    "mix": {"test"},
    "bundle": {"exec rspec", "exec rake test"},
    "rake": {"test", "spec"},
    "hatch": {"test"},
}
_INSTALLERS = {  # program -> subcommands that install packages
    "pip": {"install"},
    "pip3": {"install"},
    "uv": {"pip install", "add"},
    "poetry": {"add"},
    "pipenv": {"install"},
    "conda": {"install"},
    "mamba": {"install"},
    "micromamba": {"install"},
    "npm": {"install", "i", "add"},
    "yarn": {"add"},
    "pnpm": {"add", "install", "i"},
    "bun": {"add", "install"},
    "apt": {"install"},
    "apt-get": {"install"},
    "apk": {"add"},
    "dnf": {"install"},
    "yum": {"install"},
    "brew": {"install"},
    "gem": {"install"},
    "cargo": {"add", "install"},
    "go": {"get", "install"},
    "composer": {"require"},
}
_MIGRATIONS = {  # program -> subcommands that apply migrations
    "alembic": {"upgrade"},
    "flask": {"db upgrade"},
    "rails": {"db:migrate"},
    "rake": {"db:migrate"},
    "prisma": {"migrate deploy", "migrate dev"},
    "knex": {"migrate:latest", "migrate:up"},
    "sequelize": {"db:migrate"},
    "diesel": {"migration run"},
    "goose": {"up"},
    "dbmate": {"up", "migrate"},
    "migrate": {"up"},
    "flyway": {"migrate"},
    "liquibase": {"update"},
    "yoyo": {"apply"},
    "npm": {"run migrate"},
}
_PYTHONS = re.compile(r"^python(?:\d(?:\.\d+)?)?$")
_TEST_FILE = re.compile(r"(?:^|/)(?:test_[^/]*|[^/]*_test|tests?|runtests|conftest)\.py$")
_HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1")
# In a Python script: a literal path opened for writing, or passed to a writing/deleting call.
_PY_WRITE = re.compile(r"""open\(\s*(?:r?['"]([^'"\n]{1,200})['"])\s*,\s*(?:mode\s*=\s*)?['"][wax+]""")
_PY_PATH_LITERAL = re.compile(r"""['"]([\w.\-/]{1,200}\.[A-Za-z][A-Za-z0-9]{0,5})['"]""")
_PY_MUTATES = re.compile(r"\.write(?:lines)?\(|write_text\(|write_bytes\(|os\.remove\(|os\.unlink\(|\.unlink\(|shutil\.|\.replace\(")


def effects_of_command(command: str) -> tuple[Effect, ...]:
    """Every effect of one shell command line (possibly several lines, with here-documents)."""
    return _effects_cached(command) if len(command) <= 20_000 else ()


@lru_cache(maxsize=8192)
def _effects_cached(command: str) -> tuple[Effect, ...]:
    found: list[Effect] = []
    for line, body in _split_heredocs(command):
        for argv, redirects, stdin_body in _simple_commands(line, body):
            found.extend(_effects_of_simple(argv, redirects, stdin_body))
    return tuple(found)


def _split_heredocs(command: str) -> list[tuple[str, str | None]]:
    """(command line, here-document body or None) pairs; a body ends at its terminator line."""
    lines = command.split("\n")
    out: list[tuple[str, str | None]] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        marker = _HEREDOC.search(line)
        if marker is None:
            out.append((line, None))
            continue
        end = marker.group(2)
        body: list[str] = []
        while i < len(lines) and lines[i].strip() != end:
            body.append(lines[i])
            i += 1
        i += 1  # the terminator
        out.append((line[: marker.start()] + line[marker.end() :], "\n".join(body) + "\n"))
    return out


def _tokens(line: str) -> list[str]:
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    try:
        return list(lexer)
    except ValueError:  # an unclosed quote: read what plain splitting gives
        return line.split()


def _simple_commands(line: str, body: str | None):
    """(argv, [(operator, target)], here-document body) for each simple command of the line."""
    argv: list[str] = []
    redirects: list[tuple[str, str]] = []
    tokens = _tokens(line)
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token in _SEPARATORS:
            if argv or redirects:
                yield argv, redirects, body
            argv, redirects = [], []
        elif token in _REDIRECTS or token in ("<", ">&", "<&"):
            target = tokens[i + 1] if i + 1 < len(tokens) else ""
            if argv and argv[-1].isdigit() and token != "<":
                argv.pop()  # the "2" of "2>" or "2>&1" names a stream, not an argument
            if token in _REDIRECTS:
                redirects.append((token, target))
            i += 1
        else:
            argv.append(token)
        i += 1
    if argv or redirects:
        yield argv, redirects, body


def _strip_wrappers(argv: list[str]) -> list[str]:
    """Drop `sudo`, `env`, `timeout 60`, leading VAR=value assignments."""
    i = 0
    while i < len(argv):
        word = argv[i]
        if "=" in word and not word.startswith("-") and re.match(r"^[A-Za-z_]\w*=", word):
            i += 1
        elif word in _WRAPPERS:
            i += 1
        elif word == "timeout" and i + 1 < len(argv):
            i += 2
        else:
            break
    return argv[i:]


def _effects_of_simple(argv: list[str], redirects, body: str | None) -> list[Effect]:
    argv = _strip_wrappers(argv)
    out: list[Effect] = []
    for operator, target in redirects:
        if target and target not in ("/dev/null", "/dev/stdout", "/dev/stderr"):
            content = _redirected_content(argv, body) if operator in (">", ">|", "&>") else None
            out.append(Effect(WRITE if operator in (">", ">|", "&>") else EDIT, target, content))
    if not argv:
        return out
    program = os.path.basename(argv[0])
    out.extend(_file_effects(program, argv))
    out.extend(_program_effects(program, argv, body))
    return out


def _redirected_content(argv: list[str], body: str | None) -> str | None:
    program = os.path.basename(argv[0]) if argv else ""
    if program == "cat" and len(argv) == 1 and body is not None:
        return body
    if program == "echo":
        words = [w for w in argv[1:] if w not in ("-e", "-n", "-E")]
        return " ".join(words) + ("" if "-n" in argv else "\n")
    return None


def _operands(argv: list[str]) -> list[str]:
    return [a for a in argv[1:] if not a.startswith("-")]


def _file_effects(program: str, argv: list[str]) -> list[Effect]:
    if program in _DELETERS:
        return [Effect(DELETE, p) for p in _operands(argv)]
    if program == "git" and len(argv) > 1 and argv[1] == "rm":
        return [Effect(DELETE, p) for p in _operands(argv[1:])]
    if program in _CREATORS:
        return [Effect(CREATE, p) for p in _operands(argv)]
    if program == "tee":
        kind = EDIT if ("-a" in argv or "--append" in argv) else WRITE
        return [Effect(kind, p) for p in _operands(argv)]
    if program in ("sed", "perl") and any(a == "-i" or a.startswith(("-i", "--in-place", "-pi")) for a in argv[1:]):
        operands = _operands(argv)
        return [Effect(EDIT, p) for p in operands[1:]] if operands else []
    if program in ("cp", "install", "ln") and len(_operands(argv)) >= 2:
        return [Effect(WRITE, _operands(argv)[-1])]
    if program == "mv" and len(_operands(argv)) >= 2:
        operands = _operands(argv)
        return [Effect(DELETE, p) for p in operands[:-1]] + [Effect(WRITE, operands[-1])]
    if program in ("patch",) or (program == "git" and argv[1:2] == ["apply"]):
        return [Effect(EDIT, p) for p in _operands(argv)[1 if program == "git" else 0 :] if not p.endswith((".patch", ".diff"))]
    return []


def _subcommand(argv: list[str], table: dict[str, set[str]], program: str) -> str | None:
    """The table's subcommand that argv runs (`npm run migrate`, `uv pip install`), if any."""
    words = [a for a in argv[1:] if not a.startswith("-")]
    for sub in table.get(program, ()):
        parts = sub.split()
        if words[: len(parts)] == parts:
            return sub
    return None


def _program_effects(program: str, argv: list[str], body: str | None) -> list[Effect]:
    if _PYTHONS.match(program) or program in ("pypy", "pypy3"):
        return _python_effects(argv, body)
    if program in _TEST_RUNNERS or _subcommand(argv, _TEST_SUBCOMMANDS, program.removeprefix("./")):
        return [Effect(TEST, " ".join(argv))]
    if _TEST_FILE.search(argv[0]):  # ./tests/runtests.py, ./run_tests.sh is handled below
        return [Effect(TEST, " ".join(argv))]
    if re.search(r"(?:^|/)(?:run_?tests?\.sh|runtests|bin/test)$", argv[0]):
        return [Effect(TEST, " ".join(argv))]
    if (sub := _subcommand(argv, _INSTALLERS, program)) is not None:
        return [Effect(INSTALL, p) for p in _packages(argv, sub)] or [Effect(INSTALL, None)]
    if _subcommand(argv, _MIGRATIONS, program):
        return [Effect(MIGRATE, " ".join(argv))]
    if program == "git" and len(argv) > 1:
        sub = argv[1]
        if sub == "commit":
            return [Effect(COMMIT, None)]
        if sub == "push":
            return [Effect(PUSH, " ".join(_operands(argv[1:])) or None)]
    return []


def _python_effects(argv: list[str], body: str | None) -> list[Effect]:
    args = argv[1:]
    if args[:2] in (["-m", "pytest"], ["-m", "unittest"], ["-m", "tox"], ["-m", "nox"]):
        return [Effect(TEST, " ".join(argv))]
    if args[:2] == ["-m", "pip"] and "install" in args:
        return [Effect(INSTALL, p) for p in _packages(argv[2:], "install")] or [Effect(INSTALL, None)]
    if args[:1] == ["manage.py"] or (args and args[0].endswith("/manage.py")):
        if args[1:2] == ["migrate"]:
            return [Effect(MIGRATE, " ".join(argv))]
        if args[1:2] == ["test"]:
            return [Effect(TEST, " ".join(argv))]
    if args[:1] == ["-c"] and len(args) > 1:
        return script_effects(args[1])
    script = next((a for a in args if not a.startswith("-")), None)
    if script is None or script == "-":
        return script_effects(body) if body else []
    if _TEST_FILE.search(script):  # a test, and a script whose writes may be known
        return [Effect(TEST, " ".join(argv)), Effect(RUN, script)]
    return [Effect(RUN, script)]


_EDITING_SCRIPT = re.compile(r"(?:^|[_/\-])(?:fix|apply|patch|modify|update|edit|replace|change|insert|rewrite)", re.I)


def script_effects(source: str | None, name: str | None = None) -> list[Effect]:
    """Files a Python script writes: literal paths opened for writing, or named beside a write call
    (or, in a script named for editing, `apply_fix.py`, named at all: its write may sit past a cut)."""
    if not source:
        return []
    paths = {m.group(1) for m in _PY_WRITE.finditer(source)}
    if _PY_MUTATES.search(source) or (name and _EDITING_SCRIPT.search(name)):
        paths.update(m.group(1) for m in _PY_PATH_LITERAL.finditer(source))
    return [Effect(EDIT, p, indirect=True) for p in sorted(paths)]


_VERSION_SPEC = re.compile(r"(?:\[[^\]]*\])?(?:[=<>!~]=?|@).*$")


def _packages(argv: list[str], sub: str) -> list[str]:
    """Package names an install command names (versions and extras dropped; -r files kept as given)."""
    words = argv[1:]
    skip = len(sub.split())
    out: list[str] = []
    i = 0
    seen_sub = 0
    while i < len(words):
        word = words[i]
        if word in ("-r", "--requirement", "-c", "--constraint", "-e", "--editable"):
            if i + 1 < len(words):
                out.append(words[i + 1])
            i += 2
            continue
        if word.startswith("-"):
            i += 1
            continue
        if seen_sub < skip:
            seen_sub += 1
        else:
            name = word if word.startswith("@") and word.count("@") == 1 else _VERSION_SPEC.sub("", word)
            if name:
                out.append(name)
        i += 1
    return out
