#!/usr/bin/env python3
"""Checks that every reference in the docs and the sources resolves inside
the repository: the project stands alone.

usage: check-doc-refs.py [--root DIR] [-v]

Scanned: every Markdown file (docs/, README.md, bench/README.md, ...) and
every source, script, test and recipe file of the tracked folders (their
comments and their strings alike). Checked:
  - Markdown links `[text](target)`: the target file exists (relative to the
    linking file); a `#anchor` names a heading of the target (GitHub's
    anchor rules); `http:`, `https:` and `mailto:` links are not followed.
  - `docs/x.md`, `x.md`, `docs/x.md#anchor` written in text: the file exists
    (a bare `x.md` is looked up beside the file, then in docs/, then at the
    root) and so does the anchor.
  - `§N` / `§N.M`: the section exists, i.e. the document has a heading that
    starts with that number. The document is the one named just before it
    on the line (`language.md §6.4, §6.7`); else, in a Markdown file, the
    file itself; else the last document the file named before that line.
  - Paths into the repository (`lib/Sema/SemaImpl.h`, `test/Sim/`,
    `std/engines/atom`) in Markdown and in comments (not in code, test
    inputs, `{{...}}` patterns or lit/FileCheck directives): a word that
    starts with a top-level folder of the repository must name an existing
    file or folder (an import path may leave out `.arecipe`). Words with
    placeholders (`<`, `*`, `{`, `$`, `%`, `...`, `…`) and paths git ignores
    (work directories such as fuzz/corpus-work/) are not references.
  - Nothing may cite a file outside the repository: the shared folder beside
    it, or the two external notes the project once cited (FORBIDDEN below).
This file itself is not scanned: its own text names the patterns.
Exit 1 listing every broken reference (file:line: what and why); 0 with a
count of what was checked.
"""
import argparse
import os
import re
import subprocess
import sys
import pathlib

TEXT_SUFFIXES = {".md", ".h", ".hpp", ".cpp", ".cc", ".def", ".inc", ".g4", ".arecipe", ".py",
                 ".sh", ".cmake", ".cfg", ".in", ".test", ".txt", ".json", ".jsonl", ".yaml",
                 ".yml", ".css", ".js", ".dict"}
TEXT_NAMES = {"CMakeLists.txt", "run", ".clang-format"}
SKIP_DIRS = {".git", "corpus"}  # fuzz corpora are inputs, not prose
# Files the tools write (results/summary.md), named in prose: not documents.
OUTPUT_NAMES = {"summary.md"}
DIRECTIVE = re.compile(r"^\s*[A-Z][A-Z0-9_-]*:")
FORBIDDEN = re.compile(r"\.\./shared|\bdomain\.md\b|\binferencex\.md\b")
LINK = re.compile(r"(?<!!)\[(?:[^\]\\]|\\.)*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
MD_REF = re.compile(r"(?<![\w./%-])((?:[\w.-]+/)*[\w.-]+\.md)(#[\w-]+)?")
SECTION = re.compile(r"§\s?(\d+(?:\.\d+)*)")
PLACEHOLDER = re.compile(r"[<>*{}$%]|\.\.\.|…")


def slug(heading):
    """GitHub's anchor for a heading text."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links -> their text
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


class Doc:
    """The headings of one Markdown file: anchors and section numbers."""

    def __init__(self, path):
        self.anchors, self.sections = set(), set()
        seen = {}
        fence = False
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.lstrip().startswith("```"):
                fence = not fence
                continue
            m = re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
            if fence or not m:
                continue
            s = slug(m.group(2))
            n = seen.get(s, 0)
            seen[s] = n + 1
            self.anchors.add(s if n == 0 else f"{s}-{n}")
            num = re.match(r"(\d+(?:\.\d+)*)\.?\s", m.group(2))
            if num:
                self.sections.add(num.group(1))


def comment_lines(path, text):
    """Per line, the comment text of a source file (prose the path check
    reads), with `{{...}}` patterns and lit/FileCheck directives removed."""
    hash_style = path.suffix in (".py", ".sh", ".cmake", ".cfg", ".in", ".yaml", ".yml",
                                 ".dict", ".txt") or path.name in ("run",)
    out = []
    in_block = in_doc = False
    for line in text.splitlines():
        comment = ""
        if path.suffix == ".py" and ('"""' in line or in_doc):
            if in_doc or line.count('"""') == 1:
                comment = line
                if line.count('"""') % 2 == 1:
                    in_doc = not in_doc
            else:
                comment = line
        elif in_block:
            end = line.find("*/")
            comment = line if end < 0 else line[:end]
            in_block = end < 0
        else:
            markers = ("#", "//") if path.suffix == ".test" else (("#",) if hash_style else ("//",))
            stripped = line.lstrip()
            if path.suffix == ".test" and not stripped.startswith(markers):
                stripped = ""
            for mk in markers:
                i = _comment_start(line, mk)
                if i >= 0:
                    comment = line[i + len(mk):]
                    break
            if not hash_style and comment == "":
                i = _comment_start(line, "/*")
                if i >= 0:
                    end = line.find("*/", i + 2)
                    comment = line[i + 2:] if end < 0 else line[i + 2:end]
                    in_block = end < 0
            if path.suffix == ".test" and not stripped:
                comment = ""
        if comment.startswith("---"):
            comment = ""  # a split-file marker names a file the test creates
        if DIRECTIVE.match(comment):
            comment = ""
        out.append(re.sub(r"\{\{.*?\}\}", "", comment))
    return out


def _comment_start(line, marker):
    """Where a comment starts on the line: the first marker outside a string
    literal (and, for `#`, at the start of a word), or -1."""
    quote = None
    i = 0
    while i < len(line):
        c = line[i]
        if quote:
            if c == "\\":
                i += 2
                continue
            if c == quote:
                quote = None
        elif c in "\"'" and marker != "#" or c == '"':
            quote = c
        elif line.startswith(marker, i) and (marker != "#" or i == 0 or line[i - 1] in " \t"):
            if marker == "//" and i > 0 and line[i - 1] == ":":
                i += 2  # a URL's scheme://
                continue
            return i
        i += 1
    return -1


def git_ignored(root, rel):
    """Whether git ignores rel, as a file or as a folder."""
    try:
        return any(subprocess.run(["git", "-C", str(root), "check-ignore", "-q", "--no-index", p],
                                  stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL).returncode == 0
                   for p in (rel.rstrip("/"), rel.rstrip("/") + "/"))
    except OSError:
        return False


def tracked_files(root):
    try:
        out = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "--cached", "--others",
                              "--exclude-standard"], check=True,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
        files = [root / p for p in out.decode().split("\0") if p]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames
                           if d not in SKIP_DIRS and not d.startswith("build")
                           and not (pathlib.Path(dirpath) / d / "CMakeCache.txt").exists()]
            files += [pathlib.Path(dirpath) / f for f in filenames]
    self = pathlib.Path(__file__).resolve()
    return sorted(f for f in files if f.is_file() and f.resolve() != self
                  and not (set(f.relative_to(root).parts) & SKIP_DIRS)
                  and (f.suffix in TEXT_SUFFIXES or f.name in TEXT_NAMES))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=str(pathlib.Path(__file__).resolve().parent.parent))
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    root = pathlib.Path(args.root).resolve()
    files = tracked_files(root)
    top = sorted({f.relative_to(root).parts[0] for f in files if len(f.relative_to(root).parts) > 1})
    path_ref = re.compile(r"(?<![\w./@-])((?:%s)/[\w.+/-]*)" % "|".join(re.escape(t) for t in top))

    docs = {}

    def doc(p):
        if p not in docs:
            docs[p] = Doc(p)
        return docs[p]

    def find_md(name, here):
        """The Markdown file a reference names; None if it names none;
        False if it is no reference into the repository."""
        cands = [here.parent / name]
        first = name.split("/")[0]
        if "/" not in name:
            cands += [root / "docs" / name, root / name]
        elif first in top:
            cands += [root / name]
        elif first not in (".", ".."):
            return None if (here.parent / name).is_file() else False
        for c in cands:
            if c.is_file():
                return c.resolve()
        return None

    errors, counts = [], {"links": 0, "doc references": 0, "sections": 0, "paths": 0}

    def err(f, n, msg):
        errors.append(f"{f.relative_to(root)}:{n}: {msg}")

    for f in files:
        is_md = f.suffix == ".md"
        text = f.read_text(encoding="utf-8", errors="replace")
        last_doc = f.resolve() if is_md else None
        fence = False
        prose = text.splitlines() if is_md else comment_lines(f, text)
        for n, line in enumerate(text.splitlines(), 1):
            if FORBIDDEN.search(line):
                err(f, n, f"cites a file outside the repository: {FORBIDDEN.search(line).group(0)}")
            if is_md and line.lstrip().startswith("```"):
                fence = not fence
            # Markdown links.
            spans = []
            if is_md and not fence:
                for m in LINK.finditer(line):
                    spans.append(m.span())
                    target = m.group(1)
                    if re.match(r"[a-z]+:", target):
                        continue
                    counts["links"] += 1
                    file_part, _, anchor = target.partition("#")
                    dest = (f.parent / file_part).resolve() if file_part else f.resolve()
                    if not dest.exists():
                        err(f, n, f"link to {target}: {file_part} does not exist")
                        continue
                    if anchor:
                        if dest.suffix != ".md":
                            err(f, n, f"link to {target}: an anchor into a file that is not Markdown")
                        elif anchor not in doc(dest).anchors:
                            err(f, n, f"link to {target}: {dest.relative_to(root)} has no heading #{anchor}")
            # Documents named in text, and the sections that follow them.
            refs = []  # (start, end, resolved doc or None)
            for m in MD_REF.finditer(line):
                if any(a <= m.start() < b for a, b in spans) and is_md:
                    # A link's own text or target: the link check covers it, but
                    # a section after it still refers to it.
                    pass
                name, anchor = m.group(1), (m.group(2) or "")[1:]
                if PLACEHOLDER.search(name) or name.split("/")[-1] in OUTPUT_NAMES:
                    continue
                dest = find_md(name, f)
                if dest is False:
                    continue
                counts["doc references"] += 1
                if dest is None:
                    err(f, n, f"{name}: no such document")
                    refs.append((m.start(), m.end(), None))
                    continue
                if anchor and anchor not in doc(dest).anchors:
                    err(f, n, f"{name}#{anchor}: {dest.relative_to(root)} has no heading #{anchor}")
                refs.append((m.start(), m.end(), dest))
            for m in SECTION.finditer(line):
                counts["sections"] += 1
                before = [r for r in refs if r[1] <= m.start()]
                if before:
                    target = before[-1][2]
                    between = line[before[-1][1]:m.start()]
                    # `language.md` §6.4, §6.7: only separators in between.
                    if not re.fullmatch(r"[`)\]\s,;and§\d.(]*", between):
                        target = last_doc
                else:
                    target = last_doc
                if target is None:
                    err(f, n, f"§{m.group(1)}: no document named before it to resolve it in")
                elif m.group(1) not in doc(target).sections:
                    err(f, n, f"§{m.group(1)}: {target.relative_to(root)} has no section {m.group(1)}")
            if refs and refs[-1][2] is not None and not is_md:
                last_doc = refs[-1][2]
            # Paths into the repository.
            for m in path_ref.finditer(prose[n - 1]):
                word = m.group(1).rstrip(".,;:)'`\"")
                rest = prose[n - 1][m.end():m.end() + 1]
                if PLACEHOLDER.search(word) or rest in ("<", "*", "{", "$", "%"):
                    continue
                if word.endswith(".md"):
                    continue  # checked as a document above
                counts["paths"] += 1
                p = root / word.split("#")[0]
                if not (p.exists() or p.with_name(p.name + ".arecipe").exists()
                        or git_ignored(root, word)):
                    err(f, n, f"{word}: no such file or folder in the repository")

    for e in errors:
        print(e)
    summary = ", ".join(f"{v} {k}" for k, v in counts.items())
    if errors:
        print(f"check-doc-refs: {len(errors)} broken reference(s) in {len(files)} files ({summary})")
        return 1
    print(f"check-doc-refs: {len(files)} files, every reference resolves ({summary})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
