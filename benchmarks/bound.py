"""How near tensorstore's open any first open that places a level can come, beside worldarray's first open.

    python benchmarks/bound.py               # 600 rounds
    python benchmarks/bound.py --rounds 2000

The floor of ``run.py``'s open rows is tensorstore's own open of the level, which reads the array document and no
other. An open that places the level must also read the group document that lists it (the parent of a level path),
and parse both. This script times, interleaved in one run (``timing.interleaved``) on ``run.py``'s open volumes
and its 32-level group, per format:

- ``floor``: ``ts.open`` of the level, as in ``run.py``;
- ``documents``: reading and ``json.loads`` of the documents placement needs: zarr v3 the level's and the group's
  ``zarr.json``; zarr v2 the level's ``.zarray`` and ``.zattrs`` and the group's ``.zattrs``; precomputed the
  ``info`` alone;
- ``from documents``: ``ts.open`` of the level from its parsed document (``assume_metadata``: tensorstore reads
  nothing), the open worldarray makes;
- ``bound``: ``documents`` then ``from documents`` in one call: an open that does nothing else, no detection, no
  placement, no check;
- worldarray's first open of the level path and of the group with the level named (``run.py``'s ``, first`` rows).

Printed per row: the median, the median of the per-round ratios to the floor (as ``run.py`` prints it), and for
our opens the part of that ratio left after the bound, which is what worldarray's own Python costs, beside the
target T and what it leaves for that Python: T minus the bound's ratio. Asserts nothing about timing.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import statistics
import sys
import tempfile
from collections.abc import Callable

import tensorstore as ts

import worldarray as wa

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from run import MANY_OPEN, MANY_TARGET, OPEN_FORMATS, OPEN_TARGETS, build_opens, first_open, level_spec  # noqa: E402
from timing import interleaved, per_round  # noqa: E402

#: Per case: the group, the level and tensorstore's driver (``run.py``'s open volumes and its 32-level group).
CASES = {**OPEN_FORMATS, "zarr v3, 32 levels": MANY_OPEN}
#: Per driver, the documents placement needs, relative to the group.
DOCUMENTS = {"zarr3": ("{level}/zarr.json", "zarr.json"), "zarr": ("{level}/.zarray", "{level}/.zattrs", ".zattrs"),
             "neuroglancer_precomputed": ("info",)}


def read_documents(group: pathlib.Path, level: str, driver: str) -> list[dict | None]:
    """The documents placement needs, read from the disk and parsed; None for one that is absent (it is asked for
    all the same: an open cannot know it is absent before asking)."""
    docs = []
    for name in DOCUMENTS[driver]:
        try:
            with open(f"{group}/{name.format(level=level)}", "rb") as file:
                docs.append(json.loads(file.read()))
        except FileNotFoundError:
            docs.append(None)
    return docs


def from_documents(group: pathlib.Path, level: str, driver: str, docs: list[dict | None]) -> dict:
    """tensorstore's spec of the level from its parsed array document, so that the open reads nothing."""
    assert docs[0] is not None, f"{group}: no array document for {level}"
    if driver == "neuroglancer_precomputed":
        info = docs[0]
        index = next(i for i, scale in enumerate(info["scales"]) if scale["key"] == level)
        multiscale = {key: info[key] for key in ("type", "data_type", "num_channels")}
        scale = {key: info["scales"][index][key] for key in ("key", "size", "resolution", "voxel_offset", "encoding")}
        scale["chunk_size"] = info["scales"][index]["chunk_sizes"][0]
        return {"driver": driver, "kvstore": {"driver": "file", "path": f"{group}/"}, "scale_index": index,
                "assume_metadata": True, "multiscale_metadata": multiscale, "scale_metadata": scale}
    metadata = {k: v for k, v in docs[0].items() if k != "attributes"}
    return {"driver": driver, "kvstore": {"driver": "file", "path": f"{group}/{level}/"}, "assume_metadata": True,
            "metadata": metadata}


def case_calls(root: str, name: str, context: ts.Context) -> dict[str, Callable[[], object]]:
    """The callables of one case, by row name, the floor first."""
    group, level, driver = CASES[name]
    where = pathlib.Path(root) / group
    floor_spec = level_spec(f"file://{root}", group, level, driver)
    spec = from_documents(where, level, driver, read_documents(where, level, driver))

    def bound() -> object:
        docs = read_documents(where, level, driver)
        return ts.open(from_documents(where, level, driver, docs), context=context, read=True).result()

    return {"floor": lambda: ts.open(floor_spec, context=context, read=True).result(),
            "documents": lambda: read_documents(where, level, driver),
            "from documents": lambda: ts.open(spec, context=context, read=True).result(),
            "bound": bound,
            "ours, level path, first": lambda: first_open(f"{where}/{level}"),
            "ours, group + level, first": lambda: first_open(str(where), level=level)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=600)
    options = parser.parse_args()
    context = wa.shared_context()
    with tempfile.TemporaryDirectory() as root:
        build_opens(root)
        print(f"{'case':20s} {'row':28s} {'median':>9s} {'/ floor':>8s} {'beyond bound':>13s} {'target':>7s} "
              f"{'target leaves':>14s}")
        for name in CASES:
            calls = case_calls(root, name, context)
            shapes = {tuple(calls[row]().shape)[:3] for row in ("bound", "ours, level path, first")}  # cubes
            assert len(shapes) == 1, f"{name}: the bound and ours open different arrays: {shapes}"
            times = dict(zip(calls, interleaved(list(calls.values()), options.rounds, warmup=20), strict=True))
            bound = per_round(times["bound"], times["floor"])
            for row, series in times.items():
                ratio = per_round(series, times["floor"])
                ours = row.startswith("ours")
                target = (MANY_TARGET if "32" in name else OPEN_TARGETS["local"][0 if "level path" in row else 1])
                print(f"{name:20s} {row:28s} {statistics.median(series) / 1e3:6.1f} us {ratio:7.3f}x"
                      + (f" {ratio - bound:12.3f}x {target:6.2f}x {target - bound:13.3f}x" if ours else ""))


if __name__ == "__main__":
    main()
