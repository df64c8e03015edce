"""``lits validate``: is each board file readable and fit for a match?"""

from __future__ import annotations

import argparse
import json
from typing import Any

from core.cli import EXIT_OK, EXIT_PROBLEMS, EXIT_UNREADABLE, read_board, summary


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "validate",
        help=summary("validate"),
        description="Check board files and report every problem at once; one bad file never stops the others. "
                    "Exit with the worst result: 0 when every file is valid (warnings allowed), 1 when a file "
                    "has problems (broken anti-symmetry, a board no match can use), 2 when a file cannot be read "
                    "as a board file.",
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="board files (YAML)")
    p.add_argument("--json", action="store_true", help="print one JSON object for machines")
    p.set_defaults(func=run)


def check_file(path: str) -> tuple[int, dict[str, Any]]:
    """Exit code and report for one file."""
    from core.board.validation import Severity, is_valid, validate
    from core.board.validation import summary as board_summary

    report: dict[str, Any] = {"file": path, "readable": True, "valid": False, "errors": [], "warnings": []}
    board, code, details = read_board(path)
    if board is None:
        report["readable"] = code != EXIT_UNREADABLE
        report["errors"] = details
        return code, report
    problems = validate(board)
    report["size"] = board.size
    report["summary"] = board_summary(board)
    report["errors"] = [p.message for p in problems if p.severity is Severity.ERROR]
    report["warnings"] = [p.message for p in problems if p.severity is Severity.WARNING]
    report["problems"] = [p.as_dict(board.size) for p in problems]
    report["valid"] = is_valid(problems)
    return (EXIT_OK if report["valid"] else EXIT_PROBLEMS), report


def run(args: argparse.Namespace) -> int:
    results = [check_file(path) for path in args.files]
    code = max(c for c, _ in results)
    if args.json:
        print(json.dumps({"ok": code == EXIT_OK, "files": [r for _, r in results]}, indent=2))
        return code
    for c, r in results:
        status = {EXIT_OK: "valid", EXIT_PROBLEMS: "INVALID", EXIT_UNREADABLE: "UNREADABLE"}[c]
        head = f"{r['file']}: {status}"
        if "summary" in r:
            head += f" ({r['summary']})"
        print(head)
        for msg in r["errors"]:
            print(f"  error: {msg}")
        for msg in r["warnings"]:
            print(f"  warning: {msg}")
    return code
