"""`filon serve`'s token edges (issue 45): a token that cannot work is refused at start, in one line naming
where it came from, instead of a server answering every request 401; a pipe as the token file does not
hang; a token file others may read is warned about. Each through the CLI, before any port is listened on
(the warning's case stops at a port already taken)."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from filon.cli import app

runner = CliRunner()
GOOD = "0123456789abcdef0123"


def serve(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    result = runner.invoke(app, ["serve", "--host", "0.0.0.0", "--port", "0", *args], env=env)
    assert "Traceback" not in result.output
    return result.exit_code, result.stderr


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ("\ufeff" + GOOD + "\nsecond-line-token-here\n", "2 lines, a token file holds one"),
        ("jeton-trop-court\u00e9\u00e9\u00e9\u00e9\n", "printable ASCII"),
        ("x\n", "1 characters, at least 16"),
        ("two words in one token\n", "printable ASCII"),
    ],
)
def test_a_token_file_that_cannot_work_is_refused_at_start(tmp_path: Path, content: str, said: str) -> None:
    path = tmp_path / "token"
    path.write_text(content, encoding="utf-8")
    path.chmod(0o600)
    code, err = serve("--token-file", str(path))
    assert code == 2 and said in err and str(path) in err, err


def test_a_pipe_as_the_token_file_is_refused_not_waited_on(tmp_path: Path) -> None:
    pipe = tmp_path / "token"
    os.mkfifo(pipe)
    code, err = serve("--token-file", str(pipe))
    assert code == 2 and "not a regular file" in err


def test_a_short_or_non_ascii_token_from_the_environment_is_refused() -> None:
    code, err = serve(env={"FILON_TOKEN": "s3cret"})
    assert code == 2 and "FILON_TOKEN: 6 characters" in err
    code, err = serve(env={"FILON_TOKEN": "jéton-à-accents-long"})
    assert code == 2 and "printable ASCII" in err


def test_a_byte_order_mark_is_stripped_and_a_readable_file_warned(tmp_path: Path) -> None:
    path = tmp_path / "token"
    path.write_text("\ufeff" + GOOD + "\n", encoding="utf-8")
    path.chmod(0o644)
    with socket.create_server(("127.0.0.1", 0)) as taken:  # stops the command once the token is read
        port = str(taken.getsockname()[1])
        result = runner.invoke(app, ["serve", "--port", port, "--token-file", str(path)])
    assert result.exit_code == 1 and "cannot listen" in result.stderr, result.stderr
    assert "other users may read it (mode 644)" in result.stderr and "chmod 600" in result.stderr
    path.chmod(0o600)
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = str(taken.getsockname()[1])
        result = runner.invoke(app, ["serve", "--port", port, "--token-file", str(path)])
    assert "other users may read it" not in result.stderr
