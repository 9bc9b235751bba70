"""Find patching of the serving stack in added or launch lines (Checks `patch` and `draft`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property, lru_cache

from infx.signoff import per_verdict
from infx.signoff.model import ChangedFile, Evidence
from infx.signoff.rules.policy_reads import diffed_files, policy
from infx.signoff.rules.scan import (
    HEREDOC,
    Line,
    added_commands,
    added_lines,
    heredoc_opening,
    heredoc_word,
)
from infx.signoff.rules.shell_values import literal_assignments

_INPLACE = re.compile(r"\bsed\s+(?:-\w*\s+)*-i|\bawk\s+-i\s+inplace|\bperl\s+-\w*i|\bgit\s+apply\b"
                      r"|\bpatch\s+-p\d|\bpatch\s+<|\bpatch\s+-i\b")
_COPY = re.compile(r"\b(?:cp|mv|install|rsync|ln|tee|dd)\b")
# a heredoc that writes files; patching when its script also locates the engine install
_WRITES = re.compile(r"write_text|\.write\(|open\([^)]*[\"'][wa]\+?[\"']|\bsed\s+-i|>\s*\S")
_INJECT = re.compile(r"sitecustomize|usercustomize|PYTHONSTARTUP")
# one install command: its words end where the shell list goes on (`pip install X && python …`)
# (a quoted `;`, `&` or `|` is a word's: `"numpy; python_version<'3.12'" vllm`, `"https://h/?a=1&b=2"`)
_PIP = re.compile(r"\b(?:pip3?|uv\s+pip)\s+install\b(?P<rest>(?:\"[^\"]*\"|'[^']*'|[^;&|\"'])*)")
_REBUILD = re.compile(r"\bsetup\.py\s+(?:install|develop)\b|\bdocker\s+build\b|\bpip3?\s+install\s+(?:-e\s+)?\.(?:\s|$)")
BENCHMARK_FILE = re.compile(r"^(?:[^/]+/)?(?:benchmarks|runners|configs|scripts|docker|utils)/"
                            r"|Dockerfile|\.sh$|\.patch$|\.diff$")
_OPTION_WITH_VALUE = {"--target", "-t", "--prefix", "--root", "--index-url", "-i", "--extra-index-url",
                      "-c", "--constraint", "--cache-dir", "--python", "--find-links", "-f"}
_DOCKERFILE = re.compile(r"(?:^|/)(?:Dockerfile|Containerfile)[^/]*$|\.dockerfile$", re.IGNORECASE)
_DOC = re.compile(r"(^|/)docs?/|\.md$|\.rst$|\.txt$")


@dataclass(frozen=True)
class Patching:
    """One place the PR modifies the engine or image, with the lines that do it."""

    where: str
    what: str
    path: str
    body: tuple[str, ...] = ()


def find_patching(files: list[ChangedFile], engine_paths: list[str], engine_packages: list[str],
                  allowed_packages: list[str], components: list[dict] | None = None,
                  heredoc_files: dict | None = None) -> list[Patching]:
    """Every patching lead in the changed files (docs excluded); work on a non-engine component
    (``components``: the patching policy's ``non-engine-components``) is none, unless the line
    itself names an engine path (a harness file copied into the engine's site-packages). A
    heredoc that only writes a file (``heredoc_files``: the policy's ``heredoc-files``) is a
    lead when that file may be an engine path (``heredoc_target_is_engine``)."""
    found: list[Patching] = []
    engine_paths = [*engine_paths, *module_locations(engine_packages)]
    for f in files:
        if f.status == "removed" or _DOC.search(f.filename):
            continue
        if f.filename.endswith((".patch", ".diff")):
            found.append(Patching(f.filename, "adds a patch file", f.filename,
                                  tuple(ln.text for ln in added_lines(f.filename, f.patch))))
            continue
        lines = added_commands(f.filename, f.patch)
        if _DOCKERFILE.search(f.filename):
            found += [Patching(ln.where(), f"builds a derived image instead of running the pinned one: "
                               f"{ln.text.strip()}", ln.path, (ln.text,))
                      for ln in lines if re.match(r"\s*FROM\s", ln.text, re.IGNORECASE)]
        found += _scan(lines, engine_paths, engine_packages, allowed_packages, components or [], heredoc_files)
    return found


def module_locations(packages: list[str]) -> list[str]:
    """Words that find an engine package's own source files from the package itself, as
    ``find_spec`` does: its ``__file__`` / ``__path__``, ``inspect.getfile`` of it,
    ``importlib.resources.files`` of its name (``"$(python3 -c 'import atom; print(atom.__file__)')"``)."""
    names = [p.replace("-", "_") for p in packages if re.fullmatch(r"[A-Za-z_][\w-]*", p)]
    return [word for name in dict.fromkeys(names)
            for word in (f"{name}.__file__", f"{name}.__path__", f"getfile({name}", f"getsourcefile({name}",
                         f'files("{name}"', f"files('{name}'", f'path("{name}"', f"path('{name}'")]


_ENTER = re.compile(r"(?:^\s*|[;&|]\s*)(?:cd|pushd)\s+(\S+)|\bgit\s+clone\b(?:\s+-{1,2}[\w-]+(?:[ =](?!https?:)\S+)?)*\s+(\S+)(?:\s+([^\s;&|]+))?")


def non_engine_component(text: str, folder: str, components: list[dict]) -> str | None:
    """The non-engine component a line works on (it names one, or runs in its folder)."""
    return _component_of(text, folder, component_markers(components))


def component_markers(components: list[dict]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(name, lower-case markers) of each non-engine component, as `_component_of` reads them."""
    return tuple((str(c["name"]), _lowered(tuple(c["markers"]))) for c in components)


@lru_cache(maxsize=16384)
def _component_of(text: str, folder: str, markers: tuple[tuple[str, tuple[str, ...]], ...]) -> str | None:
    text, folder = text.lower(), folder.lower()
    return next((name for name, words in markers if any(m in text or m in folder for m in words)), None)


@lru_cache(maxsize=64)
def _lowered(markers: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(m.lower() for m in markers)


def _folder_after(text: str, folder: str, clones: dict[str, str], lines: list[Line]) -> str:
    """The folder a file is in after this line: `cd X` / `pushd X` enter X (a folder a clone
    made stands for its repository); `git clone URL [DIR]` remembers DIR -> URL. A variable in
    X, URL or DIR stands for its value when the file gives it exactly one (`_expanded`)."""
    for match in _ENTER.finditer(text):
        if match.group(1):
            target = _expanded(match.group(1).strip("'\""), lines)
            folder = clones.get(target, target)
        elif match.group(2):
            url = _expanded(match.group(2).strip("'\""), lines)
            written = match.group(3).strip("'\"") if match.group(3) else None
            target = _expanded(written, lines) if written else url.rstrip("/").rsplit("/", 1)[-1].removesuffix(".git")
            # a folder a clone made is the repository cloned into it, whatever it is called
            # (`git clone …/vllm.git lmcache` is vLLM); its name stands only for a URL not known here
            clones[target] = url if "$" not in url else f"{target} ({url})"
    return folder


def _expanded(word: str, lines: list[Line]) -> str:
    """``word`` with each ``$NAME`` / ``${NAME}`` the file sets to one literal value replaced by it
    (others kept as written: a name set twice or from the environment is not known here; nor
    is one the lines write in any other way, ``NAME+=…``, ``read NAME``, ``for NAME in …``).
    ``lines``: those before the line that holds ``word``."""
    def value(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        assigned = literal_assignments(lines, name)
        written = re.compile(rf"(?<![\w$]){re.escape(name)}(?!\w)")
        if any(_SCOPED.match(ln.text) and re.search(rf"(?<![\w$]){re.escape(name)}=", ln.text) for ln in lines):
            return match.group(0)  # a function's `local D=…` (or declare) is not the file's value
        if len(set(assigned)) == 1 and _ONE_WORD.fullmatch(known := assigned[0]) \
                and sum(1 for ln in lines if written.search(ln.text.replace("${" + name, ""))) == len(assigned):
            return known  # one plain word: `D=/sgl-workspace/sglang; echo lmcache` gives D no marker
        return match.group(0)

    return _PLAIN_VAR.sub(value, word) if "$" in word else word


_PLAIN_VAR = re.compile(r"\$\{(\w+)\}|\$(\w+)")
_ONE_WORD = re.compile(r"[^\s;&|<>()$`\"'\\#]+")
_SCOPED = re.compile(r"^\s*(?:local|declare|typeset)\b")


def _scan(lines: list[Line], paths: list[str], packages: list[str], allowed: list[str],
          components: list[dict], heredoc_files: dict | None = None) -> list[Patching]:
    found: list[Patching] = []
    file_locates_engine = _touches_engine("\n".join(ln.text for ln in lines), paths)
    # a Python program that finds the engine's own files from its module (``atom.__file__``):
    # what it writes may be those files
    program_locates_engine = bool(lines) and lines[0].path.endswith(".py") and _touches_engine(
        "\n".join(ln.text for ln in lines), module_locations(packages))
    index, folder, clones = 0, "", {}
    read: dict[str, _LineFacts] = {}  # copied blocks repeat their lines: read each text once
    markers = component_markers(components)
    commands: list[Line] = []  # the lines before this one that run (heredoc text is not among them)
    while index < len(lines):
        line = lines[index]
        facts = read.get(line.text)
        if facts is None:
            facts = read[line.text] = _LineFacts(line.text, paths, packages, allowed)
        if facts.enters:
            folder = _folder_after(line.text, folder, clones, commands)  # what is set before it
        commands.append(line)
        if markers and not facts.names_engine and _component_of(line.text, folder, markers):
            index += 1
            continue
        heredoc = facts.heredoc
        if heredoc:
            body, index = _heredoc_body(lines, index, heredoc_word(heredoc))
            text = line.text + "\n" + "\n".join(body)
            target = heredoc_target(line.text, heredoc_files["writers"]) if heredoc_files else None
            if target is not None:
                # the heredoc is data written to one file: judge that file (and the body, in
                # case it is a script run later), not the redirect that writes it
                engine = heredoc_target_is_engine(target, lines, paths, heredoc_files["path-commands"])
                body_text = "\n".join(body)
                patched = engine or _touches_engine(line.text + "\n" + body_text, paths) or (
                    file_locates_engine and _WRITES.search(body_text) is not None)
            else:
                patched = _touches_engine(text, paths) or (file_locates_engine and _WRITES.search(text) is not None)
            if patched:
                found.append(Patching(line.where(), f"heredoc rewrites engine files: {line.text.strip()}",
                                      line.path, tuple(body)))
            continue
        lead = facts.lead
        if not lead and program_locates_engine and _WRITES.search(line.text):
            lead = "writes files of a program that locates the engine's sources from its module"
        if lead:
            found.append(Patching(line.where(), f"{lead}: {line.text.strip()}", line.path, (line.text,)))
        index += 1
    return found


class _LineFacts:
    """What one line's text says to the scan, whatever the lines around it: whether it may
    change folder, the heredoc it opens, its patching lead (read when asked)."""

    def __init__(self, text: str, paths: list[str], packages: list[str], allowed: list[str]) -> None:
        self._text, self._rules = text, (paths, packages, allowed)
        self.enters = _ENTER.search(text) is not None
        self.heredoc = heredoc_opening(text)

    @cached_property
    def names_engine(self) -> bool:
        return _touches_engine(self._text, self._rules[0])

    @cached_property
    def lead(self) -> str | None:
        return _line_lead(self._text, *self._rules)


_WRITER_WORD = re.compile(r"^\s*(?:sudo\s+(?:-\S+\s+)*)?(\S+)")
_REDIRECT = re.compile(r"(?<![<>&\d])>>?\s*(\"[^\"]*\"|'[^']*'|[^\s;&|<>]+)")
_VAR = re.compile(r"\$\{(\w+)(?::?[-=]([^}]*))?\}|\$(\w+)")
_SUBST = re.compile(r"\$\(\s*([\w./-]+)|`\s*([\w./-]+)")
_MAX_DEPTH = 4


def heredoc_target(text: str, writers: list[str]) -> str | None:
    """The file a heredoc's opening line writes when its command only copies the heredoc
    into files (``cat > F <<EOF``, ``cat <<EOF >> F``, ``tee [-a] F <<EOF``), else None."""
    command = _WRITER_WORD.match(text)
    if not command or command.group(1).rsplit("/", 1)[-1] not in writers:
        return None
    opening = HEREDOC.sub(" ", text[command.end():], count=1)
    if command.group(1).endswith("tee"):
        words = [w for w in opening.split() if not w.startswith(("-", ">")) and w != "/dev/null"]
        return words[0].strip("\"'") if words and not words[0].startswith(("|", ";", "&")) else None
    redirect = _REDIRECT.search(opening)
    return redirect.group(1).strip("\"'") if redirect else None


def heredoc_target_is_engine(target: str, lines: list[Line], paths: list[str], commands: list[str],
                             seen: frozenset[str] = frozenset()) -> bool:
    """Whether a heredoc's target file may be in the engine install: its text names an engine
    path, computes a path with a command other than ``commands`` (pwd, mktemp, …), or uses a
    variable whose value in the file's assignments does (followed ``_MAX_DEPTH`` deep, each
    name once; a variable the file never sets comes from the job's environment and names no
    path here)."""
    if _touches_engine(target, paths) or len(seen) > _MAX_DEPTH:
        return True
    for match in _SUBST.finditer(target):
        word = (match.group(1) or match.group(2)).rsplit("/", 1)[-1]
        if word not in commands:
            return True
    for match in _VAR.finditer(target):
        name, default = match.group(1) or match.group(3), match.group(2)
        if name in seen:
            continue  # NAME="${NAME:-…}": its other values are followed already
        if default and heredoc_target_is_engine(default, lines, paths, commands, seen | {name}):
            return True
        for value in literal_assignments(lines, name):
            if heredoc_target_is_engine(value, lines, paths, commands, seen | {name}):
                return True
    return False


def _heredoc_body(lines: list[Line], start: int, marker: str) -> tuple[list[str], int]:
    body = []
    index = start + 1
    while index < len(lines) and lines[index].text.strip() != marker:
        body.append(lines[index].text)
        index += 1
    return body, index + 1


def _touches_engine(text: str, paths: list[str]) -> bool:
    """Whether the text names one of the engine paths (any case). The packages' module
    locations (module_locations) are looked for only in a text with one of their markers."""
    lowered = text.lower()
    plain, located = _engine_words(tuple(paths))
    if any(p in lowered for p in plain):
        return True
    return any(m in lowered for m in _LOCATION_MARKERS) and any(p in lowered for p in located)


_LOCATION_MARKERS = ("__file__", "__path__", "getfile(", "getsourcefile(", "files(", "path(")


@lru_cache(maxsize=64)
def _engine_words(paths: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    # (the policy's words, the module locations), lowered once: every line is asked
    lowered = tuple(dict.fromkeys(p.lower() for p in paths))
    located = tuple(p for p in lowered if any(m in p for m in _LOCATION_MARKERS))
    return tuple(p for p in lowered if p not in located), located


def _line_lead(text: str, paths: list[str], packages: list[str], allowed: list[str]) -> str | None:
    if _INPLACE.search(text) and (_touches_engine(text, paths) or "apply" in text or "patch" in text):
        return "in-place edit or patch of engine sources"
    if _COPY.search(text) and _touches_engine(text, paths):
        return "copies files over the image's engine install"
    if _INJECT.search(text):
        return "injects startup code (sitecustomize/usercustomize/PYTHONSTARTUP)"
    if _REBUILD.search(text):
        return "rebuilds the engine or image from source"
    for pip in _PIP.finditer(text):
        engine = _engine_install(pip.group("rest"), packages, allowed)
        if engine:
            return f"installs engine package {engine} on top of the pinned image"
    return None


def _engine_install(args: str, packages: list[str], allowed: list[str]) -> str | None:
    names = {p.lower() for p in packages}
    skip_next = False
    for token in args.split():
        if skip_next or token.startswith("-"):
            skip_next = token in _OPTION_WITH_VALUE
            continue
        lowered = token.lower().strip("'\"")
        if lowered.startswith(("git+", "http://", "https://", "/", "./")) or lowered.endswith(".whl"):
            base = re.split(r"[/@#=]", lowered.rstrip("/"))
            if not any(a.lower() in lowered for a in allowed) or any(n in base for n in names):
                return token
            continue
        name = re.split(r"[<>=!~\[;]", lowered, maxsplit=1)[0]
        if name in names:
            return token
    return None


def patching_in(evidence: Evidence) -> list[Patching]:
    """Patching leads in the PR's added lines, per the trusted patching policy (worked out
    once per verdict: Checks `patch` and `draft` both read them)."""
    def find() -> list[Patching]:
        rules = policy(evidence).doc("patching")
        return find_patching(diffed_files(evidence), rules["engine-paths"], rules["engine-packages"],
                             rules["allowed-packages"], rules.get("non-engine-components"),
                             rules.get("heredoc-files"))

    return list(per_verdict.once(evidence, "patching", find))
