"""A set of a board's cells held as a grid of booleans (#69): what the fog's views and memories are.

A view on a 300 x 300 map is some 80,000 cells. As a ``frozenset`` of ``(x, y)`` tuples each union of two views,
each "does the memory hold this view", each drawing of the fog layer read every cell in Python (a move under fog
on the biggest map spent most of its time there), and each such set was tens of thousands of objects more for the
cycle collector to walk. A :class:`CellMask` holds the same cells as one numpy array of ``height x width``
booleans: unions, differences and "holds" are one C pass over 90,000 bytes, and the collector sees one object.

It reads as a ``frozenset`` of ``(x, y)`` (``in``, ``len``, iteration in row order, ``<=``, ``>=``, ``|``, ``-``,
``&``), so what asks a view a question needs no change. Two masks of one board compare and combine as grids;
with a ``set`` or a mask of another size the answer is the same as with frozensets (through the cells, or a
``frozenset`` where a cell lies off this board). Immutable: its grid is read-only, its hash kept, and the hash
is the same in every process (a picture's address is drawn from it: ``webapp.storage.pictures``). A mask is equal
to another mask of the same cells only (not to a frozenset of them: their hashes differ).
"""

from __future__ import annotations

import json
import operator
import zlib
from itertools import chain

import numpy as np

from .stepsearch import cells_of


class CellMask:
    """The cells of a ``width`` x ``height`` board marked in ``grid`` (``height`` rows of ``width`` booleans)."""

    __slots__ = ("grid", "_len", "_hash", "_flat")

    def __init__(self, grid: np.ndarray) -> None:
        grid = np.asarray(grid, dtype=bool)
        if grid.ndim != 2:
            raise ValueError("a cell mask is a grid of rows")
        grid.flags.writeable = False  # (the grid given is the mask's from now on: made for it, never written again)
        self.grid = grid
        self._len = self._hash = self._flat = None

    @classmethod
    def of(cls, cells, width: int, height: int) -> "CellMask | None":
        """``cells`` (any iterable of ``(x, y)``) as a mask of a ``width`` x ``height`` board; None when one of them
        lies off it (a mask holds the board's cells only)."""
        if isinstance(cells, CellMask):
            return cells if cells.grid.shape == (height, width) else None
        x, y, on = _places(cells, width, height)
        if not on.all():
            return None
        grid = np.zeros(width * height, dtype=bool)
        grid[y * width + x] = True
        return cls(grid.reshape(height, width))

    @property
    def width(self) -> int:
        return self.grid.shape[1]

    @property
    def height(self) -> int:
        return self.grid.shape[0]

    def __len__(self) -> int:
        if self._len is None:
            self._len = int(np.count_nonzero(self.grid))
        return self._len

    def __bool__(self) -> bool:
        return len(self) > 0

    def __contains__(self, cell) -> bool:
        try:
            x, y = cell
        except (TypeError, ValueError):
            return False
        if type(x) is not int or type(y) is not int:
            try:
                x, y = operator.index(x), operator.index(y)
            except TypeError:
                return False
        h, w = self.grid.shape
        if not (0 <= x < w and 0 <= y < h):
            return False
        flat = self._flat
        if flat is None:  # (a byte string's item is read in a few tens of ns; a numpy element's in a few hundred)
            flat = self._flat = self.grid.tobytes()
        return flat[y * w + x] != 0

    def __iter__(self):
        h, w = self.grid.shape
        return map(cells_of(w, h).__getitem__, np.flatnonzero(self.grid).tolist())

    def __reduce__(self):  # (pickled as its grid alone: two masks of the same cells give the same bytes)
        return CellMask, (np.array(self.grid),)

    def __copy__(self) -> "CellMask":
        return self  # immutable: a game's copy shares it (a forecast copies a game for every turn it weighs)

    def __deepcopy__(self, memo) -> "CellMask":
        return self

    def __repr__(self) -> str:
        return f"CellMask({self.width} x {self.height}, {len(self)} cells)"

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = zlib.crc32(np.packbits(self.grid).tobytes(), zlib.crc32(repr(self.grid.shape).encode()))
        return self._hash

    def __eq__(self, other) -> bool:
        if not isinstance(other, CellMask):
            return NotImplemented
        return self is other or (self.grid.shape == other.grid.shape and hash(self) == hash(other)
                                 and bool(np.array_equal(self.grid, other.grid)))

    def _same(self, other) -> "CellMask | None":
        """``other`` as a mask of this board, or None (another size, or a cell off this board)."""
        if isinstance(other, CellMask):
            return other if other.grid.shape == self.grid.shape else None
        if isinstance(other, (set, frozenset)):
            return CellMask.of(other, self.width, self.height)
        return None

    def __le__(self, other) -> bool:
        same = self._same(other)
        if same is not None:
            return not bool((self.grid & ~same.grid).any())
        if isinstance(other, (set, frozenset, CellMask)):
            return all(c in other for c in self)
        return NotImplemented

    def __ge__(self, other) -> bool:
        same = self._same(other)
        if same is not None:
            return not bool((same.grid & ~self.grid).any())
        if isinstance(other, (set, frozenset, CellMask)):
            return all(c in self for c in other)
        return NotImplemented

    def __or__(self, other):
        same = self._same(other)
        if same is not None:
            return self if same is self else CellMask(self.grid | same.grid)
        if isinstance(other, (set, frozenset, CellMask)):
            return frozenset(self) | frozenset(other)
        return NotImplemented

    __ror__ = __or__

    def __and__(self, other):
        same = self._same(other)
        if same is not None:
            return CellMask(self.grid & same.grid)
        if isinstance(other, (set, frozenset, CellMask)):
            return frozenset(c for c in other if c in self)
        return NotImplemented

    __rand__ = __and__

    def __sub__(self, other):
        same = self._same(other)
        if same is not None:
            return CellMask(self.grid & ~same.grid)
        if isinstance(other, (set, frozenset, CellMask)):
            return frozenset(c for c in self if c not in other)
        return NotImplemented

    def __rsub__(self, other):
        if isinstance(other, (set, frozenset)):
            return frozenset(c for c in other if c not in self)
        return NotImplemented


def union(*parts):
    """The cells in any of ``parts`` (masks, sets): one mask where every part fits the first mask's board, the one
    part itself where only one is not empty, else a ``frozenset``."""
    parts = [p for p in parts if p]
    if len(parts) == 1 and isinstance(parts[0], (frozenset, CellMask)):
        return parts[0]
    first = next((p for p in parts if isinstance(p, CellMask)), None)
    if first is not None:
        grids = [first._same(p) for p in parts]
        if all(g is not None for g in grids):
            return CellMask(np.logical_or.reduce([g.grid for g in grids]))
    return frozenset().union(*parts)


def sorted_pairs(cells) -> list[list[int]]:
    """``sorted(list(c) for c in cells)``: ``[x, y]`` pairs in order of x, then y (the JSON state's and the stored
    game's); a mask's read from its grid at once."""
    if isinstance(cells, CellMask):
        xs, ys = np.nonzero(cells.grid.T)  # (the grid's columns in order: x first, then y)
        return np.column_stack((xs, ys)).tolist()
    return sorted(list(c) for c in cells)


def pairs_json(cells) -> str:
    """The JSON text of ``sorted_pairs(cells)`` (the same list once read): a mask's written from its grid at once,
    each ``[x,y]`` with its numbers right-aligned in spaces to the widest (JSON's whitespace), no Python list made
    for the tens of thousands of squares a big map's fog holds (the JSON state's, #69)."""
    if not isinstance(cells, CellMask):
        return json.dumps(sorted_pairs(cells), separators=(",", ":"))
    xs, ys = np.nonzero(cells.grid.T)
    if not len(xs):
        return "[]"
    width = len(str(int(max(xs.max(), ys.max()))))
    text = np.empty((len(xs), 2 * width + 4), dtype=np.uint8)  # "[" x "," y "]" ","
    text[:, 0], text[:, width + 1], text[:, 2 * width + 2], text[:, -1] = ord("["), ord(","), ord("]"), ord(",")
    for start, values in ((1, xs), (width + 2, ys)):
        for k in range(width):
            scale = 10 ** (width - 1 - k)
            column = (values // scale % 10 + ord("0")).astype(np.uint8)
            if k < width - 1:
                column[values < scale] = ord(" ")  # (a leading zero: a space)
            text[:, start + k] = column
    return "[" + text.tobytes()[:-1].decode("ascii") + "]"


def grid_of(cells, width: int, height: int) -> np.ndarray:
    """``cells`` on a ``width`` x ``height`` board as a grid of booleans (those off the board left out); a mask of
    that board's own grid (read-only), not a copy."""
    if isinstance(cells, CellMask) and cells.grid.shape == (height, width):
        return cells.grid
    x, y, on = _places(cells, width, height)
    grid = np.zeros(width * height, dtype=bool)
    grid[y[on] * width + x[on]] = True
    return grid.reshape(height, width)


def _places(cells, width: int, height: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``cells``' x and y as arrays (read in C, not a cell at a time), and which of them lie on the board."""
    xy = np.fromiter(chain.from_iterable(cells), dtype=np.int64, count=2 * len(cells))
    x, y = xy[0::2], xy[1::2]
    return x, y, (x >= 0) & (x < width) & (y >= 0) & (y < height)
