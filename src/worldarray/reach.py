"""An array's tensorstore is opened from the documents already read, so tensorstore reads none of them again.

``reach_array`` opens an array node through its store's access ways (``store.on_ways``), on the context given or
``wa.shared_context()`` (with few plain-http requests at once for a server that closes every connection), puts its
axes in C order and its origin at 0, and says how it was reached (``Reach``), so a view of it can be opened again
for a retry or under another way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import tensorstore as ts

from . import retry, store
from .context import few_connections, retry_context, shared_context, watch
from .detect import FORMATS, Gathered
from .nodes import array_node

__all__ = ["Reach", "open_array", "reach_array"]


def _from_xyzc(view: ts.TensorStore) -> ts.TensorStore:
    """precomputed's (x, y, z, channel) as (channel, z, y, x), a single channel dropped."""
    view = view[ts.d["channel", "z", "y", "x"].transpose[:]]
    if view.shape[0] == 1:
        view = view[ts.d["channel"][0]]
    return view


#: The index step every opened array takes (``reach_array``), made once.
_ORIGIN_AT_ZERO_BOUNDS_EXPLICIT = ts.d[:].translate_to[0].mark_bounds_implicit[False]

#: How a view of each stored axis order is put in C order (``formats.Format.stored_order``).
C_ORDER: dict[str, Callable[[ts.TensorStore], ts.TensorStore]] = {
    "C": lambda view: view, "F": lambda view: view.T, "xyzc": _from_xyzc}


@dataclass(frozen=True)
class Reach:
    """How an opened array was reached (the way and the context), so a view of it can be opened again: for a retry,
    in a context of its own cache, or under another way when the store refuses a write under this one."""

    path: str  # the directory whose ways these are
    way: store.Way
    context: ts.Context
    writable: bool

    def view(self, view: ts.TensorStore, way: store.Way | None = None, fresh: bool = False) -> Any:
        """The future of ``view`` opened again under ``way`` (this one when None), in a ``retry_context`` when
        ``fresh``. The view's own spec lacks what its kvstore was given inline (the S3 credentials), so the way's
        spec replaces it; the metadata is in the spec, so a zarr or N5 open sends no request."""
        spec = {**view.spec().to_json(), "kvstore": (way or self.way).spec}
        context = retry_context(self.context) if fresh else self.context
        return ts.open(spec, context=context, read=True, write=self.writable)

    def read(self, view: ts.TensorStore, derive: Callable[[ts.TensorStore], ts.TensorStore] | None = None) -> Any:
        """A read of ``view`` (or of ``derive`` of it) that sends new requests: a retry's, which must not join the one
        still pending."""
        return retry.chain(self.view(view, fresh=True),
                           lambda opened: (opened if derive is None else derive(opened)).read())

    def write(self, view: ts.TensorStore, data: Any, policy: retry.Retry, timeout: float, what: str) -> None:
        """Write ``data`` into ``view`` under ``policy``, each attempt after the first through a fresh view; a store
        that refuses the write under this way is written under the next (``store.with_fallback``)."""

        def under(way: store.Way) -> None:
            def start() -> Any:
                if way.name == self.way.name:
                    return view.write(data)
                return retry.chain(self.view(view, way), lambda opened: opened.write(data))

            def again() -> Any:
                return retry.chain(self.view(view, way, fresh=True), lambda opened: opened.write(data))

            policy.run(start, timeout, what, again=again)

        try:
            under(self.way)  # the way the array was opened under: no fallback bookkeeping when it takes the write
        except Exception as error:
            if not store.is_refusal(error):
                raise
            store.with_fallback(self.path, under, refused=(self.way, error))


def open_array(found: Gathered, context: ts.Context | None = None, *, write: bool = False,
               store_fill: bool = False) -> ts.TensorStore:
    """Open an array node through its store's access ways from the documents already read; the result has C-order
    axes and origin 0.

    The open is timed out and retried under the governing ``retry`` policy. ``write`` opens it for writing too;
    ``store_fill`` stores write units equal to the fill value (by default they are left absent, and a stored unit
    written to all-fill loses its key).
    """
    return reach_array(found, context, write=write, store_fill=store_fill)[0]


def reach_array(found: Gathered, context: ts.Context | None = None, *, write: bool = False,
                store_fill: bool = False) -> tuple[ts.TensorStore, Reach]:
    """``open_array``, and how the array was reached."""
    node = array_node(found)
    fmt = FORMATS[node.format]
    spec = {**fmt.spec(node), **({"store_data_equal_to_fill_value": True} if store_fill else {}), "open": True}
    context = watch(context if context is not None else shared_context())
    limit = store.at_once(node.path)
    if limit is not None:  # a server that closes every connection is sent few reads at once too
        context = few_connections(context, limit)
    tried: list[store.Way] = []

    def start(way: store.Way):
        tried.append(way)
        try:
            return ts.open({**spec, "kvstore": way.spec}, context=context, read=True, write=write)
        except (ValueError, OverflowError):  # metadata tensorstore cannot take as given: it reads the document itself
            if not spec.get("assume_metadata"):
                raise
            plain = {k: v for k, v in spec.items() if k not in ("assume_metadata", "metadata", "multiscale_metadata",
                                                                 "scale_metadata")}
            return ts.open({**plain, "kvstore": way.spec}, context=context, read=True, write=write)

    try:
        opened = C_ORDER[fmt.stored_order](store.on_ways(node.path, start, f"open {node.path}"))
    except (ValueError, OverflowError) as error:  # tensorstore names a document by its key in the kvstore alone
        raise ValueError(f"{node.path}: tensorstore cannot open the {node.format} array its documents describe: "
                         f"{error}") from error
    # the origin reset lives here and nowhere else; bounds are made explicit so reads past them fail
    view = opened[_ORIGIN_AT_ZERO_BOUNDS_EXPLICIT]
    return view, Reach(node.path, tried[-1], context, write)
