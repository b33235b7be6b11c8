"""The one TOML table checker: typed keys, sub-tables, and unknown keys named with the file."""

from __future__ import annotations

import pytest

from lab.toml_table import TomlTable


class Refused(ValueError):
    pass


def test_keys_are_checked_by_type_and_popped() -> None:
    table = TomlTable({"n": 3, "x": 2, "flag": True, "sub": {"a": 1}}, "top level", "f.toml",
                      Refused)
    assert table.get("n", int) == 3 and table.get("x", float) == 2  # an int is a float
    assert table.get("missing", str, "d") == "d"
    assert table.get("flag", bool) is True
    sub = table.table("sub")
    assert (sub.where, sub.get("a", int)) == ("[sub]", 1)
    sub.done()
    table.done()


@pytest.mark.parametrize(("data", "read", "message"), [
    ({"n": True}, lambda t: t.get("n", int), "f.toml: [t]: key 'n' must be int, got True"),
    ({"n": "two"}, lambda t: t.get("n", (int, float)),
     "f.toml: [t]: key 'n' must be int or float, got 'two'"),
    ({"n": 0}, lambda t: t.positive("n"), "f.toml: [t]: key 'n' must be a positive integer, got 0"),
    ({"b": 1, "a": 2}, lambda t: t.done(), "f.toml: [t]: unknown keys 'a', 'b' (known: k)"),
    ({"s": 5}, lambda t: t.table("s"), "f.toml: [t].s must be a table, got 5"),
])
def test_errors_name_the_file_the_table_and_the_key(data, read, message) -> None:
    with pytest.raises(Refused) as caught:
        read(TomlTable(data, "[t]", "f.toml", Refused, known=["k"]))
    assert str(caught.value) == message


def test_a_table_that_is_not_a_table() -> None:
    with pytest.raises(Refused, match=r"^f.toml: \[backend\] must be a table, got 3$"):
        TomlTable(3, "[backend]", "f.toml", Refused)
