"""Helpers for the cog blocks in README.md and docs/*.md: run an ``llm``
command in-process against a fresh LLM_USER_PATH and print it as a console
example, with ids, dates and timestamps made stable so the text only changes
when the command's behaviour does. tests/test_readme.py runs ``cog --check``."""

import json
import os
import re
import tempfile

import cog
from click.testing import CliRunner


def fresh() -> str:
    "Start a file's examples on an empty llm user directory, extraction queued only."
    path = tempfile.mkdtemp()
    os.environ["LLM_USER_PATH"] = path
    os.environ["LLM_KINETAIOS_WORKER"] = "off"
    return path


def _stable(output: str) -> str:
    output = output.replace("Usage: cli", "Usage: llm")
    output = re.sub(r"\b01[0-9a-z]{24}\b", "01jd6x0k2ptm6e7v4b5hq9n3yz", output)
    output = re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d", "2026-12-02 10:00", output)
    output = re.sub(r'("exportedAt"|"created_at"|"updated_at"|"last_used_at"): \d+', r"\1: 1796212800000", output)
    return re.sub(re.escape(os.environ.get("LLM_USER_PATH", "\0")), "~/.config/io.datasette.llm", output)


def show(*args, input=None):
    "Run ``llm ARGS`` and print the command line and its output."
    from llm.cli import cli

    result = CliRunner().invoke(cli, list(args), input=input)
    command = " ".join(a if re.fullmatch(r"[\w./:=-]+", a) else json.dumps(a) for a in args)
    stdin = f"echo {json.dumps(input.strip())} | " if input else ""
    cog.out(f"```\n$ {stdin}llm {command}\n{_stable(result.output)}```\n")


def help_for(*command):
    "Print ``llm memories COMMAND --help``."
    from llm.cli import cli

    result = CliRunner().invoke(cli, ["memories", *command, "--help"])
    cog.out("```\n" + _stable(result.output) + "```\n")
