"""README.md and docs/ hold to the project's rules for documentation. Their cross-references resolve: every relative
link names a file that exists (and, with #anchor, a heading of it), every `docs/NAME.md` named anywhere in the
repository exists, and every `docs/NAME.md, "Heading"` a file cites names a heading that page has (a heading
starting with that text). They describe the system as it is, so they cite no issue numbers (a reader cannot see
the tracker), and their prose is wrapped at 120 columns (tables and code blocks aside)."""
import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")
DOC_NAME = re.compile(r"\bdocs/([a-z0-9_-]+\.md)")   # the pages are lower case
CITED_HEADING = re.compile(r"\bdocs/([A-Za-z0-9_-]+\.md),? \"([^\"]+)\"")


def lines_outside_code(page: Path):
    """(line number, line) of a page, code blocks left out."""
    fence = False
    for number, line in enumerate(page.read_text().splitlines(), 1):
        if line.startswith("```"):
            fence = not fence
        elif not fence:
            yield number, line


def headings(page: Path) -> list[str]:
    return [line.lstrip("#").strip() for _, line in lines_outside_code(page) if re.match(r"#{1,6} ", line)]


def anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    plain = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", heading).lower()
    return re.sub(r"[^\w\- ]", "", plain).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    seen, found = {}, set()
    for h in headings(page):
        a = anchor(h)
        n = seen.get(a, 0)
        found.add(a if n == 0 else f"{a}-{n}")
        seen[a] = n + 1
    return found


def source_files() -> list[str]:
    """The repository's files: git's list, or, outside a git checkout, every file but hidden and build directories."""
    listed = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True)
    if listed.returncode == 0:
        return listed.stdout.split()
    return [str(path.relative_to(REPO)) for path in REPO.rglob("*")
            if not any(part.startswith(".") for part in path.relative_to(REPO).parts)]


def tracked_text_files():
    for name in source_files():
        path = REPO / name
        if path.is_file() and not path.is_symlink():
            try:
                yield name, path.read_text()
            except UnicodeDecodeError:
                continue


def test_relative_links_in_readme_and_docs_resolve():
    broken = []
    for page in PAGES:
        for target in (t for _, line in lines_outside_code(page) for t in LINK.findall(line)):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, fragment = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            if not dest.exists():
                broken.append(f"{page.relative_to(REPO)}: {target} (no such file)")
            elif fragment and dest.suffix == ".md" and fragment not in anchors(dest):
                broken.append(f"{page.relative_to(REPO)}: {target} (no such heading)")
    assert broken == []


def test_every_docs_page_named_in_the_repository_exists():
    missing = sorted({f"{name}: docs/{doc}" for name, text in tracked_text_files()
                      for doc in DOC_NAME.findall(text) if not (REPO / "docs" / doc).exists()})
    assert missing == []


def test_every_cited_heading_exists():
    missing = []
    for name, text in tracked_text_files():
        for doc, cited in CITED_HEADING.findall(text):
            page = REPO / "docs" / doc
            # A citation wrapped over two lines, in prose or in a comment (its marker starting the second line).
            cited = " ".join(re.sub(r"\n\s*(?:///?|#|\*)?", " ", cited).split())
            if page.exists() and not any(h.startswith(cited) for h in headings(page)):
                missing.append(f'{name}: docs/{doc}, "{cited}"')
    assert missing == []


def test_no_page_cites_an_issue_number():
    cited = [f"{page.relative_to(REPO)}:{number}" for page in PAGES
             for number, line in enumerate(page.read_text().splitlines(), 1)
             if re.search(r"\b[Ii]ssues? #?[0-9]+", line)]
    assert cited == []


def test_prose_is_wrapped_at_120_columns():
    # Tables cannot be wrapped, nor a line that is one word (a long link on its own).
    long = [f"{page.relative_to(REPO)}:{number} ({len(line)})" for page in PAGES
            for number, line in lines_outside_code(page)
            if len(line) > 120 and " " in line.strip() and not line.lstrip().startswith("|")]
    assert long == []
