"""`make bench`: run each bench/*.py, each printing one JSON object, and gather them in var/bench.json;
then the headline table of this run (`_table.py`) in var/bench.md, and with `--docs` in docs/benchmarks.md."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from _table import DOCS, into_docs, render

HERE = Path(__file__).resolve().parent


def main() -> int:
    out_dir = Path(os.environ.get("FILON_HOME", "var"))
    out_dir.mkdir(parents=True, exist_ok=True)
    results: dict[str, object] = {}
    # this tree's code first, whichever checkout the environment's editable install points to
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE.parent), os.environ.get("PYTHONPATH")])),
    }
    failed = 0
    for script in sorted(HERE.glob("*.py")):
        if script.name in ("run_all.py", "__init__.py") or script.name.startswith("_"):
            continue
        print(f"bench {script.name} …", flush=True)
        proc = subprocess.run(
            [sys.executable, str(script)], capture_output=True, text=True, cwd=HERE.parent, env=env
        )
        if proc.returncode != 0:
            failed += 1
            results[script.name] = {"error": proc.stderr.strip().splitlines()[-1:] or ["failed"]}
            print(proc.stderr, file=sys.stderr)
            continue
        figures = json.loads(proc.stdout.strip().splitlines()[-1])
        results[script.name] = figures
        print("  " + json.dumps(figures, ensure_ascii=False))
    target = out_dir / "bench.json"
    tmp = target.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(target)
    print(f"wrote {target}")
    table = render(results, datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"))
    (out_dir / "bench.md").write_text(table, encoding="utf-8")
    print(table, end="")
    if "--docs" in sys.argv[1:]:
        into_docs(table)
        print(f"wrote the table into {DOCS}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
