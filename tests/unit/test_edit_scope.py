"""Write scope: path shape, fixed denylist, private folders, writable allowlist, size; and the diffs shown."""

from __future__ import annotations

import pytest

from core.errors import InvalidRequest
from edits.diffs import content_hash, unified_diff
from edits.scope import check_size, check_writable, is_private
from tests.edit_fakes import write_settings


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("/etc/passwd.md", "absolute"),
        ("C:/notes/a.md", "absolute"),
        ("~/a.md", "absolute"),
        ("../outside.md", "'..'"),
        ("Inbox/../../outside.md", "'..'"),
        ("Inbox\\a.md", "backslash"),
        ("Inbox/a\x00.md", "control"),
        (".obsidian/app.md", "dot folders"),
        (".git/config.md", "dot folders"),
        (".trash/old.md", "dot folders"),
        ("Inbox/.hidden.md", "dot folders"),
        ("Projects/.secret/a.md", "dot folders"),
        ("Inbox/", "folder"),
        ("Inbox/picture.png", ".md"),
        ("Tasks.base", ".md"),
    ],
)
def test_check_writable_refuses_unsafe_paths(path: str, reason: str) -> None:
    with pytest.raises(InvalidRequest, match=reason):
        check_writable(path, settings=write_settings())


@pytest.mark.parametrize(
    ("path", "expected"),
    [("Inbox/a.md", "Inbox/a.md"), ("./Inbox//a.md", "Inbox/a.md"), ("Top.md", "Top.md"), ("A/B/c.MD", "A/B/c.MD")],
)
def test_check_writable_returns_the_normalised_path(path: str, expected: str) -> None:
    assert check_writable(path, settings=write_settings()) == expected


def test_writable_folders_limit_where_edits_go() -> None:
    settings = write_settings(writable_folders=("Inbox", "Projects/Active"))
    assert check_writable("Inbox/a.md", settings=settings) == "Inbox/a.md"
    assert check_writable("Projects/Active/x/y.md", settings=settings) == "Projects/Active/x/y.md"
    for path in ("Top.md", "Projects/Old.md", "Inboxes/a.md", "inbox/a.md"):
        with pytest.raises(InvalidRequest, match="outside the writable folders"):
            check_writable(path, settings=settings)


def test_denylist_wins_over_the_allowlist() -> None:
    settings = write_settings(writable_folders=("Inbox",))
    with pytest.raises(InvalidRequest, match="dot folders"):
        check_writable("Inbox/.obsidian/a.md", settings=settings)


@pytest.mark.parametrize(
    "path",
    ["_crews/Daily-Briefing.md", "_crews/agents/Briefer.md", "_crews/runs/r1/run.md", "_Crews/New.md", "_crews.md"],
)
def test_the_crew_root_is_denied_even_when_the_allowlist_names_it(path: str) -> None:
    settings = write_settings(writable_folders=("_crews",), crews_root="_crews")
    if path == "_crews.md":  # a note named like the folder is not in it
        with pytest.raises(InvalidRequest, match="outside the writable folders"):
            check_writable(path, settings=settings)
        return
    with pytest.raises(InvalidRequest, match="crew root _crews/"):
        check_writable(path, settings=settings)


def test_another_crews_root_is_the_one_denied() -> None:
    settings = write_settings(crews_root="Ops/Crews")
    with pytest.raises(InvalidRequest, match="crew root Ops/Crews/"):
        check_writable("Ops/Crews/Team.md", settings=settings)
    assert check_writable("_crews/Team.md", settings=settings) == "_crews/Team.md"
    assert check_writable("Ops/Crew notes.md", settings=settings) == "Ops/Crew notes.md"


def test_private_folders_are_never_written_in_any_case() -> None:
    settings = write_settings(private_folders=("Journal/Private",), writable_folders=("Journal",))
    for path in ("Journal/Private/day.md", "journal/private/day.md", "Journal/Private/deep/er.md"):
        with pytest.raises(InvalidRequest, match="private"):
            check_writable(path, settings=settings)
    assert check_writable("Journal/Public.md", settings=settings) == "Journal/Public.md"


def test_is_private_matches_folders_not_name_prefixes() -> None:
    settings = write_settings(private_folders=("Private",))
    assert is_private("Private/a.md", settings)
    assert is_private("private/sub/a.md", settings)
    assert not is_private("PrivateNotes/a.md", settings)
    assert not is_private("Inbox/a.md", settings)


def test_trash_is_allowed_only_as_a_delete_destination() -> None:
    settings = write_settings(writable_folders=("Inbox",))
    assert check_writable(".trash/Inbox/a.md", settings=settings, for_delete=True) == ".trash/Inbox/a.md"
    with pytest.raises(InvalidRequest):
        check_writable(".trash/Inbox/a.md", settings=settings)
    with pytest.raises(InvalidRequest, match="dot folders"):
        check_writable(".trash/.obsidian/a.md", settings=settings, for_delete=True)


def test_a_private_folder_spelled_in_another_unicode_form_is_still_private() -> None:
    settings = write_settings(private_folders=("Tagebücher",))  # typed in NFC
    with pytest.raises(InvalidRequest, match="private folder"):
        check_writable("Tagebu\u0308cher/2024.md", settings=settings)  # on disk in NFD (macOS, synced vaults)
    with pytest.raises(InvalidRequest, match="private folder"):
        check_writable("TAGEBÜCHER/2024.md", settings=settings)


def test_check_size_refuses_notes_above_the_limit() -> None:
    settings = write_settings(max_note_bytes=10)
    check_size("0123456789", settings=settings)
    with pytest.raises(InvalidRequest, match="above the limit"):
        check_size("é" * 6, settings=settings)  # 12 bytes in UTF-8


def test_unified_diff_shows_the_whole_change_with_git_headers() -> None:
    diff = unified_diff("Inbox/a.md", "one\ntwo\n", "one\n2\n")
    assert diff.splitlines() == ["--- a/Inbox/a.md", "+++ b/Inbox/a.md", "@@ -1,2 +1,2 @@", " one", "-two", "+2"]


def test_unified_diff_of_create_delete_and_move() -> None:
    assert unified_diff("n.md", None, "hi\n").startswith("--- /dev/null\n+++ b/n.md\n@@ -0,0 +1 @@\n+hi\n")
    assert unified_diff("n.md", "hi\n", None).startswith("--- a/n.md\n+++ /dev/null\n")
    assert unified_diff("a.md", "x\n", "x\n", new_path="b/a.md") == "--- a/a.md\n+++ b/b/a.md\n"


def test_unified_diff_marks_a_missing_final_newline() -> None:
    diff = unified_diff("a.md", "x", "y")
    assert diff.endswith("-x\n\\ No newline at end of file\n+y\n\\ No newline at end of file\n")


def test_content_hash_is_sha256_of_utf8() -> None:
    assert content_hash("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    assert content_hash("a") != content_hash("a\n")


def test_a_writable_folder_spelled_in_another_unicode_form_is_still_writable() -> None:
    settings = write_settings(writable_folders=("Tagebücher",))  # typed in NFC
    assert check_writable("Tagebu\u0308cher/2024.md", settings=settings) == "Tagebu\u0308cher/2024.md"
    with pytest.raises(InvalidRequest, match="outside the writable folders"):
        check_writable("tagebücher/2024.md", settings=settings)  # case still counts on case-sensitive disks
