"""Workspace.search: a question in words answered by keywords (BM25F over directories, file
name, definitions and matching lines, times term coverage, name cover and proximity): the file
whose definitions hold every term beats one with many hits of one term; a file named for the
question beats files that mention it; the file defining the name asked beats its users;
derived words find their root; identifiers split; stop words dropped; tests and prose below
source; a question of stop words only is a clear error."""

from __future__ import annotations

from pathlib import Path

import pytest

from codesift import Workspace
from codesift.errors import InvalidArgumentError


def plant(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def order(result) -> list[str]:
    return [hit.file for hit in result.results]


def test_a_file_defining_every_term_beats_many_hits_of_one(tmp_path):
    root = plant(
        tmp_path,
        {
            # Many hits of one term, no other.
            "noise.py": "".join(f"retry_count_{i} = {i}  # retry\n" for i in range(40)),
            # Every term, in the names of its definitions.
            "session.py": "def retry_session_backoff(delay):\n    return delay * 2\n",
        },
    )
    result = Workspace(root).search("how does the session backoff retry")
    got = order(result)
    assert got[:2] == ["session.py", "noise.py"], f"expected session.py first, got {got}"
    best = result.results[0]
    assert best.symbols == ("retry_session_backoff",), best
    assert best.why.startswith("all 3 terms"), best.why
    assert "defines retry_session_backoff (function)" in best.why, best.why
    assert best.lines[0] == (1, "def retry_session_backoff(delay):"), best.lines
    assert result.results[1].why.startswith("1 of 3 terms"), result.results[1].why
    assert set(result.terms) == {"session", "backoff", "retry"}, result.terms


def test_terms_split_identifiers_and_drop_stop_words(tmp_path):
    root = plant(tmp_path, {"a.py": "x = 1\n"})
    result = Workspace(root).search("Where is the HTTPServerError raised for skipUnknown?")
    want = ["httpservererror", "http", "server", "error", "rais", "skipunknown", "skip", "unknown"]
    assert list(result.terms) == want, f"expected {want}, got {list(result.terms)}"


def test_a_term_matches_inside_identifiers(tmp_path):
    root = plant(
        tmp_path,
        {"walk.go": "package w\n\nfunc skipUnknownEntries() {}\n", "other.go": "package w\n"},
    )
    result = Workspace(root).search("skip unknown entries")
    assert order(result) == ["walk.go"], order(result)
    assert result.results[0].symbols == ("skipUnknownEntries",), result.results[0]


def test_a_test_file_ranks_below_its_source(tmp_path):
    body = "def parse_config(text):\n    return text\n"
    root = plant(tmp_path, {"tests/test_config.py": body, "zzz/config.py": body})
    result = Workspace(root).search("parse config")
    got = order(result)
    assert got == ["zzz/config.py", "tests/test_config.py"], f"expected source first: {got}"
    assert result.results[1].why.endswith("test file"), result.results[1].why


def test_ties_are_in_path_order_and_results_are_capped(tmp_path):
    root = plant(tmp_path, {f"d{i}.txt": "widget\n" for i in range(5)})
    result = Workspace(root).search("widget", max_results=3)
    assert order(result) == ["d0.txt", "d1.txt", "d2.txt"], order(result)
    assert result.files_searched == 5
    data = result.to_dict()
    assert data["terms"] == ["widget"] and len(data["results"]) == 3
    assert data["results"][0]["lines"] == [{"line": 1, "text": "widget"}]
    assert "3 files for 'widget'" in result.summary, result.summary


def test_include_and_type_narrow_the_files(tmp_path):
    root = plant(tmp_path, {"a.py": "widget = 1\n", "b.rs": "const WIDGET: u8 = 1;\n"})
    ws = Workspace(root)
    assert order(ws.search("widget", include="*.rs")) == ["b.rs"]
    assert order(ws.search("widget", type="py")) == ["a.py"]


@pytest.mark.parametrize("question", ["how is it", "what does the a do?", "", "   "])
def test_a_question_of_stop_words_only_is_a_clear_error(tmp_path, question):
    root = plant(tmp_path, {"a.py": "x = 1\n"})
    with pytest.raises(InvalidArgumentError) as raised:
        Workspace(root).search(question)
    message = str(raised.value)
    if question:
        assert "no words to search for" in message and "e.g." in message, message
    else:
        assert "question must not be empty" in message, message


def test_no_file_holds_a_term(tmp_path):
    root = plant(tmp_path, {"a.py": "x = 1\n"})
    result = Workspace(root).search("frobnitz")
    assert result.results == () and result.terms == ("frobnitz",)
    assert "No files match" in result.text()


def test_prose_ranks_below_the_code_it_describes(tmp_path):
    readme = "".join(f"Set the retry policy in the config, step {i}.\n" for i in range(30))
    root = plant(
        tmp_path,
        {
            "README.md": readme,
            "client.py": "def send(request, config):\n"
            "    attempts = config.retry_attempts\n"
            "    return retry(request, attempts)\n",
        },
    )
    result = Workspace(root).search("retry config")
    got = order(result)
    assert got == ["client.py", "README.md"], f"expected client.py then README.md, got {got}"


def test_a_derived_word_finds_its_root(tmp_path):
    # "serialization" asks for the code that serializes: `serializ` is searched.
    root = plant(
        tmp_path,
        {
            "encode.py": "def serialize_value(value):\n    return dumps(value)\n",
            "other.py": "x = 1\n",
        },
    )
    result = Workspace(root).search("value serialization")
    assert "serializ" in result.terms, result.terms
    got = order(result)
    assert got[:1] == ["encode.py"], f"expected encode.py first, got {got}"
    assert result.results[0].symbols == ("serialize_value",), result.results[0]


# A file named for the question, or defining the name asked, beats the files that only
# mention it, however often.
FIRST_ANSWERS = [
    pytest.param(
        # JsonArray.java is what "JSON array operations" asks for; the parser names both words
        # far more often, in its text and its definitions.
        {
            "gson/JsonArray.java": "public final class JsonArray {\n"
            "  public void add(JsonElement e) { elements.add(e); }\n"
            "  public int size() { return elements.size(); }\n}\n",
            "gson/JsonParser.java": "public final class JsonParser {\n"
            + "".join(
                f"    JsonArray parseJsonArray{i}(String json) {{ return readArray(json); }}\n"
                for i in range(30)
            )
            + "}\n",
        },
        "JSON array operations",
        "gson/JsonArray.java",
        id="a_file_named_for_the_question",
    ),
    pytest.param(
        # The loader of the plugins directory (its directory and its name are the terms)
        # answers "how are plugins loaded"; the app module mentions plugins and loading on
        # many lines.
        {
            "app/plugins/loader.py": "def load(path):\n    return import_module(path)\n",
            "app/core.py": "def start(registry):\n"
            + "".join(f"    registry.load(plugin_{i})  # plugin {i}\n" for i in range(30)),
        },
        "how are plugins loaded",
        "app/plugins/loader.py",
        id="a_module_named_for_the_question",
    ),
    pytest.param(
        {
            "gson/TypeAdapter.java": "public abstract class TypeAdapter<T> {\n"
            "  public abstract void write(JsonWriter out, T value);\n}\n",
            "gson/TypeAdapterFactory.java": "public interface TypeAdapterFactory {\n"
            + "".join(
                f"  TypeAdapter<T{i}> adapter{i} = create(TypeAdapter.class);\n" for i in range(30)
            )
            + "}\n",
        },
        "TypeAdapter",
        "gson/TypeAdapter.java",
        id="the_file_defining_the_name_asked",
    ),
]


@pytest.mark.parametrize(("files", "question", "expected"), FIRST_ANSWERS)
def test_the_file_the_question_names_beats_the_files_that_mention_it(
    tmp_path, files, question, expected
):
    got = order(Workspace(plant(tmp_path, files)).search(question))
    assert got[:1] == [expected], f"expected {expected} first, got {got}"
