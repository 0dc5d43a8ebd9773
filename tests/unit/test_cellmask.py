"""rules.cellmask (#69): a mask of a board's cells answers as the frozenset of the same cells does, with sets and
masks alike, and falls back to a frozenset where a cell lies off its board."""

from __future__ import annotations

import copy
import json
import pickle
import random
import subprocess
import sys

import pytest

from rules.cellmask import CellMask, grid_of, pairs_json, sorted_pairs, union

W, H = 13, 7


def cells(rnd: random.Random, n: int) -> frozenset:
    return frozenset((rnd.randrange(W), rnd.randrange(H)) for _ in range(n))


@pytest.mark.parametrize("seed", range(20))
def test_a_mask_answers_as_the_frozenset_of_its_cells(seed):
    rnd = random.Random(seed)
    a, b = cells(rnd, rnd.randrange(40)), cells(rnd, rnd.randrange(40))
    ma, mb = CellMask.of(a, W, H), CellMask.of(b, W, H)
    assert len(ma) == len(a) and bool(ma) == bool(a) and set(ma) == a
    assert list(ma) == sorted(a, key=lambda c: (c[1], c[0]))  # row by row
    for c in [(x, y) for x in range(-1, W + 1) for y in range(-1, H + 1)]:
        assert (c in ma) == (c in a)
    assert ("x", 1) not in ma and 3 not in ma and (1.5, 2) not in ma
    for other, mother in ((b, mb), (a, ma), (a | b, CellMask.of(a | b, W, H)), (frozenset(), CellMask.of((), W, H))):
        assert (ma <= mother) == (a <= other) == (ma <= other) == (a <= mother)
        assert (ma >= mother) == (a >= other) == (ma >= other) == (a >= mother)
        assert set(ma | mother) == a | other == set(ma | other) == set(a | mother)
        assert set(ma & mother) == a & other == set(ma & other) == set(a & mother)
        assert set(ma - mother) == a - other == set(ma - other) == set(a - mother)
        assert isinstance(ma | mother, CellMask) and isinstance(ma - set(other), CellMask)
    assert sorted_pairs(ma) == sorted_pairs(a) == sorted(list(c) for c in a)
    assert grid_of(a, W, H).tolist() == ma.grid.tolist()


def test_masks_are_equal_and_hash_alike_by_their_cells_and_stay_immutable():
    a = CellMask.of({(1, 2), (3, 4)}, W, H)
    b = CellMask.of([(3, 4), (1, 2)], W, H)
    assert a == b and hash(a) == hash(b) and a is not b
    assert a != CellMask.of({(1, 2)}, W, H) and a != CellMask.of({(1, 2), (3, 4)}, W + 1, H)
    assert a != frozenset(a)  # equal to masks only: a frozenset's hash is another
    with pytest.raises(ValueError):
        a.grid[0, 0] = True
    assert copy.deepcopy(a) is a and copy.copy(a) is a
    again = pickle.loads(pickle.dumps(a))
    assert again == a and set(again) == {(1, 2), (3, 4)}
    assert pickle.dumps(a) == pickle.dumps(b)  # (the same cells, the same bytes: a forecast's memo keys on them)


def test_a_masks_hash_is_the_same_in_another_process():
    # a fogged picture's address is drawn from the hash of the squares known (webapp/storage/pictures.py)
    code = "from rules.cellmask import CellMask; print(hash(CellMask.of({(1, 2), (3, 4)}, 13, 7)))"
    out = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env={"PYTHONHASHSEED": seed, "PATH": ""}, cwd=".").stdout for seed in ("1", "2")]
    assert out[0] == out[1] == f"{hash(CellMask.of({(1, 2), (3, 4)}, 13, 7))}\n"


def test_a_union_is_a_mask_where_every_part_fits_the_board_else_a_frozenset():
    a = CellMask.of({(0, 0)}, W, H)
    assert union(a, {(1, 1)}, CellMask.of({(2, 2)}, W, H)) == CellMask.of({(0, 0), (1, 1), (2, 2)}, W, H)
    assert union(set(), a, frozenset()) is a  # one part not empty: itself
    off = union(a, {(W, 0)})  # a square off the mask's board: the cells themselves
    assert isinstance(off, frozenset) and off == {(0, 0), (W, 0)}
    other = union(a, CellMask.of({(5, 5)}, W + 2, H + 2))  # a mask of another size
    assert isinstance(other, frozenset) and other == {(0, 0), (5, 5)}
    assert union() == frozenset() and union(set(), frozenset()) == frozenset()
    assert CellMask.of({(W, 0)}, W, H) is None and CellMask.of(a, W + 1, H) is None
    assert set(a | {(W, 0)}) == {(0, 0), (W, 0)} and isinstance(a | {(W, 0)}, frozenset)


@pytest.mark.parametrize("w,h,density", [(1, 1, 1.0), (5, 3, 0.0), (5, 3, 0.5), (12, 9, 0.3), (300, 300, 0.85),
                                         (301, 7, 0.2), (1000, 3, 0.01)])
def test_a_masks_pairs_as_json_read_as_its_sorted_pairs(w, h, density):
    rnd = random.Random(w * h)
    cells = {(x, y) for x in range(w) for y in range(h) if rnd.random() < density}
    mask = CellMask.of(cells, w, h)
    text = pairs_json(mask)
    assert json.loads(text) == sorted_pairs(mask) == sorted([x, y] for x, y in cells)
    assert json.loads(pairs_json(frozenset(cells))) == sorted_pairs(cells)  # (a set: the same list)
