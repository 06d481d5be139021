"""`bib.atomic.Staged`: the one temp-file, fsync and rename of every file bib writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from bib.atomic import Staged


def test_the_target_keeps_its_old_bytes_until_commit(tmp_path: Path) -> None:
    target = tmp_path / "refs.bib"
    target.write_text("old", encoding="utf-8")
    staged = Staged(target, text=True)
    staged.file.write("new")
    assert target.read_text(encoding="utf-8") == "old"
    staged.commit()
    assert target.read_text(encoding="utf-8") == "new"
    assert [p.name for p in tmp_path.iterdir()] == ["refs.bib"]


def test_discard_removes_the_temp_file_and_every_directory_made_for_it(tmp_path: Path) -> None:
    staged = Staged(tmp_path / "a" / "b" / "refs.json")
    staged.file.write(b"[]")
    staged.discard()
    assert list(tmp_path.iterdir()) == []


def test_an_exception_in_the_block_leaves_no_file(tmp_path: Path) -> None:
    target = tmp_path / "out" / "refs.ris"
    with pytest.raises(RuntimeError), Staged(target) as staged:
        staged.file.write(b"TY  - CONF")
        raise RuntimeError("a writer failed")
    assert not (tmp_path / "out").exists()


def test_a_stream_is_written_through_on_commit_never_renamed_over(tmp_path: Path) -> None:
    staged = Staged("/dev/null", text=True)
    staged.file.write("entries")
    staged.commit()
    assert Path("/dev/null").is_char_device()


def test_line_ends_are_written_as_given(tmp_path: Path) -> None:
    target = tmp_path / "refs.bib"
    with Staged(target, text=True) as staged:
        staged.file.write("a\r\nb\n")
        staged.commit()
    assert target.read_bytes() == b"a\r\nb\n"
