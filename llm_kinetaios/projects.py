"""Projects: which project the user is working in, and which memories that
lets recall see.

A project is the git checkout holding the working directory, or the
directory itself outside git. It is named by its git remote URL when it has
one (normalised, so ``git@github.com:me/app.git`` and
``https://github.com/me/app`` are one project, and a moved or re-cloned
checkout keeps its memories), else by the checkout's absolute path.

Finding it costs a few ``stat`` calls and reading ``.git/config``: no git
process, and only when a memory model runs or a command needs it, never at
``llm`` start-up.

Recall sees global memories plus the current project's (``scope project``,
the default), never another project's: ``out_of_scope`` is the set of ids
recall masks out of its candidates.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import urlsplit


def git_dirs(start: Path) -> tuple[Path, Path] | None:
    """(checkout root, directory holding its config) of the git checkout
    containing ``start``, or None outside git. Follows the ``.git`` file of
    a linked worktree or submodule to the repository it belongs to."""
    for directory in (start, *start.parents):
        dot_git = directory / ".git"
        if dot_git.is_dir():
            return directory, dot_git
        if dot_git.is_file():
            try:
                text = dot_git.read_text(errors="replace").strip()
            except OSError:
                return None
            if not text.startswith("gitdir:"):
                return None
            git_dir = (directory / text[len("gitdir:"):].strip()).resolve()
            common = git_dir / "commondir"  # a linked worktree shares the main config
            if common.is_file():
                try:
                    git_dir = (git_dir / common.read_text().strip()).resolve()
                except OSError:
                    pass
            return directory, git_dir
    return None


_SECTION = re.compile(r'^\s*\[\s*remote\s+"([^"]+)"\s*\]\s*$', re.IGNORECASE)
_OTHER_SECTION = re.compile(r"^\s*\[")
_URL = re.compile(r"^\s*url\s*=\s*(.+?)\s*$", re.IGNORECASE)


def remote_url(config_text: str) -> str | None:
    "The URL of remote ``origin`` in a git config file, else of its first remote."
    urls: dict[str, str] = {}
    remote = None
    for line in config_text.splitlines():
        if match := _SECTION.match(line):
            remote = match.group(1)
        elif _OTHER_SECTION.match(line):
            remote = None
        elif remote and remote not in urls and (match := _URL.match(line)):
            urls[remote] = match.group(1).strip('"')
    return urls.get("origin") or next(iter(urls.values()), None)


_SCP_LIKE = re.compile(r"^(?:[^@/]+@)?([^:/]+):(?!//)(.+)$")


def normalise_remote(url: str) -> str:
    """host/path of a remote URL, whatever the protocol or user:
    ``git@github.com:me/app.git`` -> ``github.com/me/app``. A local path
    remote is kept as it is."""
    url = url.strip()
    if "://" in url:
        parts = urlsplit(url)
        if parts.scheme == "file" or not parts.hostname:
            return url.rstrip("/")
        host, path = parts.hostname.lower(), parts.path
    elif (match := _SCP_LIKE.match(url)) and not url.startswith(("/", ".")):
        host, path = match.group(1).lower(), match.group(2)
    else:
        return url.rstrip("/")
    path = path.strip("/")
    path = path[: -len(".git")] if path.endswith(".git") else path
    return f"{host}/{path}"


def current_project(cwd: str | Path | None = None) -> str | None:
    """The project of ``cwd`` (default: the working directory), or None if
    the working directory cannot be read (deleted under us)."""
    try:
        start = Path(cwd or os.getcwd()).resolve()
    except OSError:
        return None
    found = git_dirs(start)
    if found is None:
        return str(start)
    root, git_dir = found
    try:
        url = remote_url((git_dir / "config").read_text(errors="replace"))
    except OSError:
        url = None
    return normalise_remote(url) if url else str(root)


def out_of_scope(store, settings, project: str | None) -> set[str]:
    """Ids of the current memories recall must not see with these settings
    in ``project``: every other project's (none with ``scope all``)."""
    if settings.scope == "all":
        return set()
    return store.other_projects_ids(project)
