"""Bad input: one line `bib: error: FILE[:LINE]: ...`, exit 2, no traceback, no output touched."""

from __future__ import annotations

from pathlib import Path

OLD = "old content\n"


def _outputs(tmp_path: Path) -> tuple[Path, Path]:
    existing = tmp_path / "out" / "refs.bib"
    existing.parent.mkdir(exist_ok=True)
    existing.write_text(OLD, encoding="utf-8")
    return existing, tmp_path / "out" / "refs.json"


def _assert_refused(code: int, stderr: str, stdout: str, expected: str, tmp_path: Path) -> None:
    existing, fresh = tmp_path / "out" / "refs.bib", tmp_path / "out" / "refs.json"
    assert code == 2
    assert stderr.splitlines() == [stderr.splitlines()[0]]
    assert stderr.startswith(expected), stderr
    assert "Traceback" not in stderr
    assert stdout == ""
    assert existing.read_text(encoding="utf-8") == OLD
    assert not fresh.exists()
    assert sorted(p.name for p in existing.parent.iterdir()) == ["refs.bib"]


def test_bad_input_is_refused_by_the_real_process(bib_process, bad_input, tmp_path):
    path, expected = bad_input
    existing, fresh = _outputs(tmp_path)
    done = bib_process("convert", path, "-o", existing, "-o", fresh)
    _assert_refused(done.returncode, done.stderr, done.stdout, expected, tmp_path)


def test_bad_input_is_refused_in_process(cli, bad_input, tmp_path):
    path, expected = bad_input
    existing, fresh = _outputs(tmp_path)
    result = cli("convert", path, "-o", existing, "-o", fresh)
    _assert_refused(result.exit_code, result.stderr, result.stdout, expected, tmp_path)


def test_bad_file_among_good_ones_writes_nothing(cli, bad_input, good_list, tmp_path):
    path, expected = bad_input
    existing, fresh = _outputs(tmp_path)
    result = cli("convert", good_list, path, "-o", existing, "-o", fresh)
    _assert_refused(result.exit_code, result.stderr, result.stdout, expected, tmp_path)


def test_missing_file_is_refused(bib_process, tmp_path):
    existing, fresh = _outputs(tmp_path)
    missing = tmp_path / "nope.bib"
    done = bib_process("convert", missing, "-o", existing, "-o", fresh)
    expected = f"bib: error: {missing}: cannot read: No such file or directory"
    _assert_refused(done.returncode, done.stderr, done.stdout, expected, tmp_path)


def test_unknown_output_format_is_refused(bib_process, good_list, tmp_path):
    existing, _ = _outputs(tmp_path)
    done = bib_process("convert", good_list, "-f", "endnote", "-o", existing)
    expected = "bib: error: unknown output format 'endnote'"
    _assert_refused(done.returncode, done.stderr, done.stdout, expected, tmp_path)


def test_unknown_output_format_is_refused_in_process(cli, good_list, tmp_path):
    existing, _ = _outputs(tmp_path)
    result = cli("convert", good_list, "-f", "endnote", "-o", existing)
    expected = "bib: error: unknown output format 'endnote'"
    _assert_refused(result.exit_code, result.stderr, result.stdout, expected, tmp_path)


def test_unknown_input_format_is_refused(cli, tmp_path):
    _outputs(tmp_path)
    result = cli("convert", "-", "--from", "ris", input="x")
    _assert_refused(
        result.exit_code,
        result.stderr,
        result.stdout,
        "bib: error: unknown input format 'ris'",
        tmp_path,
    )


def test_bad_year_is_refused(cli, good_list, tmp_path):
    _outputs(tmp_path)
    result = cli("convert", good_list, "--year", "soon")
    _assert_refused(
        result.exit_code,
        result.stderr,
        result.stdout,
        "bib: error: --year must be a year",
        tmp_path,
    )


_UNDEFINED_STRING = b"@article{a, title={A}, journal = jnl}\n@misc{b, title={B}}\n"


def test_undefined_string_warns_with_its_line_and_the_file_converts(cli, tmp_path):
    source = tmp_path / "refs.bib"
    source.write_bytes(_UNDEFINED_STRING)
    result = cli("convert", source, "-o", tmp_path / "out.json")
    assert result.exit_code == 0
    assert f"bib: warning: {source}:1: undefined @string 'jnl' (kept as its name)" in (
        result.stderr.splitlines()
    )
    assert (tmp_path / "out.json").exists()


def test_strict_turns_the_warning_into_an_error_and_writes_nothing(cli, tmp_path):
    source = tmp_path / "refs.bib"
    source.write_bytes(_UNDEFINED_STRING)
    result = cli("convert", "--strict", source, "-o", tmp_path / "out.json")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"bib: error: {source}:1: undefined @string 'jnl' (kept as its name)"
    ]
    assert not (tmp_path / "out.json").exists()
