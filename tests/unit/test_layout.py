"""The test tree itself: test modules are imported by their file name (no __init__.py), so two files
of one name in different folders break the collection of the whole suite, though each folder alone runs."""

from collections import Counter
from pathlib import Path


def test_every_test_file_name_is_used_once():
    names = Counter(p.name for p in (Path(__file__).resolve().parents[1]).rglob("test_*.py"))
    assert [n for n, count in names.items() if count > 1] == []
