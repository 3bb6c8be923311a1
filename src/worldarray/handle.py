"""A handle is opened once: its arguments checked into one record, its level chosen, placed, put in the units asked
for and opened, and what that found kept in one frozen record.

``open_level`` is the one path from a path and ``Options`` to an ``Opened``: ``levels`` chooses the level and
checks it against its group's listing, ``metadata`` places it, ``grid`` makes its frame, ``reach`` opens its
tensorstore; an open of the same path and arguments whose documents are unchanged hands out what the last one
found. ``wa.metadata`` and ``wa.open_tensorstore`` take the same path, stopping earlier.
"""

from __future__ import annotations

import collections
import dataclasses
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeAlias

import numpy as np
import tensorstore as ts

from . import resample, retry, rounds, store
from .arguments import flag, one_of, retries_or_none
from .coordinates import check_coordinates
from .diagnostics import Notice, noticing, repeat
from .detect import Node, source_of
from .reach import Reach, open_array, reach_array
from .fields import Placement, exact_value
from .geometry import Sizes, SizesOrNone, floats, sizes_or_none
from .keys import GzippedChunks, gzipped_chunks
from .grid import Frame, base_rescale, frame_of, rescaled, spatial_placement
from .levels import LEVEL_MODES, ON_MISMATCH, Level, check_listing, mismatch_policy
from .locate import choose, first_placement, resolve
from .metadata import ArrayMeta, parse
from .paths import PathLike, plain_name
from .retry import Retry
from .units import NANOMETER, Request, UnitsArgument

__all__ = ["Options", "Opened", "open_level", "forget_opens", "pinned", "checked_padding", "metadata",
           "open_tensorstore", "PathLike", "Sizes", "SizesOrNone", "Padding", "Transform", "Index", "Masked", "METHODS",
           "then"]

#: What fills the part of a read outside the data: a value the dtype holds, or "edge" (the nearest stored voxel).
Padding: TypeAlias = "float | str"
#: A function of stored values applied at read time (a normalisation chain).
Transform: TypeAlias = Callable[[np.ndarray], np.ndarray]
Index: TypeAlias = Sequence[int]
Masked: TypeAlias = "tuple[np.ndarray, np.ndarray]"

METHODS = resample.METHODS
MODES = ("r", "r+")


def _check_sizes(name: str, value: Any) -> None:
    """A voxel size at open is finite sizes > 0, one number or one per spatial axis (how many is the level's to say);
    ``voxel_size`` may hold None on the axes that do not choose the level, not on all of them."""
    if value is None:
        return
    try:
        if name == "voxel_size":
            sizes_or_none(value, None, name)
        else:
            floats(name, [value] if np.ndim(value) == 0 else value, positive=True)
    except ValueError:
        wanted = "finite sizes > 0" + (", or None on the axes that do not choose the level (not on all)"
                                       if name == "voxel_size" else "")
        raise ValueError(f"{name} is {value!r}; expected {wanted}") from None


@dataclasses.dataclass(frozen=True)
class Options:
    """The arguments of ``open`` other than path and context, checked once; the record a handle pickles by."""

    level: Level = None
    voxel_size: SizesOrNone | None = None
    level_mode: str = "floor"
    on_mismatch: str = "error"
    padding: Padding = 0
    method: str = "nearest"
    select: Mapping[str, int] | None = None
    units: UnitsArgument = NANOMETER
    retries: Retry | None = None
    metadata_conflicts: str = "error"
    base_voxel_size: Sizes | None = None
    base_units: str | None = None
    anchor: Sizes | None = None
    transform: Transform | None = None
    strict_units: bool = True
    mode: str = "r"
    store_fill: bool = False
    array: str | None = None

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"mode is {self.mode!r}; expected one of {MODES} (the package never overwrites: "
                             "there is no 'w')")
        one_of("level_mode", self.level_mode, LEVEL_MODES)
        one_of("on_mismatch", self.on_mismatch, ON_MISMATCH)
        one_of("method", self.method, METHODS)
        one_of("metadata_conflicts", self.metadata_conflicts, ("error", "warn"))
        _check_sizes("voxel_size", self.voxel_size)
        _check_sizes("base_voxel_size", self.base_voxel_size)
        retries_or_none(self.retries)
        flag("strict_units", self.strict_units), flag("store_fill", self.store_fill)
        if self.transform is not None and not callable(self.transform):
            raise ValueError(f"transform is {self.transform!r}; expected a callable or None")
        if self.select is not None and not isinstance(self.select, Mapping):
            raise ValueError(f"select is {self.select!r}; expected a dict of axis name to index")
        Request.checked(self.units)
        if self.array is not None:
            plain_name("array", self.array)


@dataclasses.dataclass(frozen=True)
class Opened:
    """What an open found: the level, its documents, its frame and its tensorstore."""

    path: str
    level_path: str
    level_name: str
    levels: tuple[str, ...]
    listed: Sequence[tuple[str, Placement]] | None
    node: Node
    meta: ArrayMeta
    frame: Frame
    store: ts.TensorStore
    remote: bool
    floor_bytes: float  # reads up to this size wait ``retry.FLOOR`` on attempt 1
    source_voxel_size: tuple[float, ...]  # the stored level's, in the units asked for, whatever the level policy
    source_translation: tuple[float, ...]
    reach: Reach  # how the store was reached: a retry opens a view again from it
    gzipped: GzippedChunks | None  # a local precomputed scale's check for cloud-volume's .gz chunks
    shape: tuple[int, ...] = dataclasses.field(init=False)  # the frame's, kept at hand for the read path
    itemsize: int = dataclasses.field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "shape", self.frame.meta.shape)
        object.__setattr__(self, "itemsize", self.frame.dtype.itemsize)

    def describe(self) -> str:
        """The level path, format, dtype and each axis's size and placement, for a handle's repr."""
        grid = self.frame.meta
        axes = ", ".join(
            f"{a}: {n}" + (f" x {grid.voxel_size[i]:g} {grid.units[i]}".rstrip() + f" @ {grid.translation[i]:g}"
                           if i in grid.spatial else "")
            for i, (a, n) in enumerate(zip(grid.axes, grid.shape, strict=True)))
        return f"{self.level_path!r}, {self.meta.format} {grid.dtype}, {{{axes}}}, placed_by={self.meta.placed_by!r}"

    def fetch(self, view: ts.TensorStore, nbytes: int, policy: Retry,
              derive: Callable[[ts.TensorStore], ts.TensorStore] | None = None) -> np.ndarray:
        """Read a view of ``nbytes`` (or ``derive`` of it, a view computed from it) under the retry policy: attempt 1
        inline, the loop only after a failure."""
        # Behaviour 6's formula gives the floor up to floor_bytes: the read path computes nothing it need not
        timeout = policy.timeout or (retry.FLOOR if nbytes <= self.floor_bytes
                                     else policy.attempt_timeout(nbytes, self.remote))
        if self.gzipped is not None and self.gzipped.pending:
            self.gzipped.check(view.domain.inclusive_min)
        # Retry.run's attempt 1, inline: the read path is measured against tensorstore's own
        future = (view if derive is None else derive(view)).read()
        try:
            return future.result(timeout=timeout)
        except Exception as error:  # later attempts send new requests rather than join the one pending
            return policy.resume(error, future, lambda: self.reach.read(view, derive), timeout, self.level_path)


def then(first: Transform | None, second: Transform) -> Transform:
    """``second`` applied after ``first`` (after nothing when ``first`` is None)."""
    if first is None:
        return second
    return lambda data: second(first(data))


def _stores_fill(meta: ArrayMeta) -> bool:
    """``write.stores_fill``, with ``write`` imported by the first open for writing, not by the package."""
    from .write import stores_fill

    return stores_fill(meta)


def _base_unit(options: Options) -> str:
    """The unit ``base_voxel_size`` is in: ``base_units``, else the spatial unit asked for, else nanometres."""
    return options.base_units or Request.of(options.units).space or NANOMETER


def _spatial_sizes(options: Options, rescale: Sequence[float] | None) -> Callable[[Placement], tuple[float, ...]]:
    return lambda placement: spatial_placement(placement, options.units, rescale, _base_unit(options))[0]


#: How many opens are kept to be handed out again (``open_level``).
REMEMBERED_OPENS = 256
_remembered: collections.OrderedDict[tuple, _Kept] = collections.OrderedDict()
_remembered_lock = threading.Lock()


def open_level(path: str, options: Options, context: ts.Context | None) -> Opened:
    """Choose, place, convert and open the level ``path`` and ``options`` name.

    What an open found is a function of its arguments and of the documents it read, so an open of the same path
    with the same arguments reads those documents again, in one round, and when every one is as it was hands out
    what the last open found without working it out again (the same tensorstore too), giving the warnings it gave.
    An open whose reading failed, or that gave a warning resting on more than its documents (``warn``'s
    ``again``) or one ``quiet`` dropped, is not kept, so every open of it warns or fails as the first did.
    """
    key = _open_key(path, options, context)
    kept = _kept(key)
    known = None
    if kept is not None:
        found = _read_again(kept)
        if found == kept.values:
            repeat(kept.notices)
            return _again(kept.opened)
        known = dict(zip(kept.requests, found, strict=True)) if found is not None else None
    with rounds.remembering(known, own=True, prune=True) as answers, noticing() as noticed:
        opened = _open_level(path, options, context)
    if key is not None and not answers.failed and all(notice.shown and notice.again for notice in noticed):
        try:
            reread = store.rereader(list(answers.used))
        except Exception:  # kept or not, the open succeeded
            reread = None
        if reread is not None:
            _keep(key, _Kept(tuple(answers.used), tuple(answers.used.values()), opened, reread, tuple(noticed)))
    return opened


def _read_again(kept: _Kept) -> tuple | None:
    """The documents a kept open read, read again in one round; None when that fails (the open reads them again)."""
    if rounds.current() is None:
        return kept.reread(retry.current().attempt_timeout())
    try:  # inside a block that knows some of them (a Pyramid's group documents): the rest alone are read
        return tuple(store.read_documents(list(kept.requests)).values())
    except Exception:
        return None


@dataclasses.dataclass(frozen=True)
class _Kept:
    """An open kept to be handed out again: the documents it read, their answers, what it found, how to read the
    documents again, and the warnings it gave."""

    requests: tuple[tuple[str, str], ...]
    values: tuple[bytes | None, ...]
    opened: Opened
    reread: Callable[[float], tuple | None]
    notices: tuple[Notice, ...]


def forget_opens() -> None:
    """Forget every open kept (for tests and benchmarks that time or count a first open)."""
    with _remembered_lock:
        _remembered.clear()


def _kept(key: tuple | None) -> _Kept | None:
    if key is None:
        return None
    with _remembered_lock:
        kept = _remembered.get(key)
        if kept is not None:
            _remembered.move_to_end(key)
        return kept


def _keep(key: tuple, kept: _Kept) -> None:
    with _remembered_lock:
        _remembered[key] = kept
        while len(_remembered) > REMEMBERED_OPENS:
            _remembered.popitem(last=False)


def _again(opened: Opened) -> Opened:
    """A kept open handed out again: the precomputed .gz check, which learns as it reads, starts afresh."""
    if opened.gzipped is None:
        return opened
    return dataclasses.replace(opened, gzipped=dataclasses.replace(opened.gzipped, pending=True))


def _open_key(path: str, options: Options, context: ts.Context | None) -> tuple | None:
    """What an open's result depends on besides its documents; None when an argument cannot be compared."""
    try:
        fields = (options.level, options.voxel_size, options.level_mode, options.on_mismatch, options.select,
                  options.units, options.metadata_conflicts, options.base_voxel_size, options.base_units,
                  options.anchor, options.strict_units, options.mode, options.store_fill, options.array)
        remote = store.scheme(path) in ("s3", "gs")  # their ways follow the environment and what worked before
        frozen = tuple(v if v is None or v.__class__ is str else _frozen(v) for v in fields)
        return (path, frozen, context, store.ways(path) if remote else None)
    except TypeError:
        return None


def _frozen(value: Any) -> Any:
    """``value`` as a hashable key that tells 1 from 1.0 from True; TypeError when it has no such form."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (bool, int, float, np.generic)):
        return type(value), value
    if isinstance(value, Mapping):
        return "mapping", tuple(sorted((str(k), _frozen(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple, np.ndarray)):
        return type(value), tuple(_frozen(v) for v in value)
    hash(value)
    return type(value), value


def _open_level(path: str, options: Options, context: ts.Context | None) -> Opened:
    """``open_level`` worked out from the documents."""
    choice = choose(path, options.level, options.voxel_size, options.level_mode, _spatial_sizes(options, None),
                    options.array)
    rescale = None
    if options.base_voxel_size is not None:
        rescale = base_rescale(first_placement(choice, options.array), np.ravel(options.base_voxel_size).tolist())
        if options.voxel_size is not None and choice.group is not None and options.level is None:
            # the level was chosen on unscaled sizes; choose again on the sizes the base voxel size gives
            choice = choose(path, None, options.voxel_size, options.level_mode, _spatial_sizes(options, rescale),
                            options.array)
    meta = parse(source_of(choice.found), options.metadata_conflicts)
    check_listing(choice, meta, options.metadata_conflicts)
    check_coordinates(meta, context)
    source = rescaled(meta, rescale, _base_unit(options)).converted(options.units, options.strict_units)
    node = choice.found.node
    level_path = store.join(node.path, node.scale_key) if node.scale_key else node.path

    def refuse(have: tuple[float, ...], wanted: tuple[float | None, ...]) -> None:
        listing = ", ".join(f"{name} {spatial_placement(p, options.units)[0]}" for name, p in choice.listed or ())
        raise ValueError(f"{path}: no level has voxel size {wanted}; level {choice.name} has {have} "
                         f"(on_mismatch='error'); the levels are {listing or ', '.join(choice.names)}; "
                         "pass on_mismatch='keep', 'relabel' or 'resample'")

    policy = mismatch_policy(options.on_mismatch, options.level_mode)
    frame = frame_of(source, options.voxel_size, policy, options.anchor, options.select, refuse)
    writing = options.mode == "r+"  # the read path calls nothing of ``write``, nor imports it
    view, reach = reach_array(choice.found, context, write=writing,
                              store_fill=writing and (options.store_fill or _stores_fill(meta)))
    return Opened(path, level_path, choice.name, choice.names, choice.listed, node, meta, frame,
                   pinned(view, frame.pins), store.is_remote(level_path),
                   retry.floor_bytes(store.is_remote(level_path)),
                   tuple(source.voxel_size[i] for i in source.spatial),
                   tuple(source.translation[i] for i in source.spatial), reach,
                   gzipped_chunks(level_path, node.docs, node.scale_key))


def pinned(view: ts.TensorStore, pins: Sequence[tuple[int, int]]) -> ts.TensorStore:
    """Pin axes to one index each; pinned axes leave the view."""
    for index, value in sorted(pins, reverse=True):
        view = view[ts.d[index][value]]
    return view


def checked_padding(value: Padding, dtype: np.dtype) -> Padding:
    """``value`` when it is "edge" or a value ``dtype`` holds exactly; else ValueError naming both."""
    if isinstance(value, str) and value != "edge":
        raise ValueError(f"padding is {value!r}; expected 'edge' or a value of dtype {dtype}")
    return value if isinstance(value, str) else exact_value("padding", value, dtype)


def metadata(path: PathLike, level: Level = None, units: UnitsArgument = None, open: bool = True, *,
             metadata_conflicts: str = "error", strict_units: bool = True, context: ts.Context | None = None,
             retries: Retry | None = None) -> ArrayMeta:
    """Return what the documents of the array ``path`` (and ``level``) say, in the store's units or in ``units``.

    Parameters
    ----------
    path, level
        An array, or a group and one of its levels (as ``wa.open`` takes them).
    units
        The units to convert to (as ``wa.open`` takes them); None keeps the store's own.
    open
        Also open the array through tensorstore and take shape and dtype from it; False reads the documents alone.
    metadata_conflicts, strict_units, context, retries
        As ``wa.open``.

    Raises
    ------
    ValueError
        On a malformed document (naming its URL, key and value), and on a voxel-size conflict or a level placed
        otherwise than its group lists it, unless ``metadata_conflicts="warn"``.

    Examples
    --------
    >>> _ = wa.create("memory://doc/metadata.zarr/s0", (4, 4), "uint8", 8, 4, axes=("y", "x"), chunks=4)
    >>> meta = wa.metadata("memory://doc/metadata.zarr/s0")
    >>> meta.voxel_size, meta.translation, meta.corner, meta.placed_by
    ((8.0, 8.0), (4.0, 4.0), (0.0, 0.0), 'ome')
    """
    one_of("metadata_conflicts", metadata_conflicts, ("error", "warn"))
    with retry.governing(retries):
        choice = choose(store.normalize(path), level)
        meta = parse(source_of(choice.found), metadata_conflicts)
        check_listing(choice, meta, metadata_conflicts)
        opened = open_array(choice.found, context) if open else None
    if opened is not None:
        meta = dataclasses.replace(meta, shape=tuple(int(n) for n in opened.shape),
                                   dtype=opened.dtype.numpy_dtype)
    return meta.converted(units, strict_units)


def open_tensorstore(path: PathLike, level: Level = None, context: ts.Context | None = None, *,
                     retries: Retry | None = None) -> ts.TensorStore:
    """Open the array ``path`` (and ``level``) names as a tensorstore with C-order axes and origin 0.

    Reads no world metadata, so an array with odd placement attributes still opens. N5 and precomputed are
    transposed to C order; a single-channel precomputed scale is (z, y, x).

    Raises
    ------
    FileNotFoundError
        When nothing is at ``path``.
    ValueError
        For a group path without a level, or a level that does not exist.

    Examples
    --------
    >>> _ = wa.create("memory://doc/tensorstore.zarr/s0", (2, 3), "uint8", 1, 0.5, axes=("y", "x"), chunks=2)
    >>> wa.open_tensorstore("memory://doc/tensorstore.zarr", level=0).shape
    (2, 3)
    """
    with retry.governing(retries):
        return open_array(resolve(store.normalize(path), level), context)
